#!/usr/bin/env bash
# Run the official MCP conformance suite against examples/everything.
#
# usage: scripts/conformance.sh
#
# Builds the everything server, starts ONE process on a free 127.0.0.1 port,
# runs ../shared/tools/conformance against it for 2025-11-25 and then 2026-07-28
# (both eras on the same endpoint), stops it with SIGTERM (it must exit 0), and
# prints the suite's output.
# Exits non-zero when any scored scenario fails, when a scenario listed in
# scripts/conformance-required.txt ("REVISION scenario" per line, # comments;
# not-scored ones too) is not PASS, or when the server dies or cannot start.
# env: CONFORMANCE (path of the runner; default ../shared/tools/conformance
# beside the repo), plus whatever that runner reads (CONFORMANCE_HOME, ...).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
runner=${CONFORMANCE:-$repo/../shared/tools/conformance}
required=$repo/scripts/conformance-required.txt
[ -x "$runner" ] || { echo "conformance.sh: runner $runner not found" >&2; exit 2; }
[ -f "$required" ] || { echo "conformance.sh: $required not found" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-conformance-XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$repo" && go build -o "$work/everything-server" ./examples/everything/cmd/everything-server)

# Port 0: the kernel picks a free port, and the server logs the URL it serves.
"$work/everything-server" -http 127.0.0.1:0 2>"$work/server.log" &
pid=$!
url=
for _ in $(seq 1 100); do
  url=$(grep -o 'url=http://[^ ]*' "$work/server.log" | head -n1 | cut -d= -f2- || true)
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "conformance.sh: server exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log" >&2; echo "conformance.sh: server did not report its URL" >&2; exit 1; }
echo "everything server (pid $pid) at $url"

status=0
for rev in 2025-11-25 2026-07-28; do
  echo "=== conformance $rev"
  "$runner" "$url" "$rev" | tee "$work/$rev.out" || true
  kill -0 "$pid" 2>/dev/null || { echo "conformance.sh: server died during $rev" >&2; status=1; break; }
done

# Stop the server as a supervisor would; a graceful shutdown exits 0.
if kill -0 "$pid" 2>/dev/null; then
  kill -TERM "$pid"
  rc=0
  wait "$pid" || rc=$?
  pid=
  [ "$rc" -eq 0 ] || { echo "conformance.sh: server exited $rc after SIGTERM" >&2; status=1; }
fi

# A scored failure fails the run, whatever the required list says.
for rev in 2025-11-25 2026-07-28; do
  if ! grep -Eq '^[0-9]+ passed, 0 failed$' "$work/$rev.out" 2>/dev/null; then
    echo "SCORED FAIL: $rev: $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$work/$rev.out" 2>/dev/null || echo 'no summary line')" >&2
    status=1
  fi
done

# Every required "REVISION scenario" must have a PASS line in that run,
# including the not-scored ones listed there.
while read -r rev scenario _; do
  case $rev in '' | '#'*) continue ;; esac
  if ! grep -Eq "^PASS $scenario( |\$)" "$work/$rev.out" 2>/dev/null; then
    echo "REQUIRED FAIL: $rev $scenario" >&2
    status=1
  fi
done <"$required"

if [ "$status" -ne 0 ]; then
  echo "--- server log (last 30 lines)" >&2
  tail -n 30 "$work/server.log" >&2
else
  echo "all required scenarios passed"
fi
exit "$status"

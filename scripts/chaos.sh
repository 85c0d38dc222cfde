#!/usr/bin/env bash
# Chaos for writes with idempotency keys: 3 replicas of the incidents server
# sharing one Redis (-store redis://...) behind nginx (which itself retries a
# failed POST on another replica), N create_incident_ticket writes retried by
# their clients (scripts/chaos) while replicas are killed (SIGKILL) and
# restarted. Passes when no key has two tickets, every receipt names its key's
# journaled ticket and replays byte for byte, and every write ends as a receipt,
# outcome_unknown or a definite error.
#
# usage: scripts/chaos.sh [N [CONCURRENCY]]   (default 300 8)
# env:   MCPGEN_TEST_REDIS  a Redis to use (default: start redis-server on a free
#                           loopback port; installs redis-server and nginx with
#                           apt-get when missing)
#        CHAOS_DELAY        the ticket system's delay after storing (default 30ms)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-300}
conc=${2:-8}
need=()
command -v nginx >/dev/null || need+=(nginx)
[ -n "${MCPGEN_TEST_REDIS:-}" ] || command -v redis-server >/dev/null || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "chaos.sh: installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-chaos-XXXXXX")
mkdir -p "$work"/tmp-{body,proxy,fcgi,uwsgi,scgi}
declare -A rpid
others=()
ngx=
cleanup() {
  [ -z "$ngx" ] || kill -TERM "$ngx" 2>/dev/null || true # nginx's master stops its workers
  for p in "${rpid[@]}" "${others[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in $ngx "${rpid[@]}" "${others[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

store=${MCPGEN_TEST_REDIS:-}
if [ -z "$store" ]; then
  rport=$(freeport)
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no </dev/null >"$work/redis.log" 2>&1 &
  others+=($!)
  for _ in $(seq 1 100); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
  store=redis://127.0.0.1:$rport/0
fi

(cd "$repo" && go build -o "$work/incidents-server" ./examples/incidents/cmd/incidents-server && go build -o "$work/chaos" ./scripts/chaos)
ports=("$(freeport)" "$(freeport)" "$(freeport)")
start() { # start N: replica N on its fixed port
  local i=$1
  # The writers hold incident:create (no OAuth server here) and all replicas
  # share the requestState key, so a consent round may end on another replica.
  MCP_ANONYMOUS_SCOPES=incident:create MCP_STATE_KEY=chaos-shared-state-key-0123456789 \
  INCIDENTS_JOURNAL=$work/journal INCIDENTS_DELAY=${CHAOS_DELAY:-30ms} \
    "$work/incidents-server" -http "127.0.0.1:${ports[$i]}" -store "$store" </dev/null >/dev/null 2>>"$work/r$i.log" &
  rpid[$i]=$!
}
for i in 0 1 2; do start "$i"; done
front=$(freeport)
sed -e "s#@WORK@#$work#g" -e "s#@PORT@#$front#g" -e "s#@P1@#${ports[0]}#g" -e "s#@P2@#${ports[1]}#g" -e "s#@P3@#${ports[2]}#g" \
  "$repo/scripts/chaos-nginx.conf.tmpl" >"$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" </dev/null >/dev/null 2>&1 &
ngx=$!
for i in 0 1 2; do
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:${ports[$i]}/mcp" && break; sleep 0.1; done
done
url=http://127.0.0.1:$front/mcp
echo "chaos: $n writes, $conc in flight, 3 replicas (ports ${ports[*]}) on $store behind nginx at $url"

"$work/chaos" -url "$url" -journal "$work/journal" -n "$n" -c "$conc" -stop "$work/stop" >"$work/chaos.out" 2>&1 &
driver=$!
kills=0
while [ ! -e "$work/stop" ] && kill -0 "$driver" 2>/dev/null; do
  sleep "0.$((RANDOM % 8 + 2))"
  i=$((RANDOM % 3))
  kill -9 "${rpid[$i]}" 2>/dev/null || true
  wait "${rpid[$i]}" 2>/dev/null || true
  kills=$((kills + 1))
  sleep "0.$((RANDOM % 4 + 1))"
  start "$i"
done
# Every replica up again for the replay check the driver ends with.
status=0
wait "$driver" || status=$?
cat "$work/chaos.out"
echo "chaos: $kills replica kills (SIGKILL) and restarts; exit $status"
exit $status

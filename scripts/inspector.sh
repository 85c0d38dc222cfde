#!/usr/bin/env bash
# The official MCP Inspector CLI (npm @modelcontextprotocol/inspector, --cli) lists and
# calls the example servers' tools, resources and prompts, over stdio and over
# Streamable HTTP. A real client's view of what mcpgen generates.
#
# usage: scripts/inspector.sh
# env:   MCPGEN_INTEROP_HOME  cache shared with interop/run.sh (Node 22, npm packages);
#                             default ${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen-interop
# Node comes from interop/run.sh -env (the machine's node if >= 22, else the npm
# package node-linux-<arch>@22); the Inspector is installed exactly as
# scripts/inspector/package-lock.json pins it. Any failed install or check exits
# non-zero: there is no skip.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
prog=inspector
. "$repo/scripts/lib.sh"

node_env
# The Inspector, keyed by the lock's hash; an interrupted install leaves nothing behind.
# npm install, not npm ci: npm ci rejects this lock over an optional Windows-only
# dependency it records without a version; install still follows the lock.
dir=$(npm_dir inspector "$repo/scripts/inspector" install)
inspector=$dir/node_modules/.bin/mcp-inspector
[ -x "$inspector" ] || die "$inspector missing after install"

workdir
export MCP_CATALOG_PATH=$work/catalog.json # keep the Inspector out of $HOME

(cd "$repo" && go build -o "$work/notes-server" ./examples/notes/cmd/notes-server &&
  go build -o "$work/everything-server" ./examples/everything/cmd/everything-server) || die "go build failed"

failures=0
# check NAME WANT ARGS...: run the Inspector CLI; it must succeed and its output
# contain WANT. With expect_error=1 it must fail instead (it exits non-zero when a
# tool returns isError: true).
expect_error=0
check() {
  local name=$1 want=$2 out status=0
  shift 2
  out=$(timeout 120 "$inspector" --cli "$@" 2>&1) || status=$?
  if [ $((status != 0)) -ne "$expect_error" ]; then
    echo "FAIL $name: the Inspector exited $status:" >&2
    echo "$out" | head -40 >&2
    failures=$((failures + 1))
    return
  fi
  if ! grep -qF -- "$want" <<<"$out"; then
    echo "FAIL $name: output lacks $want:" >&2
    echo "$out" | head -40 >&2
    failures=$((failures + 1))
    return
  fi
  echo "ok   $name"
}

# checks TRANSPORT TARGET...: the same checks over one transport.
checks() {
  local tr=$1 notes=$2 every=$3
  shift 3
  check "$tr notes tools/list" '"name": "search_notes"' $notes "$@" --method tools/list
  check "$tr notes tools/call" '"file": "ideas.md"' $notes "$@" --method tools/call --tool-name search_notes --tool-arg keyword=idea
  expect_error=1
  check "$tr notes tools/call invalid arguments" '/limit: minimum: got a number, want at least 1' $notes "$@" --method tools/call --tool-name search_notes --tool-arg keyword=idea limit=0
  expect_error=0
  check "$tr everything tools/list" '"name": "test_simple_text"' $every "$@" --method tools/list
  check "$tr everything tools/call" '"type": "image"' $every "$@" --method tools/call --tool-name test_image_content
  check "$tr everything resources/list" '"uri": "test://static-text"' $every "$@" --method resources/list
  check "$tr everything resources/read" '"uri": "test://template/7/data"' $every "$@" --method resources/read --uri test://template/7/data
  check "$tr everything prompts/get" "arg1='a'" $every "$@" --method prompts/get --prompt-name test_prompt_with_arguments --prompt-args arg1=a arg2=b
}

checks stdio "$work/notes-server" "$work/everything-server"

start_server "$work/notes-server.log" "$work/notes-server" -http 127.0.0.1:0
notes_url=$url notes_pid=$pid
start_server "$work/everything-server.log" "$work/everything-server" -http 127.0.0.1:0
every_url=$url every_pid=$pid
checks http "$notes_url" "$every_url" --transport http

for p in "$notes_pid" "$every_pid"; do
  kill -TERM "$p"
  if wait "$p"; then echo "ok   server $p exited 0 on SIGTERM"; else
    echo "FAIL server $p: exit $? on SIGTERM" >&2
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] || die "$failures check(s) failed"
echo "inspector: all checks passed ($("$inspector" --version 2>/dev/null || echo '?'))"

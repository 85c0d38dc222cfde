#!/usr/bin/env bash
# MCP Apps in a real browser: Chromium (from apt), driven by playwright-core,
# opens a host page that uses the official AppBridge and TypeScript client
# (npm @modelcontextprotocol/ext-apps and @modelcontextprotocol/client, served
# to the browser as ES modules, no build step) against the generated
# incidents server over Streamable HTTP; renders show_incident_board's view in
# a sandboxed iframe under the CSP from its metadata, clicks Acknowledge and
# checks that acknowledge_alert (app-only) ran once on the server (the audit
# trail) and that its receipt reached the view (scripts/apps/browser-test.mjs).
# Then validates the example's tools/list, resources/read and server/discover
# against the 2026-07-28 schema and the ext-apps schema (TestAppsSchemas).
#
# usage: scripts/apps.sh [SCREENSHOT.png]      the test (CI); a screenshot when named
#        scripts/apps.sh -preview [-server DIR | MCP_URL] [-port N]
#                                               serve the host page for a developer:
#                                               build and start the server main in DIR
#                                               (a package path from the current directory;
#                                               default: the incidents example) or use a
#                                               running server's URL
#        scripts/apps.sh -env                   install, then print the environment
# env:   MCPGEN_INTEROP_HOME  cache shared with interop/run.sh (Node, npm packages)
#        CHROMIUM             the browser (default /usr/bin/chromium, apt-get installed when missing)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cwd=$(pwd) # -preview -server DIR is relative to where the script was started
prog=apps
. "$repo/scripts/lib.sh"

node_env
# The host's packages, exactly as scripts/apps/package-lock.json pins them, keyed by its hash.
dir=$(npm_dir apps "$repo/scripts/apps" ci)
modules=$dir/node_modules
schema=$modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json
[ -f "$schema" ] && [ -d "$modules/playwright-core" ] || die "$modules lacks ext-apps or playwright-core"
export MCPGEN_EXT_APPS_SCHEMA=$schema APPS_NODE_MODULES=$modules
if [ "${1:-}" = "-env" ]; then
  echo "MCPGEN_EXT_APPS_SCHEMA=$schema"
  echo "APPS_NODE_MODULES=$modules"
  exit 0
fi

workdir
# The scripts beside the packages they import (Node resolves from the script's directory).
cp "$repo"/scripts/apps/*.mjs "$repo"/scripts/apps/*.html "$repo"/scripts/apps/host.js "$work/"
ln -s "$modules" "$work/node_modules"

# serve FROM MAIN_DIR: build the server main (a package path relative to
# FROM) and serve it over HTTP; sets mcp_url.
serve() {
  (cd "$1" && go build -o "$work/server" "$2") || die "go build $2 (in $1) failed"
  start_server "$work/server.log" "$work/server" -http 127.0.0.1:0 -audit
  mcp_url=$url
}

# start_host MCP_URL [PORT]: serve the host page; sets host_url.
start_host() {
  "$node" "$work/serve.mjs" "$1" "${2:-0}" >"$work/host.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    host_url=$(sed -n 's/^host=//p' "$work/host.log") && [ -n "$host_url" ] && return
    sleep 0.1
  done
  cat "$work/host.log" >&2
  die "the host page did not start"
}

if [ "${1:-}" = "-preview" ]; then
  shift
  main=./examples/incidents/cmd/incidents-server url="" port=8765
  while [ $# -gt 0 ]; do
    case $1 in
      -server) main=$2; shift 2 ;;
      -port) port=$2; shift 2 ;;
      *) url=$1; shift ;;
    esac
  done
  if [ -z "$url" ]; then
    from=$cwd
    [ "$main" = ./examples/incidents/cmd/incidents-server ] && from=$repo
    serve "$from" "$main"
    url=$mcp_url
  fi
  start_host "$url" "$port"
  echo "apps: open $host_url (add &tool=NAME&args=JSON for another tool); the server is $url; Ctrl-C ends" >&2
  wait
  exit 0
fi

if ! [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  [ -z "${CHROMIUM:-}" ] || die "CHROMIUM=$CHROMIUM is not executable"
  command -v apt-get >/dev/null || die "no /usr/bin/chromium and no apt-get to install it"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2 || die "apt-get install chromium failed"
fi
serve "$repo" ./examples/incidents/cmd/incidents-server
start_host "$mcp_url"
echo "apps: $("${CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null); server $mcp_url; host $host_url" >&2
status=0
timeout 180 "$node" "$work/browser-test.mjs" "$host_url" "$mcp_url" "${1:-}" || status=1
# The server side: the app-only tool's handler ran exactly once (a retry would
# be an audit record with idempotency "replay", not "fresh").
runs=$(grep -c '"tool":"acknowledge_alert".*"outcome":"ok".*"idempotency":"fresh"' "$work/server.log" || true)
if [ "$runs" = 1 ]; then
  echo "ok   acknowledge_alert ran once on the server (audit trail)"
else
  echo "FAIL acknowledge_alert ran $runs times on the server, want 1 (audit trail)"
  status=1
fi
# The example's messages against the 2026-07-28 and ext-apps schemas.
(cd "$repo" && go test -count=1 -run 'TestAppsSchemas' ./examples/incidents/) || status=1
exit $status

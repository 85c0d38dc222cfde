#!/usr/bin/env bash
# Bounded load test of the everything server over loopback HTTP (64 clients,
# both eras) and stdio (16 requests in flight), via cmd/mcpload.
#
# usage: scripts/load.sh [CALLS]     (default 40000; CI uses 4000)
# Exits non-zero on any error or unmatched response.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
calls=${1:-40000}
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-load-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$repo"
go build -o "$work/everything-server" ./examples/everything/cmd/everything-server
go build -o "$work/mcpload" ./cmd/mcpload
"$work/mcpload" -server "$work/everything-server" -clients 64 -stdio-inflight 16 -calls "$calls" -timeout 5m

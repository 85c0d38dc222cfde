#!/usr/bin/env bash
# Cost curves: how an MCP server's cost grows with its catalog (10 to 10,000
# tools), its payloads (1 KiB to 4 MiB) and its idle 2025-11-25 sessions (100 to
# 10,000), for mcpgen and, side by side, the official Go SDK v1.8.0, mcp-go
# v1.2.1 and a hand-written encoding/json floor serving the same generated
# tools (scripts/curves; docs/performance.md, "Cost curves").
#
#   scripts/curves.sh [-quick] [OUTDIR]
#
# Writes into OUTDIR (default bench-results/curves-<UTC time>): curves.jsonl
# (raw lines), curves.md (tables), *.svg (charts), env.txt (machine, commit,
# load average). The full run builds 16 servers (the 10,000-tool ones take
# minutes each) and measures for 30 to 60 minutes on 2 cores; -quick (CI) is
# catalog 10, payloads of 1 and 64 KiB, mcpgen's limits and 100 sessions, about
# a minute with warm caches, and then checks that the output is complete and
# well-formed (never a speed). CURVES_WORK (default ~/.cache/mcpgen-curves)
# holds the generated servers and binaries; extra arguments after OUTDIR go to
# the program (e.g. -catalog 10,100).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=()
if [ "${1:-}" = -quick ]; then
	quick=(-quick)
	shift
fi
out=${1:-$root/bench-results/curves-$(date -u +%Y%m%dT%H%M%SZ)}
shift || true
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${CURVES_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen-curves}
{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "go: $(go version)"
	echo "commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- runtime gen cmd scripts/curves || echo ' (dirty)')"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/env.txt"
cd "$root"
go build -o "$work/curves" ./scripts/curves
"$work/curves" "${quick[@]}" -out "$out" -work "$work" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"
"$work/curves" -report "$out"
if [ ${#quick[@]} -gt 0 ]; then
	"$work/curves" -check "$out"
fi
echo "curves.sh: results in $out" >&2

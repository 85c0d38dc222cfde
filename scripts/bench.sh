#!/usr/bin/env bash
# Compare the mcpgen-generated server (examples/bench) with the official Go SDK,
# mcp-go and the hand-written floor, using the shared harness in ../shared/bench.
#
#   scripts/bench.sh [OUTDIR]
#
# Builds examples/bench/cmd/bench-server, runs ../shared/bench/run.sh with it as
# EXTRA_SERVER "mcpgen", and writes into OUTDIR (default bench-results/<UTC time>):
#   results.jsonl   the raw JSON lines of every mcpload run
#   results.log     server and mcpload stderr
#   tables.md       the harness's Markdown tables (medians and ratios)
#   chart.svg       calls/s and server CPU per call per server (scripts/benchchart)
#   env.txt         machine, Go version, load average before and after
# The harness's knobs pass through (N, HTTP_N, WARMUP, REPS, COLD, TRANSPORTS,
# CONCS, ERAS, TOOLS, SERVERS, PORT); BENCH_WORK (default ~/.cache/mcp-bench)
# holds the harness binaries, since ../shared may be read-only. HARNESS names
# the harness directory (default ../shared/bench next to this repository).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=${HARNESS:-$root/../shared/bench}
out=${1:-$root/bench-results/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export BENCH_WORK=${BENCH_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-bench}
mkdir -p "$BENCH_WORK/bin"

if [ ! -x "$harness/run.sh" ]; then
	echo "bench.sh: no harness at $harness (set HARNESS)" >&2
	exit 1
fi
server=$BENCH_WORK/bin/mcpgen-bench-server
(cd "$root" && go build -trimpath -o "$server" ./examples/bench/cmd/bench-server)

{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "go: $(go version)"
	echo "commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- runtime examples/bench || echo ' (dirty)')"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/env.txt"

OUT=$out/results.jsonl EXTRA_SERVER="mcpgen=$server${MCPGEN_ERAS:+|$MCPGEN_ERAS}" \
	"$harness/run.sh" >"$out/tables.md"
mv -f "$out/results.jsonl.log" "$out/results.log" 2>/dev/null || true
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"

(cd "$root" && go run ./scripts/benchchart -o "$out/chart.svg" "$out/results.jsonl")
(cd "$root" && go run ./scripts/benchchart -goals -base floorserver -server mcpgen "$out/results.jsonl") >>"$out/tables.md"
cat "$out/tables.md"
echo "bench.sh: results in $out" >&2

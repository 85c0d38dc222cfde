#!/usr/bin/env bash
# Profile ONE cell of the shared harness (../shared/bench) for the floor and
# for mcpgen: the same mcpload run against floorserver and against the
# generated bench server (examples/bench), each with a CPU profile of the
# server, then the top of both profiles side by side.
#
#   scripts/profile-cell.sh TOOL TRANSPORT CONC ERA [OUTDIR]
#   scripts/profile-cell.sh add stdio 16 legacy /tmp/prof
#
# TOOL add or search_notes; TRANSPORT stdio or http; CONC 1 or 16 (any c);
# ERA modern (2026-07-28) or legacy (2025-11-25). Knobs: N (default 150000
# stdio, 40000 http: enough samples), WARMUP (1000), NODES (25 lines of each top), PORT (18743),
# SERVERS (default "floorserver mcpgen"; any harness server name, or mcpgen),
# BENCH_WORK and HARNESS as for scripts/bench.sh.
#
# OUTDIR (default bench-results/profile-<cell>-<UTC time>) receives, per server:
#   NAME.pprof     the CPU profile (binary; not for committing)
#   NAME.top.txt   go tool pprof -top of it (flat, then -cum)
#   NAME.json      mcpload's summary line (server CPU per call, calls/s, p99)
#   NAME.proc.txt  the server's thread-summed context switches and syscall
#                  counts (/proc/PID/task/*/status, /proc/PID/io), sampled
#                  every 50 ms until it exits (warm-up included), per call
# and side-by-side.txt, what it prints: summaries, /proc counts, both tops.
# It exits 1 if a server's run had errors or wrote no profile.
# The floor writes its profile through BENCH_CPUPROFILE, mcpgen through
# MCP_CPUPROFILE (serve.Main; the bench server is built with -tags mcpgen_pprof).
set -euo pipefail
if [ $# -lt 4 ]; then
	sed -n '2,/^set -e/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
tool=$1 transport=$2 conc=$3 era=$4
root=$(cd "$(dirname "$0")/.." && pwd)
harness=${HARNESS:-$root/../shared/bench}
cell="$tool-$transport-c$conc-$era"
out=${5:-$root/bench-results/profile-$cell-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export BENCH_WORK=${BENCH_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-bench}
mkdir -p "$BENCH_WORK/bin"
port=${PORT:-18743}
warmup=${WARMUP:-1000}
nodes=${NODES:-25}
n=${N:-150000}
[ "$transport" = http ] && n=${N:-40000}
case $tool in
add) args='{"a":2,"b":3}' expect='sum=5' ;;
search_notes) args='{"keyword":"review","limit":10}' expect='total=20' ;;
*) echo "profile-cell.sh: unknown tool $tool" >&2 && exit 2 ;;
esac

(cd "$harness" && go build -o "$BENCH_WORK/bin/" ./cmd/...)
(cd "$root" && go build -trimpath -tags mcpgen_pprof -o "$BENCH_WORK/bin/mcpgen-bench-server" ./examples/bench/cmd/bench-server)

# sample PID: the server's context switches (all threads) and syscalls, until it exits.
sample() {
	local pid=$1 file=$2 last="" cur io threads
	set +e
	while [ -d "/proc/$pid" ]; do
		cur=$(awk '/^voluntary_ctxt_switches/ {v += $2} /^nonvoluntary_ctxt_switches/ {nv += $2}
			END {printf "voluntary_ctxt_switches %d nonvoluntary_ctxt_switches %d", v, nv}' \
			/proc/"$pid"/task/*/status 2>/dev/null || true)
		io=$(awk '/^sysc[rw]:/ {printf " %s %d", substr($1, 1, length($1)-1), $2}' /proc/"$pid"/io 2>/dev/null || true)
		threads=$( (ls /proc/"$pid"/task 2>/dev/null || true) | wc -l)
		if [ -n "$cur" ] && [ -n "$io" ]; then
			last="$cur$io threads $threads"
			echo "$last" >"$file" # kept at each sample: the process may vanish between two reads
		fi
		sleep 0.05
	done
}

failed=0
for name in ${SERVERS:-floorserver mcpgen}; do
	bin=$BENCH_WORK/bin/$name
	[ "$name" = mcpgen ] && bin=$BENCH_WORK/bin/mcpgen-bench-server
	target=(-- "$bin" -stdio)
	[ "$transport" = http ] && target=(-url "http://127.0.0.1:$port/mcp" -- "$bin" -http "127.0.0.1:$port")
	rm -f "$out/$name.pprof"
	BENCH_CPUPROFILE=$out/$name.pprof MCP_CPUPROFILE=$out/$name.pprof \
		"$BENCH_WORK/bin/mcpload" -name "$name" -era "$era" -tool "$tool" -args "$args" -expect "$expect" \
		-n "$n" -warmup "$warmup" -c "$conc" "${target[@]}" >"$out/$name.json" 2>"$out/$name.log" &
	load=$!
	spid=""
	for _ in $(seq 200); do
		spid=$(pgrep -P "$load" | head -1 || true)
		[ -n "$spid" ] && break
		sleep 0.01
	done
	[ -n "$spid" ] && sample "$spid" "$out/$name.proc.raw" &
	sampler=$!
	if ! wait "$load" || ! grep -q '"errors":0,' "$out/$name.json"; then
		echo "profile-cell.sh: mcpload for $name failed (see $out/$name.log, $out/$name.json)" >&2
		failed=1
	fi
	wait "$sampler" || true
	total=$((n + warmup))
	awk -v total="$total" '{for (i = 1; i < NF; i += 2) printf "%-28s %10d  %7.3f/call\n", $i, $(i+1), $(i+1)/total}' \
		"$out/$name.proc.raw" >"$out/$name.proc.txt" 2>/dev/null || true
	rm -f "$out/$name.proc.raw"
	if [ -s "$out/$name.pprof" ]; then
		{
			go tool pprof -top -nodecount="$nodes" "$bin" "$out/$name.pprof" 2>/dev/null
			echo
			go tool pprof -top -cum -nodecount="$nodes" "$bin" "$out/$name.pprof" 2>/dev/null | sed -n '/flat%/,$p'
		} >"$out/$name.top.txt"
	else
		echo "no profile written" >"$out/$name.top.txt"
		echo "profile-cell.sh: $name wrote no CPU profile" >&2
		failed=1
	fi
done

{
	echo "# cell $cell  N=$n warm-up=$warmup  $(date -u +%FT%TZ)  load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- runtime examples/bench || echo ' (dirty)')"
	for name in ${SERVERS:-floorserver mcpgen}; do
		echo
		echo "## $name"
		cat "$out/$name.json"
		cat "$out/$name.proc.txt" 2>/dev/null || true
	done
	set -- ${SERVERS:-floorserver mcpgen}
	if [ $# -eq 2 ]; then
		echo
		echo "## top: $1 (left) | $2 (right)"
		pr -m -t -w 230 "$out/$1.top.txt" "$out/$2.top.txt"
	fi
} | tee "$out/side-by-side.txt"
echo "profile-cell.sh: results in $out" >&2
exit "$failed"

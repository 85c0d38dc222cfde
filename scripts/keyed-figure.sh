#!/usr/bin/env bash
# Issue 18's figure, "a write with a key on the in-memory store adds <= 10 %
# CPU", as served: BenchmarkKeyedWriteServed (runtime/effects_served_bench_test.go)
# run in many server processes, and summarized over them.
#
#   scripts/keyed-figure.sh [REV ...]
#
# One run of a case is one fxserver process: keyed and plain calls alternated in
# chunks of 500 (ABBA), PAIRS pairs, the server's CPU charged to each side. From
# one process to the next the same work reads a few points apart (where the
# heap and the code fall in the caches differs), so a single run cannot tell 8 %
# from 12 %: this script runs each case RUNS times and reports, per revision and
# case, the mean of the runs' keyed/plain with a 95 % confidence interval
# (Student's t), their median, min and max. With several revisions (git revs;
# none: the working tree) the runs alternate revision by revision, so that a
# drift of the machine's load hits all alike.
#
# Knobs (environment): RUNS (default 8), PAIRS (default 100), CASES, a regexp of
# the benchmark's sub-benchmarks (default: stdio, both ledger sizes), OUT (default
# keyed-figure/<UTC time>): raw.txt holds every benchmark line, summary.md the table.
# CONTROL=1 also runs every case as its control (runtime/internal/fxserver's
# FXSERVER_CONTROL: "keyed" without its key, the same work as "plain"), rows
# "REV+control": how far apart the method reads identical work.
# RUNS=2 PAIRS=4 is CI's bounded check that it runs and summarizes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-8}
pairs=${PAIRS:-100}
cases=${CASES:-'transport=stdio/store=memory/ledger=(1000|100000)$'}
out=${OUT:-$root/keyed-figure/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'for w in "$tmp"/wt-*; do [ -d "$w" ] && git -C "$root" worktree remove --force "$w"; done; rm -rf "$tmp"' EXIT
# The runtime's tests read ../shared (the spec) next to the repository root: a
# revision's worktree in $tmp finds it through a link.
[ -d "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$tmp/shared"

revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(.)
names=()
for i in "${!revs[@]}"; do
	rev=${revs[$i]}
	src=$root
	name=worktree
	if [ "$rev" != . ]; then
		name=$(git -C "$root" rev-parse --short "$rev")
		src=$tmp/wt-$i
		git -C "$root" worktree add -q --detach "$src" "$rev"
	fi
	names+=("$name")
	(cd "$src" && go test -c -o "$tmp/bench-$i.test" ./runtime)
	# The benchmark builds fxserver from the package directory it runs in.
	echo "$src/runtime" >"$tmp/dir-$i"
done

echo "keyed-figure: ${#revs[@]} revision(s) (${names[*]}), $runs runs of $pairs pairs, cases $cases, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/env.txt"
: >"$out/raw.txt"
modes=(measure)
[ -z "${CONTROL:-}" ] || modes+=(control)
for r in $(seq "$runs"); do
	for i in "${!revs[@]}"; do
		for mode in "${modes[@]}"; do
			label=${names[$i]}
			ctl=
			if [ "$mode" = control ]; then
				label+=+control
				ctl=1
			fi
			lines=$(cd "$(cat "$tmp/dir-$i")" && FXSERVER_CONTROL=$ctl "$tmp/bench-$i.test" -test.run '^$' -test.bench "KeyedWriteServed/$cases" -test.benchtime "${pairs}x" 2>&1) || { echo "$lines"; exit 1; }
			echo "$lines" | grep -E '^BenchmarkKeyedWriteServed/.* keyed/plain' | sed -E "s/^/$label run=$r /" | tee -a "$out/raw.txt"
		done
	done
done

# Summary: per revision and case, over the runs' keyed/plain.
awk '
function tq(df) { # two-sided 95 % Student t quantile
	if (df >= 30) return 2.042
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045", t, " ")
	return t[df]
}
{
	rev = $1; name = $3; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkKeyedWriteServed\//, "", name)
	for (i = 4; i < NF; i++) if ($(i+1) == "keyed/plain") v = $i
	k = rev SUBSEP name
	if (!(k in n)) order[++m] = k
	n[k]++; s[k] += v; ss[k] += v * v; x[k, n[k]] = v
}
END {
	print "| revision | case | runs | mean keyed/plain (95 % CI) | median | min | max |"
	print "|---|---|---|---|---|---|---|"
	for (j = 1; j <= m; j++) {
		k = order[j]; split(k, p, SUBSEP); c = n[k]; mean = s[k] / c
		sd = c > 1 ? sqrt((ss[k] - c * mean * mean) / (c - 1)) : 0
		h = c > 1 ? tq(c - 1) * sd / sqrt(c) : 0
		for (a = 1; a <= c; a++) y[a] = x[k, a]
		for (a = 2; a <= c; a++) { tv = y[a]; for (b = a - 1; b >= 1 && y[b] > tv; b--) y[b+1] = y[b]; y[b+1] = tv }
		med = c % 2 ? y[(c+1)/2] : (y[c/2] + y[c/2+1]) / 2
		printf "| %s | %s | %d | %.3f (%.3f to %.3f) | %.3f | %.3f | %.3f |\n", p[1], p[2], c, mean, mean - h, mean + h, med, y[1], y[c]
	}
}' "$out/raw.txt" | tee "$out/summary.md"
echo "keyed-figure: load at the end $(cut -d' ' -f1-3 /proc/loadavg); output in $out"

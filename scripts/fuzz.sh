#!/usr/bin/env bash
# Run every fuzz target of the repo for a short, fixed time on top of its seed
# corpus (testdata/fuzz and the f.Add seeds), one target at a time.
#
# usage: scripts/fuzz.sh [FUZZTIME] [TARGET-REGEXP]
#   FUZZTIME       per target (default 10s; e.g. 5s in CI); also $FUZZTIME
#   TARGET-REGEXP  run only the targets whose package:Name matches (grep -E)
# environment:
#   FUZZMINIMIZETIME  bound on minimizing one input (default 5s). Go's default
#                     is 60s: minimizing an input that only looked interesting
#                     (coverage of concurrent code is not deterministic) then
#                     stalls a short run, and a crasher is still found, just
#                     less minimized.
#
# Each package's test binary is built once with fuzzing instrumentation
# (go test -c -fuzz), then run once per target. Prints one summary line per
# target and exits non-zero if any target fails: a failure leaves the crasher
# under the package's testdata/fuzz/<Target>/, printed in the summary, to fix
# and commit as a regression seed (go test then replays it).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
fuzztime=${1:-${FUZZTIME:-10s}}
only=${2:-}
minimize=${FUZZMINIMIZETIME:-5s}
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT

# package:Target ... (TestFuzzTargetsListed checks this list against the code)
targets=(
  ./runtime:FuzzStdio
  ./runtime:FuzzHTTPHandler
  ./runtime:FuzzRequestState
  ./runtime:FuzzParseMessage
  ./runtime:FuzzParseMessageOracle
  ./runtime/internal/jsonwire:FuzzValidJSON
  ./runtime/internal/jsonwire:FuzzAppendString
  ./runtime/internal/jsonwire:FuzzCanonical
  ./runtime/internal/schemacheck:FuzzSchemaOracle
  ./runtime/internal/format:FuzzDateTimeLiteral
  ./runtime/internal/format:FuzzDate
  ./runtime/internal/httpcheck:FuzzDecodeHeaderValue
  ./gen:FuzzToolDirective
  ./internal/uritemplate:FuzzMatch
  ./gen/schema:FuzzStructTag
  ./gen/schema:FuzzInputAgreement
  ./examples/everything:FuzzToolArguments
  ./examples/notes:FuzzSearchNotesArguments
)

# coordinator_race LOG: the run failed only with the fuzz coordinator's own
# "context deadline exceeded" (the FAIL line's sole message), nothing else.
coordinator_race() {
  local msgs
  msgs=$(grep -v -e '^fuzz: ' -e '^--- FAIL: ' -e '^FAIL$' -e '^PASS$' -e '^ok ' -e '^warning: ' -e '^$' "$1" | sed 's/^[[:space:]]*//' | sort -u)
  [ "$msgs" = "context deadline exceeded" ]
}

cd "$repo" || exit 2
summary=()
failed=0
for t in "${targets[@]}"; do
  if [ -n "$only" ] && ! grep -Eq -- "$only" <<<"$t"; then continue; fi
  pkg=${t%%:*} name=${t##*:}
  bin="$work/$(echo "$pkg" | tr '/.' '__').test"
  if [ ! -x "$bin" ] && ! go test -c -fuzz . -o "$bin" "$pkg"; then
    summary+=("FAIL  $pkg $name: build failed")
    failed=1
    continue
  fi
  echo "=== fuzz $pkg $name ($fuzztime)"
  before=$(find "$pkg/testdata/fuzz/$name" -type f 2>/dev/null | sort)
  log="$work/$name.log"
  retried=
  for attempt in 1 2; do
    # The test binary runs in the package directory so testdata/fuzz is found.
    (cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" \
      -test.fuzzminimizetime "$minimize" -test.fuzzcachedir "$work/cache" >"$log" 2>&1)
    rc=$?
    tail -n 3 "$log"
    new=$(comm -13 <(echo "$before") <(find "$pkg/testdata/fuzz/$name" -type f 2>/dev/null | sort) | grep . || true)
    # Go 1.26's fuzz coordinator can fail a target at the end of a wall-clock
    # -fuzztime with a bare "context deadline exceeded" and no input written
    # (go.dev/issue/75804, fixed in Go 1.27). That is the coordinator's race,
    # not a finding: run the target once more. Any failure that wrote an
    # input, printed anything else, or happens twice still fails.
    if [ "$rc" -ne 0 ] && [ -z "$new" ] && [ "$attempt" -eq 1 ] && coordinator_race "$log"; then
      echo "fuzz: $name hit the coordinator's deadline race (go.dev/issue/75804), no input written; running it once more"
      retried=" (run twice: go.dev/issue/75804)"
      continue
    fi
    break
  done
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*')
  if [ "$rc" -eq 0 ]; then
    summary+=("ok    $pkg $name: ${execs:-0} execs$retried")
  else
    cat "$log" | grep -v '^fuzz: elapsed' | head -n 40
    summary+=("FAIL  $pkg $name: ${execs:-0} execs, exit $rc${new:+, new input: $new}")
    failed=1
  fi
done

echo
echo "fuzz summary ($fuzztime per target, minimize at most $minimize):"
printf '  %s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED (new findings above; fix them and commit the inputs as regression seeds)"
  exit 1
fi
echo "all fuzz targets passed"

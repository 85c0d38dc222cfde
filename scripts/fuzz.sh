#!/usr/bin/env bash
# Run every fuzz target of the repo for a short, fixed time on top of its seed
# corpus (testdata/fuzz and the f.Add seeds).
#
# usage: scripts/fuzz.sh [FUZZTIME]      (default 10s per target; e.g. 5s in CI)
#
# Each package's test binary is built once, then run once per target. Exits
# non-zero on the first failing target; a failure leaves the crasher under the
# package's testdata/fuzz/<Target>/ to commit as a regression seed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
fuzztime=${1:-${FUZZTIME:-10s}}
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT

# package:Target ...
targets=(
  ./runtime:FuzzStdio
  ./runtime:FuzzHTTPHandler
  ./runtime:FuzzRequestState
  ./runtime:FuzzParseMessage
  ./runtime:FuzzParseMessageOracle
  ./runtime:FuzzFastSchema
  ./runtime:FuzzDecodeHeaderValue
  ./gen:FuzzToolDirective
  ./gen/schema:FuzzStructTag
  ./gen/schema:FuzzInputAgreement
  ./examples/everything:FuzzToolArguments
  ./examples/notes:FuzzSearchNotesArguments
)

cd "$repo"
status=0
for t in "${targets[@]}"; do
  pkg=${t%%:*} name=${t##*:}
  bin="$work/$(echo "$pkg" | tr '/.' '__').test"
  [ -x "$bin" ] || go test -c -o "$bin" "$pkg"
  echo "=== fuzz $pkg $name ($fuzztime)"
  # The test binary runs in the package directory so testdata/fuzz is found.
  if ! (cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" \
      -test.fuzzcachedir "$work/cache" 2>&1 | tail -n 3); then
    echo "FAIL fuzz $pkg $name" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "all fuzz targets passed ($fuzztime each)"
exit "$status"

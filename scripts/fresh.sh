#!/usr/bin/env bash
# Runs the README's two commands as a new user would, on a machine that has
# never built the project: an empty module cache, build cache and home, so
# nothing cached by earlier work (modules, checksum lookups, build results,
# go env settings) can hide a missing step.
#
# usage: scripts/fresh.sh
#
#   1. the main job: the README's ```sh run block, taken from README.md, run
#      in the repository root; its output must be a tools/call result;
#   2. go test ./docs/...: the README's test command for the docs package,
#      which runs the README's walkthrough and every documented sample
#      offline (GOPROXY=off) in fresh modules. Without -race, which would
#      build everything a second time, instrumented; .ci/run runs the race
#      tests with the machine's caches.
#
# Modules come from the Go proxy, once, into the temporary cache; the test
# command reuses the main job's downloads and builds. The temporary
# directories are removed at the end (-modcacherw makes the module cache
# removable). Exits non-zero on the first failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
fresh=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-fresh-XXXXXX")
trap 'chmod -R u+w "$fresh" 2>/dev/null; rm -rf "$fresh"' EXIT
mkdir "$fresh/home" "$fresh/modcache" "$fresh/gocache"
export HOME=$fresh/home GOMODCACHE=$fresh/modcache GOCACHE=$fresh/gocache
export GOFLAGS="-modcacherw${GOFLAGS:+ $GOFLAGS}"
unset GOPATH GOENV
cd "$repo"

main_job=$(awk '/^```sh run$/ {on=1; next} on && /^```$/ {exit} on {print}' README.md)
if [ -z "$main_job" ]; then
  echo "fresh.sh: README.md has no \`\`\`sh run block" >&2
  exit 1
fi
echo "--- the README's main job, with empty caches"
out=$(bash -euo pipefail -c "$main_job")
echo "$out"
if ! grep -q '"structuredContent"' <<<"$out"; then
  echo "fresh.sh: the main job printed no tools/call result" >&2
  exit 1
fi

echo "--- go test ./docs/..., with the main job's caches"
# The README's test command (go test ./...) loads every package of the module
# before it runs one, fetching what they import (go-jose for runtime/auth,
# which the main job's server no longer links): do the same here, so the
# documented samples the docs tests build offline find those modules.
go list -test -deps ./... >/dev/null
# The walkthrough's `go mod tidy` (in a new module that uses mcpgen as a tool and
# imports the runtime and runtime/auth) also needs the modules that the tests of
# those packages' dependencies import, at the versions the new module selects:
# a throwaway module of the same shape, tidied with the proxy, fetches them.
warm=$(mktemp -d "$fresh/warm-XXXXXX")
(
  cd "$warm"
  go mod init example.com/warm >/dev/null 2>&1
  # (go mod edit rather than go get -tool: this registry answers 403 for the
  # unpublished module path, which go get takes as an error, not as not-found)
  go mod edit -replace "github.com/mcpgen/mcpgen=$repo" \
    -require github.com/mcpgen/mcpgen@v0.0.0-00010101000000-000000000000 \
    -tool github.com/mcpgen/mcpgen/cmd/mcpgen
  printf 'package warm\n\nimport (\n\t_ "github.com/mcpgen/mcpgen/runtime"\n\t_ "github.com/mcpgen/mcpgen/runtime/auth"\n)\n' >warm.go
  go mod tidy
)
go test -count=1 ./docs/...
echo "--- fresh module cache: $(du -sh "$GOMODCACHE" | cut -f1), build cache: $(du -sh "$GOCACHE" | cut -f1)"

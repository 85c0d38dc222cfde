#!/usr/bin/env bash
# Interop tests: mcpgen's example servers driven by the official MCP clients
# (Go SDK, mcp-go, and the TypeScript @modelcontextprotocol/client 2.x and @modelcontextprotocol/sdk 1.x,
# current and older releases).
#
# usage: interop/run.sh [go test flags...]   install what is needed, then run the tests
#        interop/run.sh -env                 install, then print the environment the tests use
# env:
#   MCPGEN_INTEROP_HOME  cache for Node >= 22 and the pinned npm packages
#                        (default ${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen-interop)
# Needs only Go, npm (any version, used once to fetch Node 22 if the machine's node
# is older) and the package registries. Installs are cached and idempotent.
set -euo pipefail

NODE_MAJOR=22
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "interop: $*" >&2; exit 2; }

home=${MCPGEN_INTEROP_HOME:-${XDG_CACHE_HOME:-${HOME:?set MCPGEN_INTEROP_HOME}/.cache}/mcpgen-interop}
mkdir -p "$home"
export npm_config_cache=$home/npm-cache npm_config_update_notifier=false \
  npm_config_fund=false npm_config_audit=false npm_config_ignore_scripts=true

# fill DIR CMD...: run CMD in a fresh temp dir and rename it to DIR, unless DIR exists.
# An interrupted or concurrent install never leaves a half-filled DIR behind.
fill() {
  local dir=$1 tmp
  shift
  [ -d "$dir" ] && return 0
  tmp=$(mktemp -d "$dir.tmp.XXXXXX") && chmod 755 "$tmp"
  (cd "$tmp" && "$@") >&2 || { rm -rf "$tmp"; die "install into $dir failed: $*"; }
  mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp" # another run got there first
}

# Node: the machine's if new enough, else the npm package node-linux-<arch>@22.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt $NODE_MAJOR ]; then
  case $(uname -m) in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) die "no Node $NODE_MAJOR package for $(uname -m)" ;; esac
  command -v npm >/dev/null || die "npm is needed once to install Node $NODE_MAJOR"
  fill "$home/node$NODE_MAJOR-$arch" npm install --prefix . --no-save "node-linux-$arch@$NODE_MAJOR"
  PATH=$home/node$NODE_MAJOR-$arch/node_modules/node-linux-$arch/bin:$PATH
  [ "$(node_major)" -ge $NODE_MAJOR ] || die "could not get Node >= $NODE_MAJOR"
fi
node=$(command -v node)

# The TypeScript clients, exactly as ts/package-lock.json pins them, keyed by the lock's hash.
lock=$(cat "$here/ts/package.json" "$here/ts/package-lock.json" | sha256sum | cut -c1-12)
fill "$home/ts-$lock" sh -c "cp '$here/ts/package.json' '$here/ts/package-lock.json' . && npm ci"
modules=$home/ts-$lock/node_modules
[ -d "$modules/@modelcontextprotocol/client" ] && [ -d "$modules/@modelcontextprotocol/sdk" ] ||
  die "$modules lacks the MCP client packages"

# Older releases of @modelcontextprotocol/sdk, one per revision they default to, under
# aliases (sdk-2024-11-05, sdk-2025-03-26, sdk-2025-06-18), pinned by ts-old/package-lock.json.
oldlock=$(cat "$here/ts-old/package.json" "$here/ts-old/package-lock.json" | sha256sum | cut -c1-12)
fill "$home/ts-old-$oldlock" sh -c "cp '$here/ts-old/package.json' '$here/ts-old/package-lock.json' . && npm ci"
oldmodules=$home/ts-old-$oldlock/node_modules
for rev in 2024-11-05 2025-03-26 2025-06-18; do
  [ -d "$oldmodules/sdk-$rev" ] || die "$oldmodules lacks sdk-$rev"
done

export MCPGEN_INTEROP_NODE=$node MCPGEN_INTEROP_NODE_MODULES=$modules MCPGEN_INTEROP_OLD_NODE_MODULES=$oldmodules
if [ "${1:-}" = "-env" ]; then
  echo "MCPGEN_INTEROP_NODE=$node"
  echo "MCPGEN_INTEROP_NODE_MODULES=$modules"
  echo "MCPGEN_INTEROP_OLD_NODE_MODULES=$oldmodules"
  exit 0
fi

echo "interop: node $("$node" --version) at $node; TypeScript clients in $modules" >&2
cd "$here"
export PATH=/usr/local/go/bin:$PATH
go vet ./...
go test -race -count=1 "$@" ./...
# The older Go clients (official Go SDK v1.1.0, mcp-go v0.32.0) need a module of their own,
# and the official Go SDK v0.2.0 another (it cannot share one with v1.1.0).
cd "$here/older"
go vet ./...
go test -race -count=1 "$@" ./...
cd "$here/gosdk020"
go vet ./...
exec go test -race -count=1 "$@" ./...

# shellcheck shell=bash
# What the end-to-end scripts share (scripts/otel-e2e.sh, auth-e2e.sh, apps.sh,
# inspector.sh): sourced, never run. The script sets prog (its name in
# messages) before it sources this file.

: "${prog:?set prog before sourcing scripts/lib.sh}"
die() { echo "$prog: $*" >&2; exit 1; }

# freeport: prints a loopback TCP port that was free a moment ago.
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# waitfor URL SECONDS: until URL answers with a 2xx status, at most SECONDS; else die.
waitfor() {
  for _ in $(seq 1 $(($2 * 5))); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.2; done
  die "$1 did not come up"
}

# workdir: sets work, a new temporary directory, and pids, the background
# processes the script adds; when the script exits they are killed and waited
# for and the directory is removed.
workdir() {
  work=$(mktemp -d)
  pids=()
  trap cleanup EXIT
}
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

# cached_tool NAME DIR BUILD...: prints the path of the binary NAME built by
# `go build -o BIN BUILD...` in DIR, a tools module whose go.mod and go.sum pin
# it. It is built once and cached in $MCPGEN_TOOLS_HOME (default
# ~/.cache/mcpgen-tools) under a key of those two files, reused while they are
# unchanged. The build sees the caller's environment (e.g. CGO_ENABLED=1 cached_tool ...);
# a failed build fails the command: bin=$(cached_tool ...) stops a set -e script.
cached_tool() {
  local name=$1 dir=$2 tools key bin start
  shift 2
  tools=${MCPGEN_TOOLS_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen-tools}
  mkdir -p "$tools" || return
  key=$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-12) || return
  bin=$tools/$name-$key
  if [ ! -x "$bin" ]; then
    echo "$prog: building $name (once; cached as $bin)" >&2
    start=$(date +%s)
    (cd "$dir" && go build -o "$bin.tmp" "$@") >&2 || return
    mv "$bin.tmp" "$bin" || return
    echo "$prog: $name built in $(($(date +%s) - start)) s" >&2
  fi
  echo "$bin"
}

# node_env: Node as interop/run.sh -env installs it (cached in
# $MCPGEN_INTEROP_HOME, shared with interop/run.sh), on PATH with Go; sets node
# and home (that cache) and npm's settings. Needs repo (the checkout's root).
node_env() {
  eval "$("${repo:?}/interop/run.sh" -env | sed 's/^/export /')" || die "could not install Node (interop/run.sh -env)"
  node=${MCPGEN_INTEROP_NODE:?}
  home=${MCPGEN_INTEROP_HOME:-${XDG_CACHE_HOME:-${HOME:?set MCPGEN_INTEROP_HOME}/.cache}/mcpgen-interop}
  PATH=$(dirname "$node"):/usr/local/go/bin:$PATH
  export PATH npm_config_cache=$home/npm-cache npm_config_update_notifier=false \
    npm_config_fund=false npm_config_audit=false npm_config_ignore_scripts=true
}

# npm_dir NAME SRC NPM_ARGS...: prints $home/NAME-KEY, where `npm NPM_ARGS...`
# (ci, or install) installed the packages that SRC's package.json and
# package-lock.json pin, keyed by those two files' hash; a failed install
# fails the command (dir=$(npm_dir ...) stops a set -e script). An interrupted
# or concurrent install leaves nothing half-filled behind. Needs node_env.
npm_dir() {
  local src=$2 lock dir tmp
  lock=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-12) || return
  dir=$home/$1-$lock
  shift 2
  if [ ! -d "$dir" ]; then
    tmp=$(mktemp -d "$dir.tmp.XXXXXX") || return
    (cd "$tmp" && cp "$src/package.json" "$src/package-lock.json" . && npm "$@" >&2) ||
      { rm -rf "$tmp"; die "npm $* of $src failed"; }
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  echo "$dir"
}

# start_server LOG CMD...: runs CMD, a server told to listen on 127.0.0.1:0,
# in the background with its stderr in LOG, until it logs its url=; sets url
# and pid (also added to pids). Dies when it exits first or logs none in 10 s.
start_server() {
  local log=$1
  shift
  : >"$log"
  "$@" </dev/null 2>"$log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    url=$(grep -o 'url=http://[^ "]*' "$log" | head -1 | cut -d= -f2-) && [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$1 exited"; }
    sleep 0.1
  done
  cat "$log" >&2
  die "$1 did not log its URL"
}

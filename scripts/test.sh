#!/usr/bin/env bash
# Set up everything and run the whole test suite against a real local Neo4j, Chroma and
# the real embedding model. Stops the Neo4j it started, even when tests fail.
# Usage: scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${KGMEM_VENV:-.venv}
scripts/setup.sh --dev
# Locally a missing Chromium only skips its tests; in CI (CI=true, set by .ci/run) it is an error.
if ! scripts/optional_test_tools.sh; then
  case "${CI:-}" in
    ""|0|false|no) echo "warning: optional test tools (chromium) missing; their tests will skip" >&2 ;;
    *) echo "error: CI needs chromium (scripts/optional_test_tools.sh failed)" >&2; exit 1 ;;
  esac
fi

started=0
if ! "$VENV/bin/kgmem" status --json | "$VENV/bin/python" -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["running"] else 1)'; then
  started=1
fi
cleanup() { if [ "$started" = 1 ]; then scripts/neo4j_local.sh down || true; fi; }
trap cleanup EXIT
t0=$(date +%s)
scripts/neo4j_local.sh up
echo "neo4j up in $(( $(date +%s) - t0 )) s"
"$VENV/bin/kgmem" init
"$VENV/bin/python" -m pytest "$@"

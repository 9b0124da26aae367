#!/usr/bin/env bash
# Set up everything and run the whole test suite against a real local Neo4j, Chroma and
# the real embedding model. Stops the Neo4j it started, even when tests fail.
# Usage: scripts/test.sh [pytest args]
#        scripts/test.sh --unit [pytest args]   the fast loop: tests/unit only — no Neo4j, no model,
#                                              no `kgmem init`, no pip install once the venv exists
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${KGMEM_VENV:-.venv}

if [ "${1:-}" = "--unit" ]; then
  shift
  [ -x "$VENV/bin/python" ] || scripts/setup.sh --dev
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/kgmem-unit.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  # Nothing of the developer's set-up reaches a unit test: an empty KGMEM_HOME (no password), no
  # kgmem.toml, and a closed Bolt port, so a test that reaches for Neo4j fails at once.
  status=0
  env KGMEM_HOME="$scratch" KGMEM_CONFIG="$scratch/kgmem.toml" KGMEM_NEO4J__URI=bolt://127.0.0.1:9 \
      PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" \
      "$VENV/bin/python" -m pytest tests/unit -q -p no:cacheprovider -p no:docker "$@" || status=$?
  exit "$status"
fi

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

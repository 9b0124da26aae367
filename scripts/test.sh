#!/usr/bin/env bash
# Set up everything and run the whole test suite against a real local Neo4j, Chroma and
# the real embedding model: scripts/lint.sh first (when present; the Neo4j start and the Chromium
# install run beside it), then pytest, printing how long each step took and the 25 slowest tests.
# Stops the Neo4j it started, even when tests fail.
# Usage: scripts/test.sh [pytest args]            (-m "not slow": without the tests that stop,
#                                                  restart or kill a Neo4j server)
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
      "$VENV/bin/python" -m pytest tests/unit -q -p no:cacheprovider -p no:docker --durations=10 "$@" || status=$?
  exit "$status"
fi

step() { echo "== $1 in $(( $(date +%s) - $2 )) s"; }
# Work that waits on the network or the disk runs beside the rest, each into a log printed once it is
# waited for: Debian's Chromium (on a fresh machine, it and the libraries it needs to download and
# unpack) from the start, the Neo4j start during lint. The EXIT trap waits for both before it stops
# anything (an apt run killed half-way leaves dpkg broken; a server still starting would outlive its `down`).
logs=$(mktemp -d "${TMPDIR:-/tmp}/kgmem-test-logs.XXXXXX")
tools_pid="" neo4j_pid="" started=0
cleanup() {
  [ -z "$tools_pid" ] || wait "$tools_pid" 2>/dev/null || true
  [ -z "$neo4j_pid" ] || wait "$neo4j_pid" 2>/dev/null || true
  if [ "$started" = 1 ]; then scripts/neo4j_local.sh down || true; fi
  rm -rf "$logs"
}
trap cleanup EXIT
(t=$(date +%s); status=0; scripts/optional_test_tools.sh || status=$?; step "optional test tools" "$t"; exit "$status") \
  >"$logs/tools.log" 2>&1 &
tools_pid=$!

t=$(date +%s)
scripts/setup.sh --dev
step "set-up" "$t"

# Reuse the server of this KGMEM_HOME when it runs (its pid file and process; never another home's server
# on the same port: `kgmem up` then fails naming the port), else start it and stop it at the end.
if ! "$VENV/bin/kgmem" status --json | "$VENV/bin/python" -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["running"] else 1)'; then
  started=1
fi
(t=$(date +%s); scripts/neo4j_local.sh up && "$VENV/bin/kgmem" init && step "Neo4j up and init (beside lint)" "$t") \
  >"$logs/neo4j.log" 2>&1 &
neo4j_pid=$!
if [ -x scripts/lint.sh ]; then
  t=$(date +%s)
  scripts/lint.sh
  step "lint" "$t"
fi

neo4j_status=0
wait "$neo4j_pid" || neo4j_status=$?
neo4j_pid=""
cat "$logs/neo4j.log"
[ "$neo4j_status" = 0 ] || { echo "error: the local Neo4j did not start (above)" >&2; exit "$neo4j_status"; }

# Locally a missing Chromium only skips its tests; in CI (CI=true, set by .ci/run) it is an error.
tools_status=0
wait "$tools_pid" || tools_status=$?
tools_pid=""
cat "$logs/tools.log"
if [ "$tools_status" != 0 ]; then
  case "${CI:-}" in
    ""|0|false|no) echo "warning: optional test tools (chromium) missing; their tests will skip" >&2 ;;
    *) echo "error: CI needs chromium (scripts/optional_test_tools.sh failed)" >&2; exit 1 ;;
  esac
fi

t=$(date +%s)
status=0
"$VENV/bin/python" -m pytest --durations=25 "$@" || status=$?
step "tests" "$t"
exit "$status"

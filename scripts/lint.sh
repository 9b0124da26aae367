#!/usr/bin/env bash
# The fast quality gate: ruff lint and format check, mypy on kgmem/, commit subjects <= 72 characters
# (scripts/check_commit_subjects.py). Runs every check, then exits non-zero naming those that failed.
# Paths that do not exist (benchmarks/ before it is created) are skipped. Settings: pyproject.toml.
# Usage: scripts/lint.sh          KGMEM_VENV: the venv to run in (default .venv), as scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=${KGMEM_VENV:-.venv}
PY="$VENV/bin/python"
[ -x "$PY" ] || scripts/setup.sh --dev || exit 1

existing() {
  local p
  for p in "$@"; do
    if [ -e "$p" ]; then echo "$p"; fi
  done
}

failed=()
check() {
  local name=$1 t0=$SECONDS
  shift
  echo "== $name: $*"
  if "$@"; then
    echo "-- $name: ok ($((SECONDS - t0)) s)"
  else
    echo "-- $name: FAILED ($((SECONDS - t0)) s)"
    failed+=("$name")
  fi
}

mapfile -t lint_paths < <(existing kgmem benchmarks)
mapfile -t format_paths < <(existing kgmem tests benchmarks)
check "ruff check" "$PY" -m ruff check "${lint_paths[@]}"
check "ruff format" "$PY" -m ruff format --check "${format_paths[@]}"
check "mypy" "$PY" -m mypy kgmem
check "commit subjects" "$PY" scripts/check_commit_subjects.py

if [ "${#failed[@]}" -gt 0 ]; then
  echo "lint: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "lint: all checks passed"

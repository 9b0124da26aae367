#!/usr/bin/env bash
# Install everything kgmem needs on a fresh machine: a virtualenv with kgmem and its
# dependencies (torch comes with sentence-transformers), plus the dev/test extras.
# Neo4j itself is installed from Maven Central by `kgmem up` (needs Java 17 + Maven).
# Usage: scripts/setup.sh [--dev]    (idempotent; re-running only checks)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${KGMEM_VENV:-.venv}
PY=${PYTHON:-python3}

"$PY" -c 'import sys; assert sys.version_info >= (3, 11), f"kgmem needs Python >= 3.11, found {sys.version}"'
command -v java >/dev/null || { echo "error: Java 17+ is required for the local Neo4j (apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
command -v mvn  >/dev/null || { echo "error: Maven is required to fetch Neo4j from Maven Central (apt-get install maven)" >&2; exit 1; }

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
extra=""
[ "${1:-}" = "--dev" ] && extra="[dev]"
# uv installs the same packages as pip several times faster (parallel downloads, no byte-compiling of
# torch's thousands of files up front); pip fetches uv into the venv once. Without uv (its wheel cannot
# be fetched) pip does the install, as before.
if "$VENV/bin/python" -m uv --version >/dev/null 2>&1 || "$VENV/bin/python" -m pip install -q uv; then
  "$VENV/bin/python" -m uv pip install -q --python "$VENV/bin/python" -e ".${extra}"
else
  echo "warning: could not install uv; installing with pip (slower)" >&2
  "$VENV/bin/python" -m pip install -q -e ".${extra}"
fi
echo "kgmem installed in $VENV ($("$VENV/bin/python" -c 'import kgmem; print(kgmem.__version__)'))"

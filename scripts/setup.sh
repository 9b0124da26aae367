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
"$VENV/bin/python" -m pip install -q --upgrade pip
extra=""
[ "${1:-}" = "--dev" ] && extra="[dev]"
"$VENV/bin/python" -m pip install -q -e ".${extra}"
echo "kgmem installed in $VENV ($("$VENV/bin/python" -c 'import kgmem; print(kgmem.__version__)'))"

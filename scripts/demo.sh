#!/usr/bin/env bash
# Set up everything on a fresh machine and run the demo on the local defaults:
# starts kgmem's own Neo4j (installed from Maven Central, no Docker), records tool
# errors and a fix, searches, and prints what kgmem found plus the Browser URL.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec "${KGMEM_VENV:-.venv}/bin/kgmem" demo "$@"

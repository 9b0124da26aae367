#!/usr/bin/env python3
"""Write the jar lock `kgmem up` fetches Neo4j by (kgmem/server/locks/), resolving the jars with Maven.

Usage: scripts/lock_neo4j_jars.py NEO4J_VERSION BROWSER_VERSION
Run it when the default versions in kgmem/config.py change; a unit test fails until the lock is there.
"""

from __future__ import annotations

import sys

from kgmem.server.install import pom
from kgmem.server.jar_lock import lock_path, write_lock


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    version, browser = argv
    out = lock_path(version, browser)
    count = write_lock(version, browser, pom(version, browser), out)
    print(f"wrote {out} ({count} jars)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

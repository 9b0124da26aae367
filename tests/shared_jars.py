"""Link another home's Neo4j jars into a test server's home instead of installing them again.

Each jar is linked on its own into a ``lib`` folder of the home's own, never the folder as a whole:
`kgmem up` writes the Browser guide of its namespace into the neo4j-browser jar (a copy renamed over
the jar's name, kgmem.reports.browser), and through a folder link that rename would replace the jar
the other home's server serves from. With one link per jar it replaces only this home's link.
"""

from __future__ import annotations

from pathlib import Path

from kgmem.paths import private_dir


def link_jars(shared_lib: Path, lib: Path) -> None:
    """Fill ``lib`` with links to the jars (and install marker) of ``shared_lib``; nothing when
    ``shared_lib`` holds none (then `kgmem up` installs from Maven's cache, ``~/.m2``) or ``lib``
    already exists."""
    if not shared_lib.is_dir() or lib.exists():
        return
    private_dir(lib)
    for entry in shared_lib.iterdir():
        (lib / entry.name).symlink_to(entry.resolve())

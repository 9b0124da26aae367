"""Below the stores' level: what an erase leaves on disk until the stores reclaim it, and the
purge ``kgmem forget --purge-disk`` runs (docs/forgetting.md).

* Neo4j keeps erased data in its transaction logs until they rotate out of the retention policy
  (``kgmem up`` sets ``2 days 1G``; the logs past it are pruned at the next checkpoint, every 15
  minutes by default) and in freed store pages until they are reused. Neo4j Community has no
  procedure to force either; docs/forgetting.md gives the offline steps.
* Embedded Chroma keeps deleted documents in free pages of its SQLite file until a ``VACUUM``
  rewrites it (a Chroma server: run ``chroma vacuum`` where it stores its data).
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from kgmem.config import Settings

log = logging.getLogger(__name__)

CHROMA_SQLITE = "chroma.sqlite3"


@dataclass(frozen=True)
class DiskPurge:
    """What the purge did: the Chroma SQLite file vacuumed, its size before and after (None: no
    embedded Chroma database here)."""

    chroma_file: str | None
    chroma_bytes_before: int = 0
    chroma_bytes_after: int = 0


def purge_disk(settings: Settings) -> DiskPurge:
    """VACUUM embedded Chroma's SQLite file (deleted documents leave its free pages)."""
    if settings.chroma.url is not None:
        log.warning("Chroma is a server (%s): run `chroma vacuum` where it stores its data", settings.chroma.url)
        return DiskPurge(None)
    path = settings.chroma_path / CHROMA_SQLITE
    if not path.exists():
        return DiskPurge(None)
    before = path.stat().st_size
    db = sqlite3.connect(path, timeout=60)
    try:
        db.execute("VACUUM")
    finally:
        db.close()
    return DiskPurge(str(path), before, path.stat().st_size)

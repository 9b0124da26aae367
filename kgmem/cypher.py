"""Load Cypher statements from the ``cypher/`` tree by name.

Every statement kgmem runs lives in a ``.cypher`` file; Python never assembles
query text. Names are paths without the extension: ``load("learning/apply_events")``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from kgmem.errors import CypherNotFound

_PACKAGED = Path(__file__).resolve().parent / "_cypher"  # inside a wheel
_SOURCE = Path(__file__).resolve().parent.parent / "cypher"  # in a checkout / editable install
_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")


def cypher_root() -> Path:
    """Directory holding the Cypher files."""
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


@functools.cache
def load(name: str) -> str:
    """Return the text of ``cypher/<name>.cypher`` (comments kept; Neo4j ignores them)."""
    if not _NAME.match(name):
        raise CypherNotFound(f"invalid Cypher file name {name!r}")
    path = cypher_root() / f"{name}.cypher"
    if not path.is_file():
        raise CypherNotFound(f"no Cypher file {path}")
    return path.read_text(encoding="utf-8")


def statements(name: str) -> list[str]:
    """Split a multi-statement file (e.g. schema) on ``;`` at line ends, dropping comment-only parts."""
    parts = re.split(r";\s*(?:\n|$)", load(name))
    out = []
    for part in parts:
        body = "\n".join(line for line in part.splitlines() if not line.strip().startswith("//")).strip()
        if body:
            out.append(body)
    return out


def names(prefix: str = "") -> list[str]:
    """All Cypher file names under ``prefix`` (e.g. ``"reports"``), sorted."""
    root = cypher_root()
    base = root / prefix if prefix else root
    return sorted(str(p.relative_to(root).with_suffix("")) for p in base.rglob("*.cypher"))

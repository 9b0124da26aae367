"""Load Cypher statements from the ``cypher/`` tree by name.

Every statement kgmem runs lives in a ``.cypher`` file; Python never assembles
query text. Names are paths without the extension: ``load("learning/apply_events")``.

Named fragments: a line holding only ``// @include <name>`` (leading spaces allowed;
``<name>`` as for :func:`load`, e.g. ``learning/fragments/known_fix_direct``) is replaced by
the loaded text of that file, so two statements that must share a subquery share one file
instead of two copies kept in step by hand. The line is replaced as a whole; the fragment
carries its own indentation. Includes may nest; a cycle raises :class:`CypherIncludeCycle`
naming the chain, a missing fragment raises :class:`CypherNotFound` naming the including
file. Fragments live in ``fragments/`` directories, which :func:`names` skips: they are not
statements on their own. Since the directive is a ``//`` comment, Neo4j would ignore an
unexpanded one rather than run half a statement — and nothing reaches Neo4j unexpanded,
because every statement is read through :func:`load`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from kgmem.errors import CypherIncludeCycle, CypherNotFound

_PACKAGED = Path(__file__).resolve().parent / "_cypher"  # inside a wheel
_SOURCE = Path(__file__).resolve().parent.parent / "cypher"  # in a checkout / editable install
_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")
_INCLUDE = re.compile(r"^[ \t]*//[ \t]*@include[ \t]+(?P<name>\S+)[ \t]*$")
FRAGMENTS = "fragments"  # directory name of include-only files, skipped by names()


def cypher_root() -> Path:
    """Directory holding the Cypher files."""
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


@functools.cache
def load(name: str) -> str:
    """Return the text of ``cypher/<name>.cypher`` with its ``// @include`` lines expanded
    (comments kept; Neo4j ignores them)."""
    return render(cypher_root(), name)


def render(root: Path, name: str) -> str:
    """The text of ``<root>/<name>.cypher`` with includes expanded (``load`` without the cache,
    for any root)."""
    return _render(root, name, ())


def _render(root: Path, name: str, chain: tuple[str, ...]) -> str:
    if not _NAME.match(name):
        where = f" (included from {chain[-1]})" if chain else ""
        raise CypherNotFound(f"invalid Cypher file name {name!r}{where}")
    if name in chain:
        raise CypherIncludeCycle("Cypher include cycle: " + " -> ".join((*chain, name)))
    path = root / f"{name}.cypher"
    if not path.is_file():
        where = f", included from {chain[-1]}.cypher" if chain else ""
        raise CypherNotFound(f"no Cypher file {path}{where}")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out = []
    for line in lines:
        m = _INCLUDE.match(line)
        if m is None:
            out.append(line)
            continue
        text = _render(root, m["name"], (*chain, name))
        # Keep the directive's line break so the next line stays on its own line.
        out.append(text if text.endswith("\n") or not line.endswith("\n") else text + "\n")
    return "".join(out)


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
    """All Cypher statement names under ``prefix`` (e.g. ``"reports"``), sorted; fragments
    (files under a ``fragments/`` directory) are left out."""
    root = cypher_root()
    base = root / prefix if prefix else root
    return sorted(
        str(p.relative_to(root).with_suffix(""))
        for p in base.rglob("*.cypher")
        if FRAGMENTS not in p.relative_to(root).parts
    )

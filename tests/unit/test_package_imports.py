"""kgmem's packages depend on each other in one direction only: no import cycle between them.

Read from the source (``tests/unit/import_graph.py``). A *unit* is a sub-package
(``kgmem.learning``) or a top-level module (``kgmem.spool``, ``kgmem.llm``); the root
``kgmem/__init__.py`` is the unit ``kgmem``. Every import counts, wherever it stands: module
level, inside a function (a lazy import is still a dependency, just a later one) and under
``if TYPE_CHECKING:`` (a type a package needs is a dependency of its design, even when it costs
nothing at run time). Imports inside one unit are its own business and are not checked.
"""

from __future__ import annotations

from pathlib import Path

import kgmem
from tests.unit.import_graph import Graph, cycles, import_graph, write_package

ROOT = Path(kgmem.__file__).resolve().parent


def package_graph(root: Path = ROOT) -> Graph:
    """package → package it imports → where, for every import in ``root`` (TYPE_CHECKING ones too)."""
    return import_graph(root, "package", type_checking=True)


def _explain(edges: Graph, component: list[str]) -> str:
    lines = [" ↔ ".join(component)]
    for a in component:
        for b in component:
            if b in edges.get(a, {}):
                lines.append(f"  {a} → {b}: {', '.join(edges[a][b][:5])}")
    return "\n".join(lines)


def test_no_import_cycle_between_kgmem_packages() -> None:
    edges = package_graph()
    assert len(edges) > 10, "the walk found almost no imports: wrong root?"
    found = cycles(edges)
    assert not found, "import cycles between kgmem's packages:\n" + "\n".join(_explain(edges, c) for c in found)


def test_the_shared_infrastructure_depends_on_no_engine() -> None:
    """The spool and the LLM protocol are what learning, analysis and conversation share: they
    import none of them (nor the clients), so each engine can use them without a cycle."""
    edges = package_graph()
    engines = {
        "kgmem.learning",
        "kgmem.analysis",
        "kgmem.conversation",
        "kgmem.retrieval",
        "kgmem.client",
        "kgmem.aio",
        "kgmem",
    }
    for shared in ("kgmem.spool", "kgmem.llm"):
        assert not engines & set(edges.get(shared, {})), f"{shared} imports {sorted(engines & set(edges[shared]))}"


def test_a_function_level_or_type_checking_import_closes_a_cycle(tmp_path: Path) -> None:
    """The check itself can fail: a lazy import and a TYPE_CHECKING one both count, relative
    imports resolve, and imports inside one package do not."""
    pkg = write_package(
        tmp_path,
        "kgmem",
        {
            "__init__.py": "",
            "a/__init__.py": "from kgmem.a.x import f\n",
            "a/x.py": "def f():\n    from ..b import g\n    return g\n",
            "b/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kgmem.c import H\n",
            "c.py": "from kgmem import a\n",
        },
    )
    edges = package_graph(pkg)
    assert set(edges["kgmem.a"]) == {"kgmem.b"}
    assert edges["kgmem.a"]["kgmem.b"] == ["kgmem/a/x.py:2"]
    assert cycles(edges) == [["kgmem.a", "kgmem.b", "kgmem.c"]]
    (pkg / "c.py").write_text("import json\n", encoding="utf-8")
    assert cycles(package_graph(pkg)) == []

"""No kgmem module imports itself again through other modules: the module import graph has no cycle.

A node is one module (``kgmem.reports.render``; a package is its ``__init__``); how an import names
its target is in ``tests/unit/import_graph.py``. Imports under ``if TYPE_CHECKING:`` are left out:
they never run. The package-level rule (packages depend on each other in one direction) is
``test_package_imports``.
"""

from __future__ import annotations

from pathlib import Path

import kgmem
from tests.unit.import_graph import Graph, cycle_in, cycles, import_graph, write_package

ROOT = Path(kgmem.__file__).resolve().parent


def find_cycles(graph: Graph) -> list[list[str]]:
    """One shortest cycle (``[a, b, …, a]``) per strongly connected component that has one."""
    return [cycle_in(graph, component) for component in cycles(graph)]


def _describe(graph: Graph, cycle: list[str]) -> str:
    return " -> ".join(f"{a} ({graph[a][b][0]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


def test_kgmem_has_no_import_cycle() -> None:
    graph = import_graph(ROOT)
    assert len(graph) > 50 and any(graph.values()), "the import graph came out empty"
    found = find_cycles(graph)
    assert not found, "import cycle(s):\n" + "\n".join(_describe(graph, c) for c in found)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    return write_package(tmp_path, "pkg", files)


def test_a_function_level_import_closes_a_cycle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import f\n",
            "b.py": "def f():\n    from pkg import a\n    return a\n",
        },
    )
    assert find_cycles(import_graph(root)) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_type_checking_imports_do_not_count_but_their_else_does(tmp_path: Path) -> None:
    files = {
        "__init__.py": "",
        "a.py": "import pkg.b\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import X\n",
    }
    assert find_cycles(import_graph(_tree(tmp_path / "1", files))) == []
    files["b.py"] += "else:\n    from . import a\n"
    assert find_cycles(import_graph(_tree(tmp_path / "2", files))) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_name_from_a_package_that_re_exports_the_importer_is_a_cycle(tmp_path: Path) -> None:
    files = {"__init__.py": "", "sub/__init__.py": "from pkg.sub.x import X\n", "sub/x.py": "X = 1\n"}
    assert find_cycles(import_graph(_tree(tmp_path / "1", files))) == []  # parents are not edges
    files["sub/x.py"] = "from pkg.sub import Y\nX = 1\n"
    assert find_cycles(import_graph(_tree(tmp_path / "2", files))) == [["pkg.sub", "pkg.sub.x", "pkg.sub"]]

"""No kgmem module imports itself again through other modules: the module import graph has no cycle.

Read from the source with ``ast`` (nothing is imported). A node is one module (``kgmem.reports.render``;
a package is its ``__init__``). An edge is an import of another kgmem module, wherever it stands:
module level or inside a function (a lazy import only moves the cycle to run time). Imports under
``if TYPE_CHECKING:`` are left out: they never run.

How an import names its target:

- ``import kgmem.a.b`` and ``from kgmem.a import b`` where ``b`` is a module: the module ``kgmem.a.b``.
- ``from kgmem.a import name`` where ``name`` is not a module: the package ``kgmem.a`` (its
  ``__init__``). A package ``__init__`` that re-exports from its submodules imports them, so
  ``kgmem.a.b`` taking a name from ``kgmem.a`` while ``kgmem.a`` re-exports ``kgmem.a.b`` is a cycle.
- The parent packages Python imports first (``kgmem``, ``kgmem.a`` for ``kgmem.a.b``) are not edges:
  otherwise every package that re-exports a submodule would form a cycle with it, while Python
  handles that order (the parent is already in ``sys.modules``).
- Relative imports resolve against the importing module's package; ``importlib`` calls with a
  computed name are not seen.

The package-level rule (packages depend on each other in one direction) is ``test_package_imports``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import kgmem

ROOT = Path(kgmem.__file__).resolve().parent
# module → imported module → line of the first such import
Graph = dict[str, dict[str, int]]


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, at any depth, except the body of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                if isinstance(other, ast.Import | ast.ImportFrom):
                    yield other
                yield from _imports(other)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from _imports(child)


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: set[str]) -> list[str]:
    """The kgmem modules one import statement names (see the module docstring)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in modules]
    if node.level:
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    found = []
    for alias in node.names:
        if f"{source}.{alias.name}" in modules:
            found.append(f"{source}.{alias.name}")
        elif source in modules:
            found.append(source)
    return found


def import_graph(root: Path = ROOT) -> Graph:
    """Every module under ``root`` (a package directory) → the modules of that package it imports."""
    paths = {_module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    modules = set(paths)
    graph: Graph = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _targets(node, package, modules):
                if target != module:
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def find_cycles(graph: Graph) -> list[list[str]]:
    """One cycle (``[a, b, …, a]``) per strongly connected component that has one (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~150)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(graph, component) for component in components]


def _cycle_in(graph: Graph, component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first, inside the component)."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if w in component and w not in parents:
                    parents[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no cycle through {start} in its component")  # unreachable for an SCC


def _describe(graph: Graph, cycle: list[str]) -> str:
    return " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


def test_kgmem_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 50 and any(graph.values()), "the import graph came out empty"
    cycles = find_cycles(graph)
    assert not cycles, "import cycle(s):\n" + "\n".join(_describe(graph, c) for c in cycles)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


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

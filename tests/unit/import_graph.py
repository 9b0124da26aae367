"""The import graph of a package, read from its source with ``ast`` (nothing is imported), and its cycles.

Serves the two import-cycle tests: ``test_import_cycles`` (between modules) and ``test_package_imports``
(between packages). An edge is an import of another module of the package, wherever it stands: module
level or inside a function (a lazy import only moves a cycle to run time). Imports under
``if TYPE_CHECKING:`` count only with ``type_checking=True``.

How an import names its target module:

- ``import kgmem.a.b`` and ``from kgmem.a import b`` where ``b`` is a module: the module ``kgmem.a.b``.
- ``from kgmem.a import name`` where ``name`` is not a module: the package ``kgmem.a`` (its
  ``__init__``). A package ``__init__`` that re-exports from its submodules imports them, so
  ``kgmem.a.b`` taking a name from ``kgmem.a`` while ``kgmem.a`` re-exports ``kgmem.a.b`` is a cycle.
- The parent packages Python imports first (``kgmem``, ``kgmem.a`` for ``kgmem.a.b``) are not edges:
  otherwise every package that re-exports a submodule would form a cycle with it, while Python
  handles that order (the parent is already in ``sys.modules``).
- Relative imports resolve against the importing module's package; ``importlib`` calls with a
  computed name are not seen.

At ``level="package"`` a node is a sub-package (``kgmem.learning``) or a top-level module
(``kgmem.spool``); the root ``__init__`` is the node ``kgmem``; imports inside one node are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

#: node → imported node → where each such import stands (``kgmem/learning/engine.py:49``), in file order
Graph = dict[str, dict[str, list[str]]]


def import_graph(root: Path, level: Literal["module", "package"] = "module", *, type_checking: bool = False) -> Graph:
    """Every module (or package, by ``level``) under ``root`` (a package directory) → what it imports."""
    paths = {_module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    modules = set(paths)
    node_of = _package_of if level == "package" else (lambda module: module)
    graph: Graph = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        source = node_of(module)
        edges = graph.setdefault(source, {})
        for statement in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), type_checking):
            for target in {node_of(t) for t in _targets(statement, package, modules)} - {source}:
                edges.setdefault(target, []).append(f"{path.relative_to(root.parent)}:{statement.lineno}")
    return graph


def write_package(parent: Path, name: str, files: dict[str, str]) -> Path:
    """Write the package ``name`` under ``parent`` (``files``: path inside it → text); its directory."""
    root = parent / name
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

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
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def cycle_in(graph: Graph, component: list[str]) -> list[str]:
    """A shortest cycle (``[a, b, …, a]``) through the component's first node (breadth-first, inside it)."""
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


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _package_of(module: str) -> str:
    """``kgmem.learning.engine`` → ``kgmem.learning``; ``kgmem.spool`` → ``kgmem.spool``; ``kgmem`` → ``kgmem``."""
    return ".".join(module.split(".")[:2])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, type_checking: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, at any depth (without ``type_checking``, not the body
    of ``if TYPE_CHECKING:``)."""
    for child in ast.iter_child_nodes(node):
        if not type_checking and isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                if isinstance(other, ast.Import | ast.ImportFrom):
                    yield other
                yield from _imports(other, type_checking)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from _imports(child, type_checking)


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: set[str]) -> list[str]:
    """The modules of ``modules`` one import statement names (see the module docstring)."""
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

"""kgmem's packages depend on each other in one direction only: no import cycle between them.

Read from the source with ``ast`` (nothing is imported). A *unit* is a sub-package
(``kgmem.learning``) or a top-level module (``kgmem.spool``, ``kgmem.llm``); the root
``kgmem/__init__.py`` is the unit ``kgmem``. Every import counts, wherever it stands: module
level, inside a function (a lazy import is still a dependency, just a later one) and under
``if TYPE_CHECKING:`` (a type a package needs is a dependency of its design, even when it costs
nothing at run time). Imports inside one unit are its own business and are not checked.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import kgmem

ROOT = Path(kgmem.__file__).resolve().parent
Edges = dict[str, dict[str, list[str]]]


def _unit(module: str) -> str:
    """``kgmem.learning.engine`` → ``kgmem.learning``; ``kgmem.spool`` → ``kgmem.spool``; ``kgmem`` → ``kgmem``."""
    return ".".join(module.split(".")[:2])


def _is_submodule(root: Path, name: str) -> bool:
    return (root / f"{name}.py").is_file() or (root / name / "__init__.py").is_file()


def _module_of(root: Path, path: Path) -> tuple[str, list[str]]:
    """The dotted name of ``path`` and the package its relative imports start from."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def _imported(root: Path, node: ast.Import | ast.ImportFrom, package: list[str]) -> list[str]:
    """The kgmem modules one import statement names (``from kgmem import x`` names ``kgmem.x``
    when ``x`` is a sub-module, else the root ``kgmem``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = package[: len(package) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    if module == "kgmem":
        return [f"kgmem.{a.name}" if _is_submodule(root, a.name) else "kgmem" for a in node.names]
    return [module]


def import_graph(root: Path = ROOT) -> Edges:
    """unit → unit it imports → where (``kgmem/learning/engine.py:49``), for every import in ``root``."""
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for path in sorted(root.rglob("*.py")):
        module, package = _module_of(root, path)
        source = _unit(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(root, node, package):
                if target != "kgmem" and not target.startswith("kgmem."):
                    continue
                unit = _unit(target)
                if unit != source:
                    edges[source][unit].append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return edges


def cycles(edges: Edges) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
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

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _explain(edges: Edges, component: list[str]) -> str:
    lines = [" ↔ ".join(component)]
    for a in component:
        for b in component:
            if b in edges.get(a, {}):
                lines.append(f"  {a} → {b}: {', '.join(edges[a][b][:5])}")
    return "\n".join(lines)


def test_no_import_cycle_between_kgmem_packages() -> None:
    edges = import_graph()
    assert len(edges) > 10, "the walk found almost no imports: wrong root?"
    found = cycles(edges)
    assert not found, "import cycles between kgmem's packages:\n" + "\n".join(_explain(edges, c) for c in found)


def test_the_shared_infrastructure_depends_on_no_engine() -> None:
    """The spool and the LLM protocol are what learning, analysis and conversation share: they
    import none of them (nor the clients), so each engine can use them without a cycle."""
    edges = import_graph()
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


def _write(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "kgmem"
    for name, text in files.items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return pkg


def test_a_function_level_or_type_checking_import_closes_a_cycle(tmp_path: Path) -> None:
    """The check itself can fail: a lazy import and a TYPE_CHECKING one both count, relative
    imports resolve, and imports inside one package do not."""
    pkg = _write(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "from kgmem.a.x import f\n",
            "a/x.py": "def f():\n    from ..b import g\n    return g\n",
            "b/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kgmem.c import H\n",
            "c.py": "from kgmem import a\n",
        },
    )
    edges = import_graph(pkg)
    assert set(edges["kgmem.a"]) == {"kgmem.b"}
    assert edges["kgmem.a"]["kgmem.b"] == ["kgmem/a/x.py:2"]
    assert cycles(edges) == [["kgmem.a", "kgmem.b", "kgmem.c"]]
    (pkg / "c.py").write_text("import json\n", encoding="utf-8")
    assert cycles(import_graph(pkg)) == []

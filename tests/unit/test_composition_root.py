"""One composition root (kgmem/app.py): the clients are built on it without connecting or loading
anything, and no graph store is constructed anywhere else in the package."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import neo4j
import pytest

import kgmem
from kgmem.aio import AsyncKGMem
from kgmem.client import KGMem
from kgmem.config import Settings, load_settings

PACKAGE = Path(kgmem.__file__).resolve().parent
ROOT_MODULE = PACKAGE / "app.py"
STORES = {"GraphStore", "AsyncGraphStore"}


class Connected(AssertionError):
    """A driver was created: the code under test tried to reach Neo4j."""


@pytest.fixture
def unreachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings naming a Neo4j nothing listens on; creating any driver fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise Connected(f"a Neo4j driver was created for {args[:1]}")

    monkeypatch.setattr(neo4j.GraphDatabase, "driver", refuse)
    monkeypatch.setattr(neo4j.AsyncGraphDatabase, "driver", refuse)
    return load_settings(
        neo4j={"uri": "bolt://127.0.0.1:9", "password": "unused"}, home=tmp_path, chroma={"path": tmp_path / "chroma"}
    )


def _nothing_built(engines: Any) -> None:
    for attr in (
        "_driver",
        "_async_driver",
        "_graph",
        "_async_graph",
        "_vectors",
        "_embedder",
        "_concepts",
        "_sync",
        "_aio",
        "_async_io",
    ):
        assert getattr(engines, attr) is None, f"{attr} was built at construction"


def test_kgmem_constructs_without_connecting(unreachable: Settings) -> None:
    mem = KGMem(unreachable)
    _nothing_built(mem.engines)
    assert mem.namespace == unreachable.namespace
    with pytest.raises(Connected):  # the first use is what connects
        mem.graph
    with pytest.raises(Connected):
        mem.learning  # the engines need the graph: built on the first call, not before
    mem.close()  # closing a client that made no call builds nothing either
    _nothing_built(mem.engines)


def test_async_kgmem_constructs_without_connecting(unreachable: Settings) -> None:
    amem = AsyncKGMem(unreachable)
    _nothing_built(amem.engines)
    assert amem.io is None and amem.vectors is None
    with pytest.raises(Connected):  # open(), run by `async with` and the first call, connects
        asyncio.run(amem.open())
    asyncio.run(amem.aclose())


def test_the_root_builds_each_resource_once(unreachable: Settings) -> None:
    from kgmem.app import Engines

    engines = Engines(unreachable)
    assert engines.concepts is engines.concepts and engines.embedder is engines.embedder
    assert not engines.embedder.loaded  # building the embedder loads no model
    assert engines.generator is None and engines.generator is None  # no API key: offline, built once
    assert engines._driver is None  # none of that touched Neo4j


def _constructions(path: Path) -> list[int]:
    """The lines of ``path`` that call ``GraphStore(...)`` / ``AsyncGraphStore(...)`` (by name or attribute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (getattr(n.func, "id", None) in STORES or getattr(n.func, "attr", None) in STORES)
    ]


def test_graph_stores_are_built_only_by_the_root() -> None:
    outside = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != ROOT_MODULE
        for line in _constructions(path)
    ]
    assert outside == [], "GraphStore built outside kgmem/app.py (take it from kgmem.app.Engines): " + ", ".join(
        outside
    )
    assert _constructions(ROOT_MODULE), "the root builds the stores: the check looks at the wrong file"


def test_the_check_sees_a_construction(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        "from kgmem.graph import GraphStore, store\n\ndef f(d):\n"
        "    return GraphStore(d), store.AsyncGraphStore(d)  # GraphStore( in a comment is no call\n"
    )
    assert _constructions(source) == [4, 4]

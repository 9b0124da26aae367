"""A library for the retrieval benchmarks: the command line's ``main`` and a scratch kgmem to measure on.

:func:`scratch_memory` opens a :class:`~kgmem.KGMem` on a Chroma of its own in a temporary directory
(and, with ``--private-neo4j BOLT:HTTP``, on a fresh Neo4j of its own), and on the way out deletes
every namespace the run wrote, closes the client, stops the server and removes the directory.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgmem import KGMem
from kgmem.config import ChromaSettings, load_settings
from kgmem.graph.schema import apply_schema
from kgmem.maintenance import delete_namespace


def cli_main(evaluate: Callable[[argparse.Namespace], dict[str, Any]], args: argparse.Namespace) -> int:
    """Run ``evaluate(args)`` with warnings-only logging; write its figures to ``args.json`` if given."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    figures = evaluate(args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


@dataclass
class Scratch:
    """The client to measure on, and the namespaces the run wrote (append each one: they are deleted)."""

    mem: KGMem
    namespaces: list[str] = field(default_factory=list)


@contextmanager
def scratch_memory(
    settings: Any = None,
    *,
    private_neo4j: str = "",
    prefix: str = "kgmem-eval-",
    chroma: Path | None = None,
    query_cache: bool = True,
    keep: bool = False,
) -> Iterator[Scratch]:
    """A kgmem on ``settings``' Neo4j (default: the environment's; a fresh private one on
    ``private_neo4j`` = ``BOLT:HTTP``) with its schema applied, and a Chroma under a temporary
    directory (or at ``chroma``). ``query_cache=False`` embeds every query afresh; ``keep`` leaves
    the namespaces in the graph (to look at them afterwards)."""
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    server = private_server(private_neo4j, Path(tmp.name)) if private_neo4j else None
    try:
        base = server.settings if server is not None else (settings or load_settings())
        updates: dict[str, Any] = {"chroma": ChromaSettings(path=chroma or Path(tmp.name) / "chroma")}
        if not query_cache:
            updates["embedding"] = base.embedding.model_copy(update={"query_cache_size": 0})
        scratch = Scratch(KGMem(base.model_copy(update=updates)))
        try:
            apply_schema(scratch.mem.graph)
            yield scratch
        finally:
            if not keep:
                for ns in scratch.namespaces:
                    delete_namespace(scratch.mem.graph, None, ns)
            scratch.mem.close()
    finally:
        if server is not None:
            server.down()
        tmp.cleanup()


def private_server(ports: str, tmp: Path):  # noqa: ANN201 - kgmem.server.LocalNeo4j
    """Start a fresh Neo4j of this run's own on ``BOLT:HTTP`` (home under ``tmp``)."""
    from kgmem.server import LocalNeo4j

    try:
        bolt, http = (int(p) for p in ports.split(":"))
    except ValueError:
        raise SystemExit(f"--private-neo4j: expected BOLT:HTTP ports, got {ports!r}") from None
    settings = load_settings(
        home=tmp / "home",
        neo4j={
            "uri": f"bolt://127.0.0.1:{bolt}",
            "bolt_port": bolt,
            "http_port": http,
            "password": "kgmem-eval-private",
            "heap": "512m",
            "pagecache": "128m",
        },
    )
    server = LocalNeo4j(settings)
    server.up()
    return server

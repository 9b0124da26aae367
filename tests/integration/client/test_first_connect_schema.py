"""A fresh Neo4j that never saw `kgmem init`: the first connect applies the schema.

On a private server (tests/private_neo4j.py, ports ``"first_connect"``), its database without
any index: the README's Usage code runs as written in a fresh interpreter, its search answers,
similar errors get ``SIMILAR_TO`` links; then, with every index dropped again, ``kgmem up``
(the server already running) applies it, and so does the async client's first connect.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgmem import AsyncKGMem, KGMem
from kgmem.config import Settings
from kgmem.graph import GraphStore, connect
from kgmem.graph.schema import SCHEMA_VERSION, schema_version

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "integration" / "client"))
from test_readme_example import _usage_block  # noqa: E402

pytestmark = pytest.mark.slow


def _env(settings: Settings) -> dict[str, str]:
    """The environment of a user whose kgmem points at the private server (no kgmem.toml of theirs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGMEM_") and k != "ANTHROPIC_API_KEY"}
    cfg = settings.neo4j
    return {
        **env,
        "PYTHONPATH": str(ROOT),
        "KGMEM_HOME": str(settings.home),
        "KGMEM_NAMESPACE": settings.namespace,
        "KGMEM_NEO4J__URI": cfg.uri,
        "KGMEM_NEO4J__PASSWORD": cfg.password.get_secret_value(),
        "KGMEM_NEO4J__BOLT_PORT": str(cfg.bolt_port),
        "KGMEM_NEO4J__HTTP_PORT": str(cfg.http_port),
    }


def _drop_schema(driver) -> None:  # type: ignore[no-untyped-def]
    """Back to a database that never saw kgmem's schema (names come from the server itself)."""
    records, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN name")
    for r in records:
        driver.execute_query(f"DROP CONSTRAINT `{r['name']}` IF EXISTS")
    records, _, _ = driver.execute_query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name")
    for r in records:
        driver.execute_query(f"DROP INDEX `{r['name']}` IF EXISTS")
    driver.execute_query("MATCH (m:KgmemSchema) DELETE m")


def _fulltext_exists(driver) -> bool:  # type: ignore[no-untyped-def]
    records, _, _ = driver.execute_query("SHOW FULLTEXT INDEXES YIELD name WHERE name = 'kgmem_fulltext' RETURN name")
    return bool(records)


def test_fresh_database_needs_no_init(private_neo4j, embedder, base_settings: Settings) -> None:
    server = private_neo4j("first_connect", namespace="readme", neo4j={"start_timeout_s": 600})
    settings = server.settings
    if base_settings.models_dir.is_dir() and not settings.models_dir.exists():  # reuse the ONNX export
        settings.models_dir.symlink_to(base_settings.models_dir, target_is_directory=True)
    with connect(settings) as drv:
        _drop_schema(drv)  # a brand-new store has none; make sure of it
        assert schema_version(GraphStore(drv)) is None and not _fulltext_exists(drv)

        # 1. The README's Usage code, as a user runs it right after `kgmem up`.
        code = _usage_block() + "\nprint('HITS', len(result.hits))\n"
        run = subprocess.run(
            [sys.executable, "-c", code], env=_env(settings), capture_output=True, text=True, timeout=600
        )
        assert run.returncode == 0, run.stderr[-3000:]
        assert "no such fulltext schema index" not in run.stderr.lower()
        hits = [line for line in run.stdout.splitlines() if line.startswith("HITS ")]
        assert hits and int(hits[0].split()[1]) > 0, run.stdout
        assert schema_version(GraphStore(drv)) == SCHEMA_VERSION and _fulltext_exists(drv)

        # 2. Similar errors are linked (the vector leg of matching uses the schema's lookups).
        with KGMem(settings, driver=drv, embedder=embedder) as mem:
            mem.tool_result(
                "psql",
                {"host": "db"},
                error='psql: error: connection to server at "10.0.3.17", port 5432 failed: Connection refused',
            )
            mem.tool_result(
                "psql",
                {"socket": "default"},
                error="psql: error: connection to server on socket "
                '"/var/run/postgresql/.s.PGSQL.5432" failed: Connection refused',
            )
            mem.flush()
        records, _, _ = drv.execute_query("MATCH (:ErrorPattern {ns: 'readme'})-[r:SIMILAR_TO]-() RETURN count(r) AS n")
        assert records[0]["n"] > 0

        # 3. `kgmem up` on a running server with no schema: applies it (the CLI's first connect).
        _drop_schema(drv)
        up = subprocess.run(
            [sys.executable, "-m", "kgmem.cli", "up"], env=_env(settings), capture_output=True, text=True, timeout=300
        )
        assert up.returncode == 0, up.stderr[-3000:]
        assert f"schema:  version {SCHEMA_VERSION}" in up.stdout
        assert schema_version(GraphStore(drv)) == SCHEMA_VERSION and _fulltext_exists(drv)

        # 4. The async client's first connect (its search needs the full-text index).
        _drop_schema(drv)

        async def first_search() -> int:
            async with AsyncKGMem(settings, embedder=embedder) as amem:
                await amem.turn(session="a1", role="user", text="staging listens on port 6543")
                return len((await amem.search("staging port", k=5)).hits)

        assert asyncio.run(first_search()) > 0
        assert schema_version(GraphStore(drv)) == SCHEMA_VERSION and _fulltext_exists(drv)


def test_schema_is_read_once_and_left_alone_when_current(settings: Settings, driver, graph, embedder) -> None:
    """On the shared server (schema applied): a client's first connect only reads the version, and
    ``auto_schema = false`` skips even that."""
    from kgmem.app import Engines

    engines = Engines(settings, driver=driver)
    engines.graph
    assert engines.schema_version is not None and engines.schema_version >= SCHEMA_VERSION
    off = Engines(
        settings.model_copy(update={"neo4j": settings.neo4j.model_copy(update={"auto_schema": False})}), driver=driver
    )
    off.graph
    assert off.schema_version is None

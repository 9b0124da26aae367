"""A fresh Neo4j that never saw `kgmem init`: the first connect applies the schema.

On the session's private server (tests/private_neo4j.py), its database without any index: a sync
client's first connect applies it (its search answers, similar errors get ``SIMILAR_TO`` links);
then, with every index dropped again, ``kgmem up`` (the server already running) applies it, and so
does the async client's first connect. (The README's Usage code itself runs once, with its own
assertions, in tests/integration/client/test_readme_example.py.)
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from click.testing import CliRunner

from kgmem import AsyncKGMem, KGMem
from kgmem.cli import main
from kgmem.config import Settings
from kgmem.graph import GraphStore, connect
from kgmem.graph.schema import SCHEMA_VERSION, schema_version


def _env(settings: Settings, home: Path) -> dict[str, str]:
    """The environment of a user whose kgmem (KGMEM_HOME ``home``: the server's own) points at the private
    server, no kgmem.toml of theirs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGMEM_") and k != "ANTHROPIC_API_KEY"}
    cfg = settings.neo4j
    return {
        **env,
        "KGMEM_HOME": str(home),
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


def test_fresh_database_needs_no_init(private_neo4j, embedder) -> None:
    server = private_neo4j("first_connect", namespace="readme")
    settings = server.settings
    with connect(settings) as drv:
        _drop_schema(drv)  # a brand-new store has none; make sure of it
        assert schema_version(GraphStore(drv)) is None and not _fulltext_exists(drv)

        # 1. A client's first connect (its own driver), as right after `kgmem up`: the schema is applied,
        # search answers, similar errors are linked (the vector leg of matching uses the schema's lookups).
        with KGMem(settings, embedder=embedder) as mem:
            obs = mem.tool_result(
                "psql", {"port": 5432}, error="could not connect to server: Connection refused", session="s"
            )
            mem.resolve(obs, "use the pgbouncer port 6432")
            mem.correction("Always connect through pgbouncer on port 6432", error=obs)
            assert mem.search("database refuses connections", k=5).hits
            assert schema_version(GraphStore(drv)) == SCHEMA_VERSION and _fulltext_exists(drv)
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

        # 2. `kgmem up` on a running server with no schema: applies it (the CLI's first connect). In-process:
        # the command's code path is what is tested, not the process boundary.
        _drop_schema(drv)
        unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KGMEM_")}
        up = CliRunner().invoke(main, ["up"], env={**unset, **_env(settings, server.server_settings.home)})
        assert up.exit_code == 0, up.output
        assert f"schema:  version {SCHEMA_VERSION}" in up.output
        assert schema_version(GraphStore(drv)) == SCHEMA_VERSION and _fulltext_exists(drv)

        # 3. The async client's first connect (its search needs the full-text index).
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
    _ = engines.graph  # the first use connects (and reads the schema version)
    assert engines.schema_version is not None and engines.schema_version >= SCHEMA_VERSION
    off = Engines(
        settings.model_copy(update={"neo4j": settings.neo4j.model_copy(update={"auto_schema": False})}), driver=driver
    )
    _ = off.graph
    assert off.schema_version is None

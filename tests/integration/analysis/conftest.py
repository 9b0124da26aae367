"""Fixtures for the analysis integration tests: client factories on the real stack (the scripted
Anthropic API, ``scripted``, and the both-clients adapter are in tests/integration/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from kgmem.config import Settings


@pytest.fixture
def asettings(settings: Settings, tmp_path: Path) -> Settings:
    """Per-test settings: own namespace and home (counters file), fast retries, no real key."""
    anthropic = settings.anthropic.model_copy(
        update={
            "api_key": SecretStr("sk-test-not-real"),
            "max_retries": 2,
            "retry_initial_wait_s": 0.01,
            "retry_max_wait_s": 0.05,
            "timeout_s": 5.0,
        }
    )
    return settings.model_copy(update={"home": tmp_path / "home", "anthropic": anthropic})


@pytest.fixture
def make_mem(asettings: Settings, driver, embedder, graph, open_client_of):
    """Build clients on the real stack: ``KGMem`` (``kind="sync"``, the default) or ``AsyncKGMem``
    (``kind="async"``, behind the test adapter); ``offline=True`` drops the API key."""
    made: list[Any] = []

    def make(generator=None, offline: bool = False, kind: str = "sync", **analysis: Any) -> Any:
        settings = asettings
        if analysis:
            settings = settings.model_copy(update={"analysis": settings.analysis.model_copy(update=analysis)})
        if offline:
            settings = settings.model_copy(
                update={"anthropic": settings.anthropic.model_copy(update={"api_key": None})}
            )
        client = open_client_of(kind, settings, driver, embedder, generator=generator)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def make_client(make_mem, client_kind: str):
    """``make_mem`` for the client under test: the test runs once with ``KGMem``, once with ``AsyncKGMem``."""

    def make(generator=None, offline: bool = False, **analysis: Any) -> Any:
        return make_mem(generator, offline, kind=client_kind, **analysis)

    return make


@pytest.fixture
def q(driver, ns: str):
    """Run a test-side Cypher assertion in this test's namespace (``$ns`` is bound).

    The package itself only runs the named files in cypher/; tests may look at the graph directly.
    """

    def run(query: str, **params: Any) -> list[dict[str, Any]]:
        records, _, _ = driver.execute_query(query, parameters_={"ns": ns, **params})
        return [r.data() for r in records]

    return run

"""Shared fixtures. Servers start once per test session; every test gets its own namespace.

Backend: the local Neo4j that `kgmem up` manages (default), or the docker-compose
stack in docker/ through pytest-docker when KGMEM_TEST_BACKEND=docker.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from types import ModuleType

import pytest

from kgmem.config import ChromaSettings, Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent
BACKEND = os.environ.get("KGMEM_TEST_BACKEND", "local")


def pytest_configure(config: pytest.Config) -> None:
    _refuse_a_pair_that_loses_groups(config)


#: Fixtures that stop, restart or kill -9 a Neo4j server: their tests are marked ``slow`` and, under
#: ``pytest-xdist --dist loadgroup`` (.ci/run), run in one worker: one private server starts, not one per
#: worker, and its JVM restarts do not compete with each other for the cores.
SERVER_FIXTURES = frozenset({"private_neo4j", "stream_neo4j"})
PRIVATE_SERVER_GROUP = "private-neo4j"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    xdist = config.pluginmanager.hasplugin("xdist")
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT / "tests").parts
        if parts[0] in ("integration", "e2e", "reliability"):
            item.add_marker(getattr(pytest.mark, parts[0]))
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
            if xdist:
                item.add_marker(pytest.mark.xdist_group(PRIVATE_SERVER_GROUP))


def _refuse_a_pair_that_loses_groups(config: pytest.Config) -> None:
    """Stop a ``--dist loadgroup`` run on a pytest/pytest-xdist pair that loses the groups: pytest 9.2's
    structured node ids take no group suffix from pytest-xdist 3.8 (pytest-dev/pytest-xdist#1386), so the
    private-Neo4j group would be spread over the workers, each starting its own server, silently."""
    from importlib.metadata import version

    from packaging.version import Version  # a dependency of pytest's

    if config.getoption("dist", default="no") != "loadgroup" or hasattr(config, "workerinput"):
        return
    pytest_at, xdist_at = (Version(version(d)).release[:2] for d in ("pytest", "pytest-xdist"))
    if pytest_at >= (9, 2) and xdist_at <= (3, 8):
        raise pytest.UsageError(
            f"pytest {version('pytest')} with pytest-xdist {version('pytest-xdist')} loses --dist loadgroup "
            "groups (pytest-dev/pytest-xdist#1386): install the versions pyproject.toml pins"
        )


# -- CI must fail, not skip, when a test tool it installs is missing ------------------------
# Locally a missing Chromium skips its tests with a reason (friendly); in CI (env CI=true, as
# .ci/run sets) scripts/test.sh installs it, so a skip would hide a broken CI image.
REQUIRED_IN_CI = ("headless Chromium not installed",)


def in_ci() -> bool:
    """True when running in CI (``CI`` set to anything but empty/0/false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and call.excinfo is not None:
        reason = str(call.excinfo.value)
        if any(marker in reason for marker in REQUIRED_IN_CI):
            report.outcome = "failed"
            report.longrepr = f"CI requires this test tool (CI={os.environ.get('CI')!r}); skip refused: {reason}"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The evaluation data read in place, never copied into the repository (LoCoMo, loghub-2k):
    ``KGMEM_BENCH_DATA``, else the nearest ``shared/data`` above the checkout (as the benchmarks find it)."""
    explicit = os.environ.get("KGMEM_BENCH_DATA")
    if explicit:
        return Path(explicit)
    found = next((p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()), None)
    return found or ROOT.parent / "shared" / "data"


if BACKEND == "docker":

    @pytest.fixture(scope="session")
    def docker_compose_file() -> str:
        return str(ROOT / "docker" / "docker-compose.yml")

    @pytest.fixture(scope="session")
    def base_settings(docker_services, docker_ip) -> Settings:  # type: ignore[no-untyped-def]
        import socket

        def bolt_open() -> bool:
            try:
                socket.create_connection((docker_ip, 7687), timeout=1).close()
                return True
            except OSError:
                return False

        docker_services.wait_until_responsive(timeout=120.0, pause=1.0, check=bolt_open)
        return load_settings(
            neo4j={
                "uri": f"bolt://{docker_ip}:7687",
                "password": os.environ.get("KGMEM_NEO4J__PASSWORD", "kgmem-test-pw"),
            },
            chroma={"url": f"http://{docker_ip}:8000"},
        )

else:

    @pytest.fixture(scope="session")
    def base_settings() -> Settings:
        """Settings for the local server; starts it (or reuses the running one: every xdist worker shares
        it, so a test comparing keyword scores measures them with tests/settled.py)."""
        from kgmem.server import LocalNeo4j

        LocalNeo4j(load_settings()).up()
        return load_settings()  # re-read: `up` may have just written the password


@pytest.fixture(scope="session")
def driver(base_settings: Settings):
    from kgmem.graph import connect

    drv = connect(base_settings)
    yield drv
    drv.close()


@pytest.fixture(scope="session")
def graph(driver, base_settings: Settings):
    """A GraphStore with the schema applied once per session."""
    from kgmem.graph import GraphStore
    from kgmem.graph.schema import apply_schema

    store = GraphStore(driver, base_settings.neo4j.database)
    apply_schema(store)
    return store


@pytest.fixture(scope="session")
def embedder(base_settings: Settings):
    """The real embedding model, loaded once."""
    from kgmem.vectors import Embedder

    return Embedder(base_settings.embedding, base_settings.models_dir)


@pytest.fixture
def ns(graph) -> str:
    """A namespace of this test's own; its nodes are deleted afterwards."""
    from kgmem.maintenance import delete_namespace

    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    delete_namespace(graph, None, name)


@pytest.fixture
def settings(base_settings: Settings, ns: str, tmp_path: Path) -> Settings:
    """Per-test settings: own namespace, Chroma in a temp dir."""
    # Embedded Chroma in a temp dir; against a Chroma server the namespace alone isolates tests.
    chroma = ChromaSettings(path=tmp_path / "chroma") if BACKEND != "docker" else base_settings.chroma
    # A developer's ANTHROPIC_API_KEY never reaches a test: tests that use the API script it (a fake key).
    anthropic = base_settings.anthropic.model_copy(update={"api_key": None})
    return base_settings.model_copy(update={"namespace": ns, "chroma": chroma, "anthropic": anthropic})


@pytest.fixture
def mem(settings: Settings, driver, embedder, graph):
    """A KGMem client on the real stack, sharing the session's driver and model."""
    from kgmem import KGMem

    client = KGMem(settings, driver=driver, embedder=embedder)
    yield client
    client.close()


@pytest.fixture(scope="session")
def private_server(base_settings: Settings, tmp_path_factory: pytest.TempPathFactory):
    """The session's one private Neo4j (tests/private_neo4j.py), started when a test first asks for it."""
    private = _test_module("private_neo4j")
    server = private.start(tmp_path_factory.mktemp("private-neo4j"), base_settings)
    server.wipe()  # applies the schema
    yield server
    server.down()


@pytest.fixture
def private_neo4j(tmp_path: Path, request: pytest.FixtureRequest):
    """Factory: ``private_neo4j(name, namespace=..., **settings)`` → the session's private Neo4j as this
    test sees it (own home ``tmp_path/name``; tests/private_neo4j.py): the test may stop, restart or
    kill -9 it. Afterwards it is running again and empty."""
    views: list = []

    def view(name: str, namespace: str = "private", **overrides):  # type: ignore[no-untyped-def]
        server = request.getfixturevalue("private_server")
        server.ensure_up()
        views.append(server.view(tmp_path / name, namespace=namespace, **overrides))
        return views[-1]

    yield view
    if views:
        views[0].ensure_up()
        views[0].wipe()


def _test_module(name: str) -> ModuleType:
    """A helper module of tests/ (private_neo4j), imported by name."""
    import importlib
    import sys

    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module(name)

"""A small analyst graph built through the public API (tool results, turns, manual knowledge,
call graph), completed by a Cypher fixture for the parts without a public API yet."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kgmem.config import ChromaSettings
from kgmem.ids import node_id
from kgmem.maintenance import delete_namespace

HERE = Path(__file__).resolve().parent
TIMEOUT1 = "Command timed out after 30 seconds"
TIMEOUT2 = "Operation timed out while waiting for the child process"
PERM = "Permission denied: cannot write to the output directory"
DISK = "Disk quota exceeded on the data volume"


def run_cypher(driver, name: str, **params):  # type: ignore[no-untyped-def]
    """Run a test-only Cypher file from tests/integration/reports/cypher/."""
    query = (HERE / "cypher" / f"{name}.cypher").read_text(encoding="utf-8")
    records, _, _ = driver.execute_query(query, parameters_=params, database_="neo4j")
    return [r.data() for r in records]


@dataclass
class Fixture:
    ns: str
    now: datetime
    ids: dict[str, str] = field(default_factory=dict)


def build(mem, ns: str) -> Fixture:  # type: ignore[no-untyped-def]
    now = datetime.now(UTC)
    fx = Fixture(ns=ns, now=now)
    errors = [
        ("timeout1", "bash", TIMEOUT1, "s1"),
        ("timeout1", "bash", TIMEOUT1, "s1"),
        ("timeout1", "bash", TIMEOUT1, "s2"),
        ("timeout2", "bash", TIMEOUT2, "s2"),
        ("timeout2", "bash", TIMEOUT2, "s3"),
        ("perm", "http", PERM, "s1"),
        ("perm", "http", PERM, "s2"),
        ("perm", "http", PERM, "s3"),
        ("perm", "http", PERM, "s3"),
        ("disk", "db", DISK, "s3"),
    ]
    for key, tool, message, session in errors:
        obs = mem.tool_result(tool, {"cmd": "x"}, error=message, session=session, ns=ns)
        fx.ids[key] = obs.error_id
    fx.ids["msg"] = mem.turn(session="s3", role="user", text="Why does the deploy keep timing out?", ref="m1", ns=ns)
    mem.turn(session="s3", role="assistant", text="The build step exceeds the 30 second limit.", ref="m2", ns=ns)
    mem.turn(session="s3", role="user", text="Then raise the limit to two minutes.", ref="m3", ns=ns)
    fx.ids["manual"] = mem.add_knowledge("Never run migrations on a Friday", type="correction", ns=ns)["id"]
    for i in range(1, 5):
        fx.ids[f"k{i}"] = node_id(ns, "knowledge", f"fixture {i}")
    fx.ids["fix1"] = node_id(ns, "fix", "increase the timeout")
    fx.ids["fix2"] = node_id(ns, "fix", "run the command with sudo")
    for s in ("s1", "s2", "s3"):
        fx.ids[s] = node_id(ns, "session", s)
    iso = lambda d: (now - timedelta(days=d)).isoformat()  # noqa: E731
    run_cypher(
        mem.driver,
        "fixture_extra",
        ns=ns,
        now=now.isoformat(),
        old5=iso(5),
        old10=iso(10),
        old60=iso(60),
        old100=iso(100),
        timeout1=fx.ids["timeout1"],
        timeout2=fx.ids["timeout2"],
        perm=fx.ids["perm"],
        s1=fx.ids["s1"],
        s2=fx.ids["s2"],
        manual=fx.ids["manual"],
        msg=fx.ids["msg"],
        fix1=fx.ids["fix1"],
        fix2=fx.ids["fix2"],
        k1=fx.ids["k1"],
        k2=fx.ids["k2"],
        k3=fx.ids["k3"],
        k4=fx.ids["k4"],
    )
    mem.record_calls([("app.main", "app.load"), ("app.load", "app.parse")], ns=ns)
    mem.observe_changes(["app.main", "app.parse", "app.unknown"], session="s3", ns=ns)
    mem.observe_changes(["app.load", "app.parse"], session="s3", ns=ns)
    return fx


@pytest.fixture(scope="module")
def analyst_mem(base_settings, driver, embedder, graph, tmp_path_factory):  # type: ignore[no-untyped-def]
    from kgmem import KGMem

    ns = f"test-an-{uuid.uuid4().hex[:10]}"
    settings = base_settings.model_copy(
        update={"namespace": ns, "chroma": ChromaSettings(path=tmp_path_factory.mktemp("chroma") / "chroma")}
    )
    mem = KGMem(settings, driver=driver, embedder=embedder)
    yield mem
    mem.close()
    delete_namespace(graph, None, ns)


@pytest.fixture(scope="module")
def analyst(analyst_mem):  # type: ignore[no-untyped-def]
    """(mem, fixture ids) for the module's fixture graph."""
    return analyst_mem, build(analyst_mem, analyst_mem.namespace)


@dataclass
class ConceptFixture:
    ns: str
    other: str


@pytest.fixture(scope="module")
def concepts(graph, driver):  # type: ignore[no-untyped-def]
    """A namespace of ten memories and the concepts they mention (tests/integration/reports/cypher/
    fixture_concepts.cypher lists them), written directly in Cypher: the reports read the agreed
    concept schema whatever writes it. A second namespace holds a memory that must never count."""
    from kgmem.ids import ns_key

    fx = ConceptFixture(ns=f"test-cc-{uuid.uuid4().hex[:10]}", other=f"test-cx-{uuid.uuid4().hex[:10]}")
    now = datetime.now(UTC)
    run_cypher(
        driver,
        "fixture_concepts",
        ns=fx.ns,
        ns_key=ns_key(fx.ns),
        other=fx.other,
        now=now.isoformat(),
        old=(now - timedelta(days=3)).isoformat(),
    )
    yield fx
    for name in (fx.ns, fx.other):
        delete_namespace(graph, None, name)

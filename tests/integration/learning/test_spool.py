"""Never in the agent's way, never losing events: spooling while Neo4j is unreachable, and
replay exactly once — against an unreachable port, and against a private Neo4j server that
is stopped and started in the middle of a stream of events."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from kgmem import KGMem
from kgmem.config import Settings
from kgmem.errors import BackendUnavailable
from kgmem.graph import GraphStore, connect
from kgmem.learning import LearningEngine
from kgmem.learning.report import learning_status
from kgmem.spool import QUARANTINE_FILE, Spool
from kgmem.vectors import VectorStore, open_chroma

TIMEOUT = "ReadTimeoutError: HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout={t})"
REFUSED = "Error: connect ECONNREFUSED 10.0.0.{n}:5432"


def _occurrences(driver, ns: str) -> dict[str, int]:
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns}) RETURN e.pattern AS p, e.occurrences AS n", ns=ns
    )
    return {r["p"]: r["n"] for r in records}


def _observed_fixes(driver, ns: str) -> list[tuple[str, int]]:
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->(f:Fix {ns: $ns}) RETURN f.description AS d, r.successes AS s",
        ns=ns,
    )
    return sorted((r["d"], r["s"]) for r in records)


def test_unreachable_neo4j_spools_and_replays_exactly_once(
    settings: Settings, graph: GraphStore, driver, embedder, ns: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    unreachable = settings.model_copy(
        update={"home": home, "neo4j": settings.neo4j.model_copy(update={"uri": "bolt://127.0.0.1:9"})}
    )
    vectors = VectorStore(open_chroma(settings))
    bad_driver = connect(unreachable)
    try:
        down = LearningEngine(GraphStore(bad_driver), vectors, embedder, settings.learning, spool_dir=home / "spool")
        obs = down.tool_result(ns, "http", {"timeout": 5}, error=TIMEOUT.format(t=5), session="s")
        assert obs is not None and obs.spooled and obs.category == "timeout" and obs.fixes == ()
        for n in range(4):  # inside the offline window: straight to the spool, no waiting on Neo4j
            down.tool_result(ns, "psql", {"n": n}, error=REFUSED.format(n=n), session="t")
        ok = down.tool_result(ns, "http", {"timeout": 30}, session="s")  # success after the failure
        assert ok.ok and ok.spooled and ok.fixes == ()
        strict = LearningEngine(
            GraphStore(bad_driver),
            vectors,
            embedder,
            settings.learning.model_copy(update={"strict": True}),
            spool_dir=home / "spool",
        )
        with pytest.raises(BackendUnavailable):
            strict.tool_result(ns, "http", error="boom")
        down.spool.close()
        assert Spool(home / "spool").stats()["pending"] == 6
    finally:
        bad_driver.close()

    up = LearningEngine(graph, vectors, embedder, settings.learning, spool_dir=home / "spool")
    [segment] = up.spool.segments()
    saved = segment.read_bytes()
    assert up.replay_spool() == 6
    counts = _occurrences(driver, ns)
    assert sorted(counts.values()) == [1, 4]  # 1 timeout pattern, 4 refused (one pattern: ip/port normalised)
    assert _observed_fixes(driver, ns) == [("http: set timeout=30 (was 5)", 1)]

    # A crash after the graph commit but before the segment file was deleted: the file is back.
    segment.write_bytes(saved)
    assert up.replay_spool() == 0
    assert _occurrences(driver, ns) == counts and _observed_fixes(driver, ns) == [("http: set timeout=30 (was 5)", 1)]
    stats = Spool(home / "spool").stats()
    assert stats["pending"] == 0 and stats["spooled"] == 6 and stats["replayed"] == 6


def test_neo4j_stops_and_restarts_during_a_stream_and_under_deferred_repeats(private_neo4j, embedder) -> None:
    """The private server (tests/private_neo4j.py) is stopped and started once (a stop and a start of a JVM)
    under two clients, each with its own home and namespace:

    - a stream: 10 events while it is up, 10 while it is stopped, 10 after it is started again;
    - deferred repeats: 5 repeats deferred, then the stop: the flush hands them to the spool, two more
      repeats and a success are spooled; after the start one replay counts each exactly once."""
    from kgmem.graph.schema import apply_schema

    stream_view = private_neo4j("spool", namespace="stream", learning={"offline_retry_s": 1.0})
    defer_view = private_neo4j("defer", namespace="defer", learning={"offline_retry_s": 1.0, "defer_flush_ms": 60_000})
    drv = connect(stream_view.settings)
    defer_drv = connect(defer_view.settings)
    try:
        apply_schema(GraphStore(drv))
        mem = KGMem(stream_view.settings, driver=drv, embedder=embedder)
        deferring = KGMem(defer_view.settings, driver=defer_drv, embedder=embedder)
        expected: dict[str, int] = {}

        def stream(start: int, stop: int) -> list:
            out = []
            for i in range(start, stop):
                session = f"s{i // 10}"
                if i % 10 == 9:  # the tool works again with a longer timeout
                    out.append(mem.tool_result("http", {"timeout": 60}, session=session))
                    continue
                error = TIMEOUT.format(t=i) if i % 2 else REFUSED.format(n=i % 7)
                out.append(mem.tool_result("http" if i % 2 else "psql", {"timeout": 5}, error=error, session=session))
                key = "timeout" if i % 2 else "refused"
                expected[key] = expected.get(key, 0) + 1
            return out

        assert not any(o.spooled for o in stream(0, 10))
        for t in range(6):  # the first occurrence is written, the 5 repeats deferred
            deferring.tool_result("http", {"timeout": 5}, error=TIMEOUT.format(t=t), session="s")
        assert deferring.learning.deferred_total == 5

        stream_view.down()
        spooled = stream(10, 20)
        assert all(o.spooled for o in spooled)
        deferring.flush()  # cannot write: the deferred segment is handed over to the spool
        assert Spool(defer_view.settings.spool_dir).stats()["pending"] == 5
        repeats = [
            deferring.tool_result("http", {"timeout": 5}, error=TIMEOUT.format(t=t), session="s") for t in (6, 7)
        ]
        assert all(o.spooled for o in repeats)
        assert deferring.tool_result("http", {"timeout": 60}, session="s").spooled

        stream_view.up()
        time.sleep(1.1)  # past the offline window: the next event replays the spool first
        assert not any(o.spooled for o in stream(20, 30))
        assert mem.replay_spool() == 0 and Spool(stream_view.settings.spool_dir).stats()["pending"] == 0
        deferring.replay_spool()

        records, _, _ = drv.execute_query(
            "MATCH (e:ErrorPattern {ns: 'stream'}) RETURN e.category AS c, sum(e.occurrences) AS n"
        )
        got = {("timeout" if r["c"] == "timeout" else "refused"): r["n"] for r in records}
        assert got == expected  # every event counted exactly once
        records, _, _ = drv.execute_query(
            "MATCH (:ErrorPattern {ns: 'stream'})-[r:RESOLVED_BY]->(:Fix) RETURN sum(r.successes) AS s"
        )
        assert records[0]["s"] == 3  # one observed fix per 10-event session

        assert _occurrences(defer_drv, "defer") == {repeats[0].pattern: 8}
        assert _observed_fixes(defer_drv, "defer") == [("http: set timeout=60 (was 5)", 1)]
        stats = Spool(defer_view.settings.spool_dir).stats()
        assert stats["pending"] == 0 and stats["dropped"] == 0 and stats["spooled"] == stats["replayed"] == 8
        mem.close()
        deferring.close()
    finally:
        drv.close()
        defer_drv.close()


def test_lines_no_replay_can_apply_are_quarantined_and_the_rest_replayed_once(
    settings: Settings, driver, embedder, ns: str, tmp_path: Path
) -> None:
    """A segment with valid tool results around a torn line and a line of a kind this version does not know
    (a newer kgmem wrote it): the valid ones are replayed exactly once, the two bad ones are quarantined and
    counted, and the segment is finished — nothing re-reads it before the next writes."""
    home = tmp_path / "home"
    spool_dir = home / "spool"
    spool_dir.mkdir(parents=True)
    valid = [
        {
            "seq": i,
            "ns": ns,
            "kind": "learning",
            "tool": "psql",
            "params": {},
            "exc_types": [],
            "message": REFUSED.format(n=i),
            "session": None,
            "ts": "2026-01-01T00:00:00+00:00",
        }
        for i in (0, 1, 3, 5)
    ]
    newer = {"seq": 4, "ns": ns, "kind": "tool_result_v2", "tool": "psql", "message": "from the future"}
    lines = [
        json.dumps(valid[0]),
        json.dumps(valid[1]),
        json.dumps({**valid[1], "seq": 2})[:40],  # torn mid-line
        json.dumps(valid[2]),
        json.dumps(newer),
        json.dumps(valid[3]),
    ]
    segment = spool_dir / f"learning-999999-{uuid.uuid4().hex[:12]}.jsonl"  # its cursor is global: a name of its own
    segment.write_text("\n".join(lines) + "\n")

    client = KGMem(settings.model_copy(update={"home": home}), driver=driver, embedder=embedder)
    try:
        obs = client.tool_result("http", {}, error=TIMEOUT.format(t=5))  # the first write replays the spool
        assert not obs.spooled
        assert _occurrences(driver, ns) == {
            client.learning.describe(ns, "psql", REFUSED.format(n=0)).pattern: 4,
            obs.pattern: 1,
        }
        assert not segment.exists() and not client.learning.replayer.maybe_pending  # finished: never re-read
        quarantined = [json.loads(x) for x in (spool_dir / QUARANTINE_FILE).read_text().splitlines()]
        assert [(q["line"], q["text"]) for q in quarantined] == [(2, lines[2]), (4, lines[4])]
        assert "unknown kind 'tool_result_v2'" in quarantined[1]["reason"]
        stats = Spool(spool_dir).stats()
        assert (stats["replayed"], stats["quarantined"], stats["dropped"], stats["pending"]) == (4, 2, 0, 0)
        assert client.replay_spool() == 0  # nothing left to replay, nothing counted twice
        client.tool_result("http", {}, error=TIMEOUT.format(t=7))  # a repeat: deferred, nothing to replay first
        client.flush()
        assert sum(_occurrences(driver, ns).values()) == 6 and Spool(spool_dir).stats()["quarantined"] == 2
    finally:
        client.close()
    status = learning_status(GraphStore(driver), settings.model_copy(update={"home": home}), ns)
    assert status["spool"]["quarantined"] == 2

"""Regression tests of defects 9 and 10: a dead Neo4j and a removed Chroma under a
live client. Writes never raise into the agent's loop (they spool, or leave the vector pending),
search answers from the legs that still work and says which failed, and nothing is lost."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from reliability_support import fingerprint  # type: ignore[import-not-found]

from kgmem import KGMem
from kgmem.config import Settings
from kgmem.errors import GraphUnavailable
from kgmem.graph import GraphStore, connect
from kgmem.maintenance.reindex import reindex
from kgmem.spool import Spool
from kgmem.vectors import VectorStore, open_chroma


def _client_settings(settings: Settings, home: Path, chroma: Path, **neo4j: object) -> Settings:
    return settings.model_copy(
        update={
            "home": home,
            "chroma": settings.chroma.model_copy(update={"path": chroma}),
            "analysis": settings.analysis.model_copy(update={"enabled": False}),
            "neo4j": settings.neo4j.model_copy(update=neo4j),
        }
    )


def _pending(driver, ns: str) -> dict[str, bool]:  # noqa: ANN001
    records, _, _ = driver.execute_query(
        "MATCH (n {ns: $ns}) WHERE n:Message OR n:Knowledge OR n:ErrorPattern "
        "RETURN coalesce(n.text, n.content, n.pattern) AS k, n.vector_pending AS p",
        ns=ns,
    )
    return {r["k"]: bool(r["p"]) for r in records}


def test_chroma_removed_under_a_live_client(settings: Settings, ns: str, driver, embedder, tmp_path: Path) -> None:
    chroma = tmp_path / "chroma"
    mem = KGMem(_client_settings(settings, tmp_path / "home", chroma), driver=driver, embedder=embedder)
    try:
        mem.turn(session="s", role="user", text="written while Chroma was there", ref="a")
        mem.add_knowledge("Known before Chroma vanished", type="fact")
        shutil.rmtree(chroma)
        # None of these may raise: the graph write is committed, the vector is left pending.
        mid = mem.turn(session="s", role="user", text="written after Chroma vanished", ref="b")
        item = mem.add_knowledge("Added after Chroma vanished", type="fact")
        obs = mem.tool_result("psql", error="FATAL: a brand-new error after Chroma vanished", session="s")
        assert mid and item["id"] and obs is not None and not obs.spooled
        result = mem.search("vanished Chroma")  # the keyword leg and the graph still answer
        assert {h.text for h in result.hits} & {"written after Chroma vanished", "Added after Chroma vanished"}
    finally:
        mem.close()
    pending = _pending(driver, ns)
    assert pending == {
        "written while Chroma was there": False,
        "Known before Chroma vanished": False,
        "written after Chroma vanished": True,
        "Added after Chroma vanished": True,
        "FATAL: a brand-new error after Chroma vanished": True,
    }

    # `kgmem reindex --missing-only` against a working Chroma repairs every pending vector.
    fresh = VectorStore(open_chroma(_client_settings(settings, tmp_path / "home", tmp_path / "chroma2")))
    summary = reindex(GraphStore(driver), fresh, embedder, ns, missing_only=True)
    assert summary.repaired >= 3
    assert not any(_pending(driver, ns).values())
    assert fresh.count(ns, "message") == 2 and fresh.count(ns, "knowledge") == 2


def test_dead_neo4j_spools_writes_and_search_answers_from_chroma(
    settings: Settings, ns: str, driver, embedder, tmp_path: Path
) -> None:
    home, chroma = tmp_path / "home", tmp_path / "chroma"
    live = KGMem(_client_settings(settings, home, chroma), driver=driver, embedder=embedder)
    live.turn(session="s", role="user", text="the nightly backup job writes to /mnt/backup", ref="t1")
    live.add_knowledge("Backups are kept for 30 days", type="fact")
    live.close()
    before = fingerprint(driver, ns)

    # The same client setup, but the server is gone (nothing listens on port 9: connection refused).
    dead_settings = _client_settings(settings, home, chroma, uri="bolt://127.0.0.1:9")
    dead_driver = connect(dead_settings)
    dead = KGMem(dead_settings, driver=dead_driver, embedder=embedder)
    try:
        result = dead.search("where does the backup job write", k=3)
        assert set(result.failed_legs) == {"keyword", "graph"}  # said, not hidden
        assert result.hits and result.hits[0].text == "the nightly backup job writes to /mnt/backup"
        assert "backup" in dead.context("backup retention").text
        mid = dead.turn(session="s", role="assistant", text="I will check the backup mount", ref="t2")
        item = dead.add_knowledge("The backup mount is an NFS share", type="fact")
        obs = dead.tool_result(
            "rsync", {"dest": "/mnt/backup"}, error="rsync: connection unexpectedly closed", session="s"
        )
        assert mid and item["spooled"] and obs.spooled
        dead.end_session("s")  # spooled after the session's turn: replayed after it
        with pytest.raises(GraphUnavailable):  # no spool for what cannot be answered without the graph
            dead.learnings()
    finally:
        dead.close()
        dead_driver.close()
    assert fingerprint(driver, ns) == before
    assert Spool(home / "spool").stats()["pending"] == 4

    # Neo4j is back: one replay applies each spooled write once; a second replay does nothing.
    back = KGMem(_client_settings(settings, home, chroma), driver=driver, embedder=embedder)
    try:
        assert back.replay_spool() == 4
        assert back.replay_spool() == 0
    finally:
        back.close()
    after = fingerprint(driver, ns)
    assert after["messages"] == {**before["messages"], "s#1": "assistant: I will check the backup mount"}
    assert set(after["knowledge"]) == set(before["knowledge"]) | {"The backup mount is an NFS share"}
    assert after["occurrences"] == {"rsync | rsync: connection unexpectedly closed": 1}
    records, _, _ = driver.execute_query("MATCH (s:Session {ns: $ns, key: 's'}) RETURN s.ended_at AS e", ns=ns)
    assert records[0]["e"] is not None

"""The walking skeleton through the real stack: tool error → Neo4j + Chroma → vector search."""

from __future__ import annotations

import pytest

from kgmem import KGMem
from kgmem.config import Settings


def _count_patterns(driver, ns: str) -> int:
    records, _, _ = driver.execute_query("MATCH (e:ErrorPattern {ns: $ns}) RETURN count(e) AS n", ns=ns)
    return records[0]["n"]


def test_tool_error_is_stored_linked_and_found(mem: KGMem, driver, ns: str) -> None:
    mem.tool_result("psql", {"host": "db1"}, error="connection refused to 10.1.2.3:5432", session="s-1")
    mem.tool_result("psql", {"host": "db2"}, error="connection refused to 10.9.8.7:6543", session="s-2")
    mem.flush()  # the repeat was deferred (learning.defer_flush_ms): written now

    records, _, _ = driver.execute_query(
        """MATCH (e:ErrorPattern {ns: $ns})-[:CAUSED_BY]->(t:Tool {ns: $ns})
           OPTIONAL MATCH (e)-[:IN_SESSION]->(s:Session {ns: $ns})
           RETURN e.occurrences AS occ, t.name AS tool, collect(s.key) AS sessions""",
        ns=ns,
    )
    assert len(records) == 1, "both occurrences normalise to one pattern"
    row = records[0]
    assert row["tool"] == "psql" and row["occ"] == 2
    assert sorted(row["sessions"]) == ["s-1", "s-2"]
    assert mem.vectors.count(ns, "error") == 1

    result = mem.search("database connection refused", k=5)
    hits = getattr(result, "hits", result)
    assert hits and "connection refused" in hits[0].text


def test_retry_after_failure_between_neo4j_and_chroma_leaves_one_node_one_vector(
    settings: Settings, driver, embedder, graph, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    strict = settings.model_copy(update={"learning": settings.learning.model_copy(update={"strict": True})})
    mem = KGMem(strict, driver=driver, embedder=embedder)
    real_upsert = mem.vectors.upsert
    calls = {"n": 0}

    def flaky_upsert(*args, **kwargs):  # the process "dies" after the Neo4j commit
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated crash between the Neo4j and Chroma writes")
        return real_upsert(*args, **kwargs)

    monkeypatch.setattr(mem.vectors, "upsert", flaky_upsert)
    error = "TimeoutError: read timed out after 30s calling https://api.example.com/v1/items?page=2"
    with pytest.raises(Exception):
        mem.tool_result("http_get", {"url": "x"}, error=error, session="s")
    assert _count_patterns(driver, ns) == 1
    assert mem.vectors.count(ns, "error") == 0

    mem.tool_result("http_get", {"url": "x"}, error=error, session="s")  # the caller's retry
    assert _count_patterns(driver, ns) == 1
    assert mem.vectors.count(ns, "error") == 1
    records, _, _ = driver.execute_query("MATCH (e:ErrorPattern {ns: $ns}) RETURN e.vector_pending AS pending", ns=ns)
    assert records[0]["pending"] is False
    mem.close()

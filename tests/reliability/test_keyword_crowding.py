"""Full-text crowding (defect 12): 300 rows in namespace `teamX` used to push the rows
of `teamX-A` out of its keyword results — the english analyzer reads both namespaces as the token
`teamX` (`a` is a stop word), so the Lucene namespace clause matched both and the exact filter ran
after the fetch limit. The clause is now the exact `ns_key` token; old nodes get it from `kgmem init`."""

from __future__ import annotations

from kgmem.graph.schema import apply_schema
from kgmem.ids import ns_key
from kgmem.maintenance import delete_namespace
from kgmem.retrieval.config import preset
from kgmem.retrieval.keyword import KeywordRetriever
from kgmem.retrieval.scope import Scope
from kgmem.runner import SyncIO, run

SEED = """
UNWIND range(1, $n) AS i
CREATE (:Message {ns: $ns, id: $ns + '-' + toString(i), session: 's', role: 'user',
                  text: 'the deploy pipeline failed again on step ' + toString(i), ns_key: $key})
"""


def _seed(driver, ns: str, n: int, with_key: bool = True) -> None:
    driver.execute_query(SEED, ns=ns, n=n, key=ns_key(ns) if with_key else None)


def _keyword_ids(graph, ns: str, k: int = 5) -> list[str]:
    retriever = KeywordRetriever(preset("balanced"))
    op = retriever.candidates("deploy pipeline failed", Scope.build(ns, k=k, kinds=["message"]))
    return [cand.id for cand in run(op, SyncIO(graph, None, None))[:k]]


def test_a_crowded_look_alike_namespace_does_not_hide_a_namespaces_own_rows(driver, graph, ns) -> None:
    crowd, own = ns, f"{ns}-A"  # the analyzer tokenises both namespaces to the same term
    try:
        _seed(driver, crowd, 300)
        _seed(driver, own, 3)
        hits = _keyword_ids(graph, own)
        assert sorted(hits) == sorted(f"{own}-{i}" for i in (1, 2, 3))
        assert len(_keyword_ids(graph, crowd)) == 5 and all(
            h.startswith(crowd + "-") and not h.startswith(own) for h in _keyword_ids(graph, crowd)
        )
    finally:
        delete_namespace(graph, None, own)


def test_kgmem_init_gives_nodes_written_before_schema_4_their_ns_key(driver, graph, ns) -> None:
    _seed(driver, ns, 2, with_key=False)  # as an older kgmem wrote them
    assert _keyword_ids(graph, ns) == []
    apply_schema(graph)  # what `kgmem init` runs; idempotent
    assert sorted(_keyword_ids(graph, ns)) == [f"{ns}-1", f"{ns}-2"]
    records, _, _ = driver.execute_query(
        "SHOW FULLTEXT INDEXES YIELD name, properties WHERE name = 'kgmem_fulltext' RETURN properties"
    )
    assert "ns_key" in records[0]["properties"]


def test_writers_store_ns_key(mem, ns) -> None:
    mem.turn(session="s1", role="user", text="the deploy pipeline failed on arm64")
    mem.tool_result("deploy", {"arch": "arm64"}, error="deploy pipeline failed: exec format error", session="s1")
    mem.add_knowledge("The deploy pipeline needs a multi-arch base image")
    records, _, _ = mem.driver.execute_query(
        "MATCH (n:Message|ErrorPattern|Knowledge {ns: $ns}) RETURN collect(DISTINCT n.ns_key) AS keys", ns=ns
    )
    assert records[0]["keys"] == [ns_key(ns)]
    assert {h.kind for h in mem.search("deploy pipeline failed", ns=ns, k=10).hits} >= {"message", "error", "knowledge"}

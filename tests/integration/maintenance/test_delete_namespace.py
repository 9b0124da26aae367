"""Deleting a namespace in bounded transactions: every node, edge and vector of it goes, over more
than one batch, with a hub (a concept every message mentions) among them; other namespaces stay.
Real Neo4j, Chroma, embedding model and concept extractor."""

from __future__ import annotations

import uuid

import pytest

from kgmem.conversation import MESSAGE_KIND, Turn
from kgmem.errors import ValidationError
from kgmem.maintenance import delete_namespace

SPEAKERS = ("Caroline", "Melanie")
TOPICS = ("pottery class", "camping trip", "adoption agency", "charity run", "painting workshop", "book club")


def turns(prefix: str, n: int) -> list[Turn]:
    """``n`` turns in sessions of five; every one names Caroline (a hub concept)."""
    return [
        Turn(
            f"{prefix}-s{i // 5}",
            SPEAKERS[i % 2],
            f"Caroline told me about the {TOPICS[i % len(TOPICS)]} {i}.",
            ref=f"t{i}",
        )
        for i in range(n)
    ]


def graph_counts(driver, ns: str) -> tuple[int, int]:
    records, _, _ = driver.execute_query(
        "MATCH (n {ns: $ns}) OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels",
        ns=ns,
    )
    return records[0]["nodes"], records[0]["rels"]


@pytest.fixture
def other_ns(graph):
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    delete_namespace(graph, None, name)


def test_delete_takes_every_node_edge_and_vector_over_many_batches(mem, ns, other_ns, driver):
    mem.turns.record(ns, turns("a", 40))
    mem.turns.record(other_ns, turns("b", 10))
    nodes, rels = graph_counts(driver, ns)
    hub = driver.execute_query(
        "MATCH (c:Concept {ns: $ns, key: 'caroline'}) RETURN COUNT { (c)--() } AS degree", ns=ns
    ).records[0]["degree"]
    batch = 7
    assert nodes > 3 * batch and hub > batch  # several batches, and a hub with more edges than a batch
    kept = graph_counts(driver, other_ns), mem.vectors.count(other_ns, MESSAGE_KIND)
    assert mem.vectors.count(ns, MESSAGE_KIND) == 40

    deleted = delete_namespace(mem.graph, mem.vectors, ns, batch=batch)

    assert (deleted.ns, deleted.nodes) == (ns, nodes)
    assert graph_counts(driver, ns) == (0, 0)
    assert mem.vectors.count(ns, MESSAGE_KIND) == 0
    assert (graph_counts(driver, other_ns), mem.vectors.count(other_ns, MESSAGE_KIND)) == kept
    assert delete_namespace(mem.graph, mem.vectors, ns, batch=batch).nodes == 0  # again: nothing left, no error


@pytest.mark.parametrize("batch", [0, -5, 2.5, True, "100"])
def test_a_bad_batch_size_is_refused_and_deletes_nothing(mem, ns, driver, batch):
    mem.turns.record(ns, turns("a", 3))
    before = graph_counts(driver, ns)
    with pytest.raises(ValidationError, match="batch"):
        delete_namespace(mem.graph, mem.vectors, ns, batch=batch)
    assert graph_counts(driver, ns) == before

import pytest

from kgmem import cypher
from kgmem.errors import CypherNotFound
from kgmem.ids import node_id


def test_node_id_is_deterministic_and_separates_parts() -> None:
    assert node_id("ns", "error", "a", "b") == node_id("ns", "error", "a", "b")
    assert node_id("ns", "error", "ab", "") != node_id("ns", "error", "a", "b")
    assert node_id("ns1", "error", "x") != node_id("ns2", "error", "x")
    assert len(node_id("n", "k")) == 32


def test_load_named_cypher_and_reject_bad_names() -> None:
    assert "MERGE" in cypher.load("learning/apply_events")
    with pytest.raises(CypherNotFound):
        cypher.load("../pyproject")
    with pytest.raises(CypherNotFound):
        cypher.load("does/not_exist")


def test_schema_statements_split_and_cover_every_label() -> None:
    stmts = cypher.statements("schema")
    assert all(not s.startswith("//") for s in stmts)
    for label in ("Tool", "Session", "ErrorPattern", "Fix", "Knowledge", "Entity", "Message", "Function"):
        assert any(f"(n:{label}) REQUIRE (n.ns, n.id) IS UNIQUE" in s for s in stmts), label
    assert any("FULLTEXT INDEX" in s for s in stmts)

"""The neomodel models (kgmem/graph/models.py) against what kgmem declares elsewhere, without Neo4j:
cypher/schema.cypher (constraints, indexes, full-text index), the export allow-list
(kgmem/maintenance/allowlist.py: every label, relationship type and endpoints) and the kind registry
(kgmem/kinds.py). A label, relationship or indexed property added there without a model fails here."""

from __future__ import annotations

import re

import pytest

from kgmem import cypher, kinds
from kgmem.graph import models
from kgmem.maintenance import allowlist

SCHEMA = cypher.load("schema")
BY_LABEL = {m.__label__: m for m in models.MODELS}
# Bookkeeping labels, not part of the graph a batch job reads.
INTERNAL = {"IngestedEvent"}
# The memories that mention concepts (the concept graph's agreed schema).
MEMORIES = ("Message", "Knowledge", "ErrorPattern", "Fix")


def _constrained_labels(schema: str) -> set[str]:
    """Labels with a uniqueness constraint on (ns, id) — kgmem's node identity."""
    return set(re.findall(r"FOR \(n:(\w+)\) REQUIRE \(n\.ns, n\.id\) IS UNIQUE", schema))


def _indexes(schema: str) -> list[tuple[str, list[str]]]:
    """(label, properties) of every range index on one label."""
    return [
        (label, re.findall(r"n\.(\w+)", props))
        for label, props in re.findall(r"CREATE INDEX \w+ IF NOT EXISTS FOR \(n:(\w+)\) ON \(([^)]*)\)", schema)
    ]


def _fulltext(schema: str) -> tuple[list[str], list[str]]:
    match = re.search(r"CREATE FULLTEXT INDEX \w+ IF NOT EXISTS\s+FOR \(n:([\w|]+)\)\s+ON EACH \[([^\]]*)\]", schema)
    assert match, "schema.cypher: no full-text index found"
    return match[1].split("|"), re.findall(r"n\.(\w+)", match[2])


def _sides(endpoints: tuple) -> tuple[set[str], set[str]]:
    """An allow-list entry as (start labels, end labels): either one ``(start, end)`` pair or
    ``((starts...), (ends...))`` — the labels each end of the type may have."""
    start, end = endpoints
    return ({start} if isinstance(start, str) else set(start)), ({end} if isinstance(end, str) else set(end))


def _allowed() -> dict[str, tuple[set[str], set[str]]]:
    return {rel_type: _sides(endpoints) for rel_type, endpoints in allowlist.RELATIONSHIPS.items()}


def _model_edges() -> set[tuple[str, str, str]]:
    return {(e.start, e.type, e.end) for m in models.MODELS for e in models.edges(m)}


def _concept_schema_present() -> bool:
    return "Concept" in _constrained_labels(SCHEMA) or "Concept" in allowlist.NODE_LABELS


def test_the_parsers_read_the_schema() -> None:
    # guards the checks below against a schema.cypher whose syntax the regexes no longer match
    assert {"ErrorPattern", "Fix", "Session", "Message", "Knowledge", "Entity"} <= _constrained_labels(SCHEMA)
    assert ("ErrorPattern", ["ns", "tool"]) in _indexes(SCHEMA)
    assert "ErrorPattern" in _fulltext(SCHEMA)[0] and "pattern" in _fulltext(SCHEMA)[1]


def test_every_label_kgmem_writes_has_a_model() -> None:
    graph_labels = (set(allowlist.NODE_LABELS) | _constrained_labels(SCHEMA)) - INTERNAL
    graph_labels = {label for label in graph_labels if not label.startswith("Kgmem")}
    assert graph_labels - set(BY_LABEL) == set()


@pytest.mark.parametrize("model", models.MODELS, ids=lambda m: m.__label__)
def test_every_model_is_a_constrained_label_of_the_schema(model) -> None:  # type: ignore[no-untyped-def]
    label = model.__label__
    if label == "Concept" and not _concept_schema_present():
        pytest.skip("the concept graph's schema (Concept constraint) is not in cypher/schema.cypher on this branch")
    assert label in _constrained_labels(SCHEMA), f"{label}: no (ns, id) uniqueness constraint in schema.cypher"
    assert label in allowlist.NODE_LABELS, f"{label}: not in the export allow-list"
    assert {"ns", "id"} <= models.stored_properties(model)


def test_indexed_properties_are_declared() -> None:
    for label, props in _indexes(SCHEMA):
        if label in BY_LABEL:
            missing = set(props) - models.stored_properties(BY_LABEL[label])
            assert not missing, f"{label}: indexed {sorted(missing)} not declared on the model"


def test_full_text_properties_are_declared() -> None:
    labels, props = _fulltext(SCHEMA)
    declared = set().union(*(models.stored_properties(BY_LABEL[label]) for label in labels))
    assert set(props) - declared == set()
    for label in labels:
        assert label in BY_LABEL, label


@pytest.mark.parametrize("kind", kinds.KINDS, ids=lambda k: k.name)
def test_every_searchable_kind_has_a_model_with_its_text(kind) -> None:  # type: ignore[no-untyped-def]
    assert kind.label in BY_LABEL
    assert kind.text_property in models.stored_properties(BY_LABEL[kind.label])


def test_the_searchable_models_are_the_kind_registry() -> None:
    searchable = {m.__label__ for m in models.MODELS if issubclass(m, models.Searchable)}
    assert searchable == {k.label for k in kinds.KINDS}


def test_every_allowed_relationship_is_modelled_from_its_start() -> None:
    """Each label an allow-listed type may start from has a RelationshipTo of that type, and each
    label it may end at is reached by one."""
    for rel_type, (starts, ends) in _allowed().items():
        outgoing = {
            (e.start, e.end)
            for m in models.MODELS
            for e in models.edges(m)
            if e.type == rel_type and e.direction == "out" and e.declared_on == e.start
        }
        assert {s for s, _ in outgoing} >= starts, (
            f"{rel_type}: no RelationshipTo from {sorted(starts - {s for s, _ in outgoing})}"
        )
        assert {e for _, e in outgoing} >= ends, (
            f"{rel_type}: no RelationshipTo reaches {sorted(ends - {e for _, e in outgoing})}"
        )


def test_every_modelled_relationship_is_allowed() -> None:
    allowed = _allowed()
    for start, rel_type, end in _model_edges():
        if "Concept" in (start, end) and not _concept_schema_present():
            continue  # checked against the agreed concept schema below until the allow-list has it
        assert rel_type in allowed, f"{rel_type} is not in kgmem/maintenance/allowlist.py"
        starts, ends = allowed[rel_type]
        assert start in starts and end in ends, f"({start})-[{rel_type}]->({end}) is not allowed by the allow-list"


def test_concept_mentions_follow_the_agreed_schema() -> None:
    mentions = {(s, e) for s, t, e in _model_edges() if t == "MENTIONS" and e == "Concept"}
    assert mentions == {(label, "Concept") for label in MEMORIES}
    assert {"ns", "id", "key", "name", "kind", "df", "ns_key"} <= models.stored_properties(models.Concept)


def test_relationship_models_match_their_type() -> None:
    # one StructuredRel per type, used wherever that type is declared
    seen: dict[str, type] = {}
    for model in models.MODELS:
        for attribute, definition in model.defined_properties(aliases=False, properties=False).items():
            rel_type, rel_model = definition.definition["relation_type"], definition.definition["model"]
            if rel_model is None:
                continue
            assert seen.setdefault(rel_type, rel_model) is rel_model, f"{model.__label__}.{attribute}"
    assert {"confidence", "successes", "failures", "alpha", "beta", "source"} <= models.stored_properties(
        models.ResolvedBy
    )


def test_models_declare_no_neomodel_indexes() -> None:
    # kgmem's schema is cypher/schema.cypher; install_all_labels must have nothing of its own to add
    for model in models.MODELS:
        for name, prop in model.defined_properties(aliases=False, rels=False).items():
            assert not (prop.index or prop.unique_index), f"{model.__label__}.{name}"


def test_for_namespace_refuses_an_empty_namespace() -> None:
    from kgmem.errors import ValidationError

    with pytest.raises(ValidationError, match="ns: must be a non-empty string"):
        models.for_namespace(models.ErrorPattern, "")

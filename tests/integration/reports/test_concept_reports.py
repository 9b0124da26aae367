"""The concept reports (top_concepts, concept_cooccurrence) against the concept fixture graph
(tests/integration/reports/cypher/fixture_concepts.cypher lists every memory and its concepts)."""

from __future__ import annotations

import math
import uuid

import pytest

from kgmem.errors import ReportParamError
from kgmem.reports import run_report

N = 10  # memories of the fixture namespace that mention a concept


def run(graph, fx, name, **params):  # type: ignore[no-untyped-def]
    return run_report(graph, name, {"ns": fx.ns, **params}).rows


def pmi(together: int, df_a: int, df_b: int) -> float:
    return round(math.log2(together * N / (df_a * df_b)), 4)


def test_top_concepts_rank_by_document_frequency(graph, concepts) -> None:
    rows = run(graph, concepts, "top_concepts")
    assert [(r["key"], r["df"]) for r in rows] == [
        ("caroline", 8),
        ("deploy", 3),
        ("melanie", 3),
        ("support group", 3),
        ("pottery class", 2),
        ("timeout", 2),
        ("painting", 1),
    ]
    by_key = {r["key"]: r for r in rows}
    caroline = by_key["caroline"]
    assert (caroline["concept"], caroline["kind"], caroline["share"]) == ("Caroline", "entity", 0.8)
    assert (caroline["messages"], caroline["knowledge"], caroline["errors"], caroline["fixes"]) == (6, 2, 0, 0)
    deploy = by_key["deploy"]
    assert (deploy["messages"], deploy["knowledge"], deploy["errors"], deploy["fixes"]) == (1, 0, 1, 1)
    # the other namespace's memory mentions support group too: it is not counted
    assert (by_key["support group"]["messages"], by_key["support group"]["knowledge"]) == (2, 1)


def test_top_concepts_filters(graph, concepts) -> None:
    assert [r["key"] for r in run(graph, concepts, "top_concepts", kind="entity")] == ["caroline", "melanie"]
    assert [r["key"] for r in run(graph, concepts, "top_concepts", min_df=3)] == [
        "caroline",
        "deploy",
        "melanie",
        "support group",
    ]
    assert [r["key"] for r in run(graph, concepts, "top_concepts", limit=2)] == ["caroline", "deploy"]


def test_cooccurrence_skips_the_concept_every_memory_carries(graph, concepts) -> None:
    rows = run(graph, concepts, "concept_cooccurrence")
    # Caroline (df 8 of 10 > max_df_share 0.5) is left out; pairs seen once are below min_count 2
    assert [(r["concept_a"], r["concept_b"], r["count"], r["df_a"], r["df_b"]) for r in rows] == [
        ("Deploy", "timeout", 2, 3, 2),
        ("Melanie", "support group", 2, 3, 3),
    ]
    assert [r["pmi"] for r in rows] == [pmi(2, 3, 2), pmi(2, 3, 3)]
    assert rows[0]["lift"] == pytest.approx(2 * N / (3 * 2), abs=1e-4)
    assert rows[0]["pair"] == "Deploy · timeout"


def test_cooccurrence_with_every_concept_and_pmi_order(graph, concepts) -> None:
    rows = run(graph, concepts, "concept_cooccurrence", max_df_share=1.0)
    got = [(r["pair"], r["count"]) for r in rows]
    assert got == [
        ("Caroline · Melanie", 3),
        ("Caroline · support group", 3),
        ("Deploy · timeout", 2),
        ("Melanie · support group", 2),
        ("Caroline · pottery class", 2),
    ]
    by_pmi = run(graph, concepts, "concept_cooccurrence", max_df_share=1.0, order_by="pmi")
    assert [r["pair"] for r in by_pmi] == [
        "Deploy · timeout",
        "Melanie · support group",
        "Caroline · Melanie",
        "Caroline · support group",
        "Caroline · pottery class",
    ]
    # the speaker co-occurs most often, but no more than chance would have it
    assert by_pmi[2]["pmi"] == pmi(3, 8, 3) < by_pmi[1]["pmi"]
    assert [
        r["pair"] for r in run(graph, concepts, "concept_cooccurrence", max_df_share=1.0, min_count=3, limit=1)
    ] == ["Caroline · Melanie"]


def test_cooccurrence_bounds_the_pairs_per_memory(graph, concepts) -> None:
    # Each memory keeps its 2 most specific concepts: m1 and m2 (support group, Melanie, Caroline)
    # drop Caroline, so the Caroline-Melanie pair is only counted where it is all a memory has.
    rows = run(graph, concepts, "concept_cooccurrence", max_df_share=1.0, min_count=1, per_memory=2)
    got = {r["pair"]: r["count"] for r in rows}
    assert got == {
        "Melanie · support group": 2,
        "Deploy · timeout": 2,
        "Melanie · pottery class": 1,
        "Caroline · pottery class": 1,
        "Caroline · Deploy": 1,
        "Caroline · painting": 1,
        "Caroline · support group": 1,
    }


def test_concept_reports_on_an_empty_namespace(graph) -> None:
    empty = f"test-empty-{uuid.uuid4().hex[:10]}"
    for name in ("top_concepts", "concept_cooccurrence"):
        assert run_report(graph, name, {"ns": empty}).rows == []


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("concept_cooccurrence", {"max_df_share": "1.5"}, r"max_df_share: must be in \[0\.\.1\]"),
        ("concept_cooccurrence", {"per_memory": "1"}, r"per_memory: must be in \[2\.\.1000\]"),
        ("concept_cooccurrence", {"order_by": "df"}, "order_by: must be one of count, pmi"),
        ("concept_cooccurrence", {"min_count": "two"}, "min_count: expected an integer"),
        ("top_concepts", {"kind": "person"}, "kind: must be one of \\*, entity, phrase"),
        ("top_concepts", {"min_df": "0"}, r"min_df: must be in \[1\.\.\]"),
        ("top_concepts", {"ns": ""}, "must be a non-empty namespace"),
    ],
)
def test_bad_parameters_are_refused_before_the_query(graph, concepts, name, params, message) -> None:
    with pytest.raises(ReportParamError, match=message):
        run_report(graph, name, {"ns": concepts.ns, **params})


@pytest.mark.parametrize("asked", ["Melanie", "MELANIE", "  melanie ", "Support Group", "DEPLOY"])
def test_the_what_do_we_know_starter_finds_a_concept_by_name_or_key_in_any_case(graph, concepts, asked) -> None:
    from kgmem.reports.guide import load_starters

    starter = next(s for s in load_starters() if s.name == "concept")
    records, _, _ = graph.driver.execute_query(starter.query, ns=concepts.ns, concept=asked, database_="neo4j")
    assert len(records) == 1
    row = records[0]
    # memories mentioning it; the concepts they share, most shared first
    expected = {
        "melanie": ({"m1", "m2", "m3"}, ["caroline", "support group", "pottery class"]),
        "support group": ({"m1", "m2", "k1"}, ["caroline", "melanie"]),
        "deploy": ({"m5", "e1", "f1"}, ["timeout", "caroline"]),
    }[asked.strip().lower()]
    assert row["c"]["key"] == asked.strip().lower()
    assert {m["id"] for m in row["memories"]} == expected[0]  # this namespace's memories only
    assert len(row["mentions"]) == len(expected[0])
    assert [c["key"] for c in row["related"]] == expected[1]
    if asked.strip().lower() == "deploy":  # the error comes with its fix
        assert [p.end_node["description"] for p in row["fixes"]] == ["raise the deploy timeout"]


def test_the_starter_finds_nothing_for_an_unknown_concept_or_another_namespace(graph, concepts) -> None:
    from kgmem.reports.guide import load_starters

    starter = next(s for s in load_starters() if s.name == "concept")
    for ns, concept in ((concepts.ns, "nobody"), (concepts.other, "melanie")):
        records, _, _ = graph.driver.execute_query(starter.query, ns=ns, concept=concept, database_="neo4j")
        assert records == []

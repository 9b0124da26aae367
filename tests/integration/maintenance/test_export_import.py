"""export -> wipe -> import gives an identical namespace; bad files are refused untouched."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from analyst_fixture import run_cypher  # type: ignore[import-not-found]

from kgmem.errors import ImportFormatError, NamespaceNotEmpty
from kgmem.maintenance import delete_namespace, export_namespace, import_namespace


def snapshot(mem) -> tuple[list, list]:  # type: ignore[no-untyped-def]
    """Independent of the export code: every node and relationship with all properties."""

    def norm(props: dict) -> str:
        return json.dumps(props, sort_keys=True, default=str)

    nodes = sorted(
        (tuple(sorted(r["labels"])), norm(r["props"]))
        for r in run_cypher(mem.driver, "snapshot_nodes", ns=mem.namespace)
    )
    rels = sorted(
        (r["type"], r["start"], r["end"], norm(r["props"]))
        for r in run_cypher(mem.driver, "snapshot_relationships", ns=mem.namespace)
    )
    return nodes, rels


def test_export_wipe_import_round_trips_losslessly(analyst, tmp_path: Path) -> None:
    mem, fx = analyst
    # through `kgmem ingest` too: a knowledge triple (Entity, RELATES_TO, ABOUT) and its idempotency marker
    report = mem.ingest(
        [
            {
                "type": "knowledge",
                "content": "Postgres runs on port 5433 in staging",
                "knowledge_type": "fact",
                "confidence": 0.8,
                "session": "s2",
                "subject": "postgres",
                "predicate": "runs on",
                "object": "port 5433",
            },
            {"type": "tool_result", "tool": "psql", "error": "connection refused on port 5433", "session": "s2"},
        ]
    )
    assert not report.errors
    before = snapshot(mem)
    labels = {labels[0] for labels, _ in before[0]}
    assert {"Entity", "IngestedEvent", "Concept"} <= labels, labels
    # the concept graph travels too: every kind of memory's MENTIONS, each Concept with its df
    mentions = {r[1] for r in before[1] if r[0] == "MENTIONS"}
    assert mentions, "no MENTIONS edges in the fixture"
    assert len(before[0]) >= 20 and len(before[1]) >= 20
    path = tmp_path / "ns.jsonl"
    summary = export_namespace(mem.graph, mem.namespace, path)
    assert not summary.skipped
    assert (summary.total_nodes, summary.total_relationships) == (len(before[0]), len(before[1]))
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["ns"] == mem.namespace and json.loads(lines[-1])["end"] is True

    with pytest.raises(NamespaceNotEmpty, match="--replace"):
        import_namespace(mem.graph, path)

    delete_namespace(mem.graph, None, mem.namespace)
    assert snapshot(mem) == ([], [])
    result = import_namespace(mem.graph, path, batch=7)  # small batches: many flushes per label/type
    assert sum(result.nodes.values()) == len(before[0])
    after = snapshot(mem)
    assert after == before
    # types survive: floats stay floats, ints stay ints, lists stay lists
    k1 = next(json.loads(p) for labels, p in after[0] if json.loads(p)["id"] == fx.ids["k1"])
    assert isinstance(k1["confidence"], float) and isinstance(k1["times_seen"], int)
    assert k1["source_sessions"] == ["s2"] and math.isclose(k1["alpha"], 3.2)

    # --replace over a populated namespace gives the same result again
    import_namespace(mem.graph, path, replace=True, vectors=mem.vectors)
    assert snapshot(mem) == before


def _write(path: Path, docs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


@pytest.mark.parametrize(
    ("docs", "message"),
    [
        (
            [{"kgmem_export": 1, "ns": "NS"}, {"node": "Evil`) DETACH DELETE n //", "id": "a", "props": {}}],
            "label .* is not allowed",
        ),
        (
            [{"kgmem_export": 1, "ns": "NS"}, {"node": "Tool", "id": "a", "props": {"id": "a", "ns": "NS"}}],
            "no end marker",
        ),
        (
            [{"kgmem_export": 1, "ns": "NS"}, {"rel": "OWNS", "start": "a", "end": "b"}, {"end": True}],
            "relationship type 'OWNS' is not allowed",
        ),
        (
            [
                {"kgmem_export": 1, "ns": "NS"},
                {"node": "Tool", "id": "a", "props": {"id": "a", "ns": "other"}},
                {"end": True, "nodes": 1, "relationships": 0},
            ],
            "must match",
        ),
        (
            [
                {"kgmem_export": 1, "ns": "NS"},
                {"rel": "CAUSED_BY", "start": "a", "end": "b", "props": {}},
                {"end": True, "nodes": 0, "relationships": 1},
            ],
            "does not hold",
        ),
        ([{"hello": 1}], "not a kgmem export header"),
        (
            [
                {"kgmem_export": 1, "ns": "NS"},
                {"node": "Tool", "id": "a", "props": {"id": "a", "ns": "NS"}},
                {"node": "ErrorPattern", "id": "e", "props": {"id": "e", "ns": "NS"}},
                {"rel": "CAUSED_BY", "start": "e", "end": "a", "props": {}},
                {"node": "Tool", "id": "b", "props": {"id": "b", "ns": "NS"}},
                {"end": True, "nodes": 3, "relationships": 1},
            ],
            "node after relationships",
        ),
        (
            [
                {"kgmem_export": 1, "ns": "NS"},
                {"end": True, "nodes": 0, "relationships": 0},
                {"node": "Tool", "id": "a", "props": {"id": "a", "ns": "NS"}},
            ],
            "content after the end marker",
        ),
    ],
)
def test_bad_files_are_refused_before_anything_is_written(graph, ns: str, tmp_path: Path, docs, message) -> None:
    docs = json.loads(json.dumps(docs).replace('"NS"', json.dumps(ns)))
    path = _write(tmp_path / "bad.jsonl", docs)
    with pytest.raises(ImportFormatError, match=message):
        import_namespace(graph, path)
    assert graph.read("maintenance/count_namespace", ns=ns)[0]["n"] == 0

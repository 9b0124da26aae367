"""`kgmem import --replace` is all or nothing (defect 1): every property value Neo4j
cannot store is refused before anything is written, and the write itself is one transaction —
6 nodes / 4 relationships stay 6 / 4 whatever goes wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem.cli import main
from kgmem.errors import ImportFormatError
from kgmem.maintenance import codec, export_namespace, import_namespace

SEED = """
CREATE (t:Tool {ns: $ns, id: 't1', name: 'psql'}),
       (e1:ErrorPattern {ns: $ns, id: 'e1', pattern: 'connection refused', occurrences: 3}),
       (e2:ErrorPattern {ns: $ns, id: 'e2', pattern: 'timeout', occurrences: 1, tags: ['a', 'b']}),
       (s:Session {ns: $ns, id: 's1', key: 'run-1'}),
       (f:Fix {ns: $ns, id: 'f1', description: 'start the db'}),
       (k:Knowledge {ns: $ns, id: 'k1', content: 'db on 5433', confidence: 0.8, times_seen: 2}),
       (e1)-[:CAUSED_BY]->(t), (e2)-[:CAUSED_BY]->(t), (e1)-[:IN_SESSION {count: 3}]->(s),
       (e1)-[:RESOLVED_BY {confidence: 0.6}]->(f)
"""
COUNT = "MATCH (n {ns: $ns}) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS nodes, count(r) AS rels"

# Values that pass JSON parsing but Neo4j cannot store as a property (what used to delete the
# namespace and then fail: 6 / 4 -> 1 / 0).
BAD_VALUES = {
    "mixed-type list": [1, "a"],
    "nested list": [[1, 2], [3]],
    "list with null": ["a", None],
    "int beyond 64 bits": 2**70,
    "negative int beyond 64 bits": -(2**64),
    "null value": None,
    "map value": {"a": 1},
}


def _counts(driver, ns: str) -> tuple[int, int]:
    record = driver.execute_query(COUNT, ns=ns).records[0]
    return record["nodes"], record["rels"]


def _seeded_export(driver, graph, ns: str, path: Path) -> list[dict]:
    driver.execute_query(SEED, ns=ns)
    assert _counts(driver, ns) == (6, 4)
    export_namespace(graph, ns, path)
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, docs: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    return path


def _with_value(docs: list[dict], key: str, value: object) -> list[dict]:
    """The export with one node's property ``key`` set to ``value`` (the last node: written last)."""
    docs = json.loads(json.dumps(docs))
    last_node = max(i for i, d in enumerate(docs) if "node" in d)
    docs[last_node]["props"][key] = value
    return docs


@pytest.mark.parametrize("kind", sorted(BAD_VALUES))
def test_import_replace_refuses_unstorable_values_and_changes_nothing(driver, graph, ns, tmp_path, kind) -> None:
    docs = _seeded_export(driver, graph, ns, tmp_path / "good.jsonl")
    bad = _write(tmp_path / "bad.jsonl", _with_value(docs, "extra", BAD_VALUES[kind]))
    with pytest.raises(ImportFormatError, match=r"bad\.jsonl:\d+"):
        import_namespace(graph, bad, replace=True)
    assert _counts(driver, ns) == (6, 4)


def test_import_replace_refuses_an_empty_property_key(driver, graph, ns, tmp_path) -> None:
    docs = _seeded_export(driver, graph, ns, tmp_path / "good.jsonl")
    bad = _write(tmp_path / "bad.jsonl", _with_value(docs, "", "x"))
    with pytest.raises(ImportFormatError, match="empty property key"):
        import_namespace(graph, bad, replace=True)
    assert _counts(driver, ns) == (6, 4)


def test_a_failure_inside_the_write_rolls_everything_back(driver, graph, ns, tmp_path, monkeypatch) -> None:
    """Even a value the validator missed (simulated by switching it off) cannot half-import: the
    delete and every batch are one transaction."""
    docs = _seeded_export(driver, graph, ns, tmp_path / "good.jsonl")
    bad = _write(tmp_path / "bad.jsonl", _with_value(docs, "extra", [1, "a"]))
    monkeypatch.setattr(codec, "check_storable", lambda value, where: None)
    with pytest.raises(ImportFormatError, match="nothing was changed"):
        import_namespace(graph, bad, replace=True, batch=1)
    assert _counts(driver, ns) == (6, 4)


def test_good_replace_still_works_and_cli_error_is_one_line(
    driver, graph, ns, tmp_path, base_settings, monkeypatch
) -> None:
    docs = _seeded_export(driver, graph, ns, tmp_path / "good.jsonl")
    summary = import_namespace(graph, tmp_path / "good.jsonl", replace=True)
    assert summary.replaced and sum(summary.nodes.values()) == 6 and _counts(driver, ns) == (6, 4)
    bad = _write(tmp_path / "bad.jsonl", _with_value(docs, "extra", 2**70))
    monkeypatch.setenv("KGMEM_CHROMA__PATH", str(tmp_path / "chroma"))
    result = CliRunner().invoke(main, ["import", str(bad), "--replace", "--no-reindex"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "does not fit in 64 bits" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert _counts(driver, ns) == (6, 4)

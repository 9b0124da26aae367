"""Bulk ingest on the real stack: batching, idempotency, bad lines, delegation, CLI — the Python
calls run with both clients (``client``: KGMem and AsyncKGMem)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kgmem.cli import main

GOOD = [
    {
        "type": "turn",
        "session": "s1",
        "role": "user",
        "text": "The build breaks on the arm64 runner.",
        "ref": "t1",
        "ts": "2024-05-01T10:00:00+00:00",
    },
    {"type": "turn", "session": "s1", "role": "assistant", "text": "Pin the base image to bookworm.", "ref": "t2"},
    {
        "type": "tool_result",
        "tool": "docker",
        "params": {"image": "app"},
        "error": "exec format error",
        "session": "s1",
    },
    {
        "type": "knowledge",
        "content": "The arm64 runner needs a multi-arch base image",
        "knowledge_type": "fact",
        "confidence": 0.8,
        "session": "s1",
    },
    {"type": "turn", "session": "s1", "role": "user", "text": "That fixed it, thanks.", "ref": "t3"},
    {"type": "session_end", "session": "s1"},
]


def write_jsonl(path: Path, events: list, bad_at: int | None = None, bad: str = '{"type": "turn", "session": ') -> Path:
    lines = [json.dumps(e) for e in events]
    if bad_at is not None:
        lines.insert(bad_at - 1, bad)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def count(driver, ns: str, label: str) -> int:
    rows = driver.execute_query(f"MATCH (n:{label} {{ns: $ns}}) RETURN count(n) AS n", ns=ns).records
    return rows[0]["n"]


def refs(driver, ns: str, session: str) -> list[str]:
    """The session's message refs along its NEXT chain."""
    rows = driver.execute_query(
        "MATCH (m:Message {ns: $ns})-[:PART_OF]->(:Session {ns: $ns, key: $s}) WHERE NOT ()-[:NEXT]->(m) "
        "MATCH p = (m)-[:NEXT*0..]->(last) RETURN [x IN nodes(p) | x.ref] AS refs ORDER BY length(p) DESC LIMIT 1",
        ns=ns,
        s=session,
    ).records
    return rows[0]["refs"]


def test_ingest_file_with_one_bad_line_stores_the_rest_and_names_it(client, driver, ns, tmp_path):
    mem = client
    path = write_jsonl(tmp_path / "events.jsonl", GOOD, bad_at=3)
    report = mem.ingest(path, ns=ns, batch_size=2)
    assert [e.line for e in report.errors] == [3]
    assert "not valid JSON" in report.errors[0].message
    assert (report.turns, report.turns_new, report.tool_results, report.knowledge, report.sessions_ended) == (
        3,
        3,
        1,
        1,
        1,
    )
    assert refs(driver, ns, "s1") == ["t1", "t2", "t3"]  # NEXT chain across batches
    assert count(driver, ns, "ErrorPattern") == 1 and count(driver, ns, "Knowledge") == 1
    ended = driver.execute_query("MATCH (s:Session {ns: $ns, key: 's1'}) RETURN s.ended_at AS e", ns=ns).records[0]["e"]
    assert ended is not None
    hits = mem.search("arm64 runner base image", ns=ns, k=5)
    assert {"message", "knowledge"} <= {h.kind for h in hits.hits}


def test_reingest_adds_nothing(client, driver, ns, tmp_path):
    mem = client
    path = write_jsonl(tmp_path / "events.jsonl", GOOD)
    mem.ingest(path, ns=ns)
    occurrences = driver.execute_query("MATCH (e:ErrorPattern {ns: $ns}) RETURN e.occurrences AS n", ns=ns).records[0][
        "n"
    ]
    again = mem.ingest(path, ns=ns)
    assert (
        again.ok and again.turns_new == 0 and again.already_ingested == 2 and again.knowledge == 0
    )  # 1 tool result + 1 knowledge
    assert count(driver, ns, "Message") == 3 and count(driver, ns, "Knowledge") == 1
    assert (
        driver.execute_query("MATCH (e:ErrorPattern {ns: $ns}) RETURN e.occurrences AS n", ns=ns).records[0]["n"]
        == occurrences
    )
    assert mem.vectors.count(ns, "message") == 3


def test_ingest_python_events_reports_bad_items_by_number(client, ns):
    mem = client
    events = [GOOD[0], {"type": "turn", "session": "s1", "role": "user"}, GOOD[1]]
    report = mem.ingest(events, ns=ns)
    assert [(e.line, "turn.text" in e.message) for e in report.errors] == [(2, True)]
    assert report.turns == 2


def test_cli_ingest_and_search(settings, ns, tmp_path, monkeypatch, mem):
    monkeypatch.setenv("KGMEM_NAMESPACE", ns)
    monkeypatch.setenv("KGMEM_CHROMA__PATH", str(settings.chroma_path))
    path = write_jsonl(tmp_path / "events.jsonl", GOOD, bad_at=2, bad='{"type": "tweet"}')
    runner = CliRunner()
    result = runner.invoke(main, ["ingest", str(path), "--no-progress"])
    assert result.exit_code == 1
    assert f"{path}:2: type: must be one of" in result.stderr
    assert "3 turns (3 new)" in result.stdout
    result = runner.invoke(main, ["search", "arm64 runner", "--json", "--k", "3", "--kinds", "message"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["query_id"] and doc["hits"][0]["ref"] == "t1" and "breakdown" in doc["hits"][0]
    queries = write_jsonl(tmp_path / "q.jsonl", [{"query": "arm64 runner"}, {"query": "base image", "k": 1}])
    result = runner.invoke(main, ["search", "--queries", str(queries), "--json"])
    assert result.exit_code == 0, result.output
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(docs) == 2 and len(docs[1]["hits"]) == 1
    result = runner.invoke(main, ["search", "arm64", "--session", "s1", "--preset", "fast"])
    assert result.exit_code == 0 and "ref=t1" in result.stdout

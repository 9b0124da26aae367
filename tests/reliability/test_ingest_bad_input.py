"""`kgmem ingest` regression tests (defects 3, 4, 7): one bad line never costs its
neighbours, bad timestamps are refused on every path, and the same input gives the same graph
whatever the batch size or how often it is ingested."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from ingest_data import graph_counts, write_jsonl  # type: ignore[import-not-found]

from kgmem.cli import main
from kgmem.errors import ValidationError
from kgmem.maintenance import delete_namespace

TOOL = {"type": "tool_result", "tool": "psql", "error": "connection refused", "session": "s1"}
KNOW = {
    "type": "knowledge",
    "content": "Postgres listens on 5433 in staging",
    "knowledge_type": "fact",
    "confidence": 0.8,
    "session": "s1",
}
TURN = {"type": "turn", "session": "s1", "role": "user", "text": "the database refuses connections"}

BAD_LINES = {
    "unknown knowledge_type": (json.dumps({**KNOW, "knowledge_type": "rumour"}).encode(), "knowledge_type"),
    "non-UTF-8 bytes": (b'{"type": "turn", "session": "s1", "role": "user", "text": "caf\xe9"}', "not UTF-8"),
    "8 KB tool name": (json.dumps({**TOOL, "tool": "t" * 9000}).encode(), "tool_result.tool: longer than"),
    "8 KB session": (json.dumps({**TURN, "session": "s" * 9000}).encode(), "turn.session: longer than"),
    "8 KB ref": (json.dumps({**TURN, "ref": "r" * 9000}).encode(), "turn.ref: longer than"),
    "bad ts": (json.dumps({**TOOL, "ts": "not-a-date"}).encode(), "tool_result.ts: not an ISO-8601"),
    "bad turn ts": (json.dumps({**TURN, "ts": "yesterday"}).encode(), "turn.ts: not an ISO-8601"),
    "long triple term": (
        json.dumps({**KNOW, "subject": "x" * 300, "predicate": "p", "object": "o"}).encode(),
        "knowledge.subject",
    ),
}


def _good_events() -> list[dict]:
    events = []
    for i in range(12):
        events.append({**TOOL, "params": {"i": i}})
        events.append({**TURN, "text": f"turn {i}: the database refuses connections"})
        events.append({**KNOW, "content": f"Service {i} listens on port {5400 + i}"})
    return events


@pytest.mark.parametrize("batch_size", [1, 7, 256])
def test_every_valid_line_lands_and_every_bad_line_is_named(mem, ns, tmp_path, batch_size) -> None:
    bad_at = {3 + 4 * i: raw for i, (raw, _) in enumerate(BAD_LINES.values())}
    path = write_jsonl(tmp_path / "events.jsonl", _good_events(), extra_lines=bad_at)
    report = mem.ingest(path, ns=ns, batch_size=batch_size)
    assert sorted(e.line for e in report.errors) == sorted(bad_at)
    for line, (_, reason) in zip(sorted(bad_at), BAD_LINES.values()):
        assert reason in next(e.message for e in report.errors if e.line == line)
    assert (report.tool_results, report.turns, report.knowledge) == (12, 12, 12)
    counts = graph_counts(mem.driver, ns)
    assert counts["occurrences"] == 12 and counts["messages"] == 12 and counts["knowledge"] == 12


def test_cli_names_file_and_line_and_exits_1(mem, ns, tmp_path, settings, monkeypatch) -> None:
    path = write_jsonl(tmp_path / "events.jsonl", _good_events()[:3], extra_lines={2: BAD_LINES["non-UTF-8 bytes"][0]})
    monkeypatch.setenv("KGMEM_CHROMA__PATH", str(settings.chroma_path))
    result = CliRunner().invoke(main, ["ingest", str(path), "--ns", ns, "--no-progress"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{path}:2: not UTF-8" in result.stderr
    assert graph_counts(mem.driver, ns)["messages"] == 1


def test_a_batch_neo4j_rejects_is_retried_line_by_line(mem, ns, monkeypatch) -> None:
    """A value no parser check catches (simulated: the validator's limit lifted) is rejected by
    Neo4j for the whole batch; the batch is split so only that line is reported."""
    from kgmem.ingest import events as events_module
    from kgmem.learning import plan as plan_module

    monkeypatch.setattr(events_module, "MAX_IDENTIFIER_BYTES", 10**9)
    monkeypatch.setattr(plan_module, "bounded_key", lambda value: value)  # the API would hash it: lift that too
    batch = [{**TOOL, "params": {"i": i}} for i in range(5)]
    batch.insert(2, {**TOOL, "tool": "t" * 40_000})  # over Neo4j's index key limit
    report = mem.ingest(batch, ns=ns, batch_size=256)
    assert [e.line for e in report.errors] == [3] and "Neo4j" in report.errors[0].message
    assert report.tool_results == 5 and graph_counts(mem.driver, ns)["occurrences"] == 5


def test_bad_timestamps_are_refused_on_every_path(mem, ns) -> None:
    with pytest.raises(ValidationError, match="ts: not an ISO-8601"):
        mem.tool_results([{"tool": "psql", "error": "boom", "ts": "not-a-date"}], ns=ns)
    with pytest.raises(ValidationError, match="ts: not an ISO-8601"):
        mem.turn(session="s1", role="user", text="hello", ts="not-a-date", ns=ns)
    mem.tool_results([{"tool": "psql", "error": "boom", "session": "s", "ts": "2026-01-02T03:04:05+02:00"}], ns=ns)
    records, _, _ = mem.driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns})-[r:IN_SESSION]->() RETURN e.first_seen AS f, r.last_seen AS l", ns=ns
    )
    assert records[0]["f"] == records[0]["l"] == "2026-01-02T01:04:05+00:00"  # one canonical UTC form
    for name in ("top_errors", "error_trend", "session_timeline"):
        mem.report(name, ns=ns)


def test_reports_survive_bad_timestamps_already_stored(mem, ns) -> None:
    """Data written before timestamps were validated must not break the namespace's reports."""
    mem.driver.execute_query(
        "CREATE (e:ErrorPattern {ns: $ns, id: 'old', tool: 'psql', pattern: 'p', occurrences: 2, "
        "last_seen: 'not-a-date', first_seen: 'not-a-date'})-[:IN_SESSION {count: 2, last_seen: 'not-a-date'}]->"
        "(:Session {ns: $ns, id: 'old-s', started_at: 'not-a-date'})",
        ns=ns,
    )
    mem.tool_results([{"tool": "psql", "error": "fresh failure", "session": "s"}], ns=ns)
    top = mem.report("top_errors", ns=ns)
    assert {r["pattern"]: r["recent"] for r in top}["p"] == 0 and len(top) == 2
    assert sum(r["errors"] for r in mem.report("error_trend", ns=ns)) == 1
    assert len(mem.report("session_timeline", ns=ns)) == 1


def test_identical_lines_are_distinct_events_at_any_batch_size(mem, ns, tmp_path) -> None:
    """The rule (docs/retrieval.md, "Bulk ingest"): identical lines are distinct events unless they carry the same
    explicit "id"; the count never depends on --batch-size, and a re-run adds nothing."""
    lines = [TOOL] * 10 + [{**TOOL, "id": "ev-1", "params": {"x": 1}}] * 3 + [KNOW] * 4
    path = write_jsonl(tmp_path / "same.jsonl", lines)
    results = []
    for batch_size, suffix in ((1, "a"), (4, "b"), (256, "c")):
        target = f"{ns}-{suffix}"
        try:
            mem.ingest(path, ns=target, batch_size=batch_size)
            mem.ingest(path, ns=target, batch_size=batch_size)  # re-ingest: nothing grows
            counts = graph_counts(mem.driver, target)
            results.append(
                (
                    counts["occurrences"],
                    counts["in_session_count"],
                    counts["knowledge"],
                    counts["times_seen"],
                    counts["marks"],
                )
            )
        finally:
            delete_namespace(mem.graph, None, target)
    assert results[0] == results[1] == results[2] == (11, 11, 1, 4, 15)


def test_reingesting_a_knowledge_file_does_not_grow_times_seen(mem, ns, tmp_path) -> None:
    # Near-duplicates merge into one item: the case whose times_seen used to grow on every re-run.
    lines = [KNOW, {**KNOW, "content": "Postgres listens on port 5433 in staging."}, {**KNOW, "session": "s2"}]
    path = write_jsonl(tmp_path / "k.jsonl", lines)
    mem.ingest(path, ns=ns)
    first = graph_counts(mem.driver, ns)
    for _ in range(2):
        again = mem.ingest(path, ns=ns)
        assert again.knowledge == 0 and again.already_ingested == 3
    assert graph_counts(mem.driver, ns) == first


def test_the_in_transaction_guard_refuses_events_marked_meanwhile(mem, ns, monkeypatch) -> None:
    """Another writer (or a driver retry whose first commit went through) marks an event between our
    read of the marks and our write: the guarded statement writes nothing, the ingester re-reads the
    marks and applies only the rest — each event exactly once."""
    from kgmem.ingest.ingester import Ingester

    facts = [
        "Postgres runs on port 5433 in staging",
        "The CI cache lives in an S3 bucket",
        "Deploys need a signed release tag",
    ]
    lines = [{**TOOL, "params": {"i": i}} for i in range(4)] + [{**KNOW, "content": fact} for fact in facts]
    mem.ingest(lines[:1] + lines[4:5], ns=ns)  # the first tool result and knowledge line land (and are marked)
    real = Ingester._unmarked
    stale: set[str] = set()

    def unmarked_once_stale(self, batch):  # type: ignore[no-untyped-def]  # an operation, as the real one
        kind = type(batch[0].event).__name__
        if kind in stale:
            return (yield from real(self, batch))
        stale.add(kind)
        return list(batch)  # the first read of each kind misses the marks already there

    monkeypatch.setattr(Ingester, "_unmarked", unmarked_once_stale)
    report = mem.ingest(lines, ns=ns)
    assert stale == {"ToolResultEvent", "KnowledgeEvent"}
    assert report.ok and report.tool_results == 3 and report.knowledge == 2 and report.already_ingested == 2
    counts = graph_counts(mem.driver, ns)
    assert (
        counts["occurrences"] == 4 and counts["knowledge"] == 3 and counts["times_seen"] == 3 and counts["marks"] == 7
    )

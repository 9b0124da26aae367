"""`kgmem learning status|history` and the batch API on the real stack."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kgmem import KGMem
from kgmem.cli import main
from kgmem.learning import ToolEvent


def test_batch_api_counts_like_the_single_api(mem: KGMem, driver, ns: str) -> None:
    events = []
    for i in range(30):
        session = f"s{i % 3}"
        events.append(
            ToolEvent(
                "http",
                {"timeout": 5},
                error=f"ReadTimeoutError: Read timed out. (read timeout={i})",
                session=session,
                ts=f"2024-01-01T00:00:{i:02d}+00:00",
            )
        )
    events.append({"tool": "http", "params": {"timeout": 60}, "session": "s0", "ts": "2024-01-01T00:01:00+00:00"})
    events.append({"tool": "psql", "error": 'FATAL: database "x" does not exist', "session": "s1"})
    result = mem.tool_results(events)
    assert (result.events, result.errors, result.successes) == (32, 31, 1)
    assert result.new_patterns == 2 and result.fixes_observed == 1
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns})-[r:IN_SESSION]->(s:Session {ns: $ns}) "
        "RETURN e.tool AS tool, e.occurrences AS occ, e.first_seen AS first, e.last_seen AS last, "
        "s.key AS session, r.count AS n, r.open AS open ORDER BY tool, session",
        ns=ns,
    )
    http = [r for r in records if r["tool"] == "http"]
    assert {r["occ"] for r in http} == {30} and sum(r["n"] for r in http) == 30
    assert http[0]["first"] == "2024-01-01T00:00:00+00:00" and http[0]["last"] == "2024-01-01T00:00:29+00:00"
    assert [r["open"] for r in http] == [False, True, True]  # s0 was closed by the success
    obs = mem.tool_result("http", {"timeout": 5}, error="ReadTimeoutError: Read timed out. (read timeout=7)")
    assert obs.occurrences == 31 and obs.fixes[0].description == "http: set timeout=60 (was 5)"


def test_cli_status_and_history(mem: KGMem, ns: str) -> None:
    mem.tool_result(
        "git",
        {"cwd": "/tmp"},
        error="fatal: not a git repository (or any of the parent directories): .git",
        session="s",
    )
    mem.tool_result("git", {"cwd": "/repo"}, session="s")
    mem.tool_result("llm", {}, error="API Error: 529 Overloaded", session="s")
    runner = CliRunner()
    out = runner.invoke(main, ["learning", "status", "--ns", ns, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["patterns"] == 2 and data["fixes"] == 1
    assert {c["category"] for c in data["by_category"]} == {"tool_error", "provider_error"}
    assert {"pending", "spooled", "replayed", "dropped"} <= set(data["spool"])
    text = runner.invoke(main, ["learning", "status", "--ns", ns])
    assert text.exit_code == 0 and "provider_error" in text.output and "spool" in text.output
    hist = runner.invoke(main, ["learning", "history", "--ns", ns, "--limit", "5", "--json"])
    rows = json.loads(hist.output)
    assert len(rows) == 2
    git = next(r for r in rows if r["tool"] == "git")
    assert git["best_fix"]["description"] == "git: set cwd=/repo (was /tmp)"
    plain = runner.invoke(main, ["learning", "history", "--ns", ns])
    assert plain.exit_code == 0 and "fix (observed" in plain.output


def test_a_repeated_error_costs_one_read_and_no_model_call(mem: KGMem, monkeypatch) -> None:
    """Deferred repeats (the default): the repeat is answered by one read; its occurrence is written
    by the next flush, as one apply_events."""
    calls = {"embed": 0, "write": [], "read": []}
    real_embed, real_write, real_read = mem.embedder.embed, mem.graph.write, mem.graph.read

    def embed(texts):
        calls["embed"] += 1
        return real_embed(texts)

    monkeypatch.setattr(mem.embedder, "embed", embed)
    monkeypatch.setattr(mem.graph, "write", lambda name, **p: calls["write"].append(name) or real_write(name, **p))
    monkeypatch.setattr(mem.graph, "read", lambda name, **p: calls["read"].append(name) or real_read(name, **p))
    mem.tool_result(
        "s3", {}, error="AccessDenied: Access Denied for bucket at 2024-01-01T00:00:00Z (req 1A2B3C4D5E6F7A8B)"
    )
    assert calls["embed"] == 1 and calls["write"] == ["learning/apply_events", "learning/link_similar"]
    calls.update(embed=0, write=[], read=[])
    obs = mem.tool_result(
        "s3", {}, error="AccessDenied: Access Denied for bucket at 2025-06-30T12:00:00Z (req 9F8E7D6C5B4A3F2E)"
    )
    assert obs.occurrences == 2 and not obs.is_new
    assert calls["embed"] == 0 and calls["read"] == ["learning/known_fixes"]
    mem.flush()  # (or the flusher thread, within defer_flush_ms: then the write happened already)
    assert calls["embed"] == 0 and calls["write"] == ["learning/apply_events"]
    calls.update(write=[])
    assert mem.learning.flush() == 0 and calls["write"] == []  # nothing left: counted once
    assert [r["occurrences"] for r in mem.report("top_errors")] == [2]


def test_without_deferral_a_repeated_error_costs_one_write(settings, driver, embedder, monkeypatch) -> None:
    off = settings.model_copy(update={"learning": settings.learning.model_copy(update={"defer_flush_ms": 0})})
    with KGMem(off, driver=driver, embedder=embedder) as mem:
        mem.tool_result(
            "s3", {}, error="AccessDenied: Access Denied for bucket at 2024-01-01T00:00:00Z (req 1A2B3C4D5E6F7A8B)"
        )
        calls = {"write": [], "read": []}
        real_write, real_read = mem.graph.write, mem.graph.read
        monkeypatch.setattr(mem.graph, "write", lambda name, **p: calls["write"].append(name) or real_write(name, **p))
        monkeypatch.setattr(mem.graph, "read", lambda name, **p: calls["read"].append(name) or real_read(name, **p))
        obs = mem.tool_result(
            "s3", {}, error="AccessDenied: Access Denied for bucket at 2025-06-30T12:00:00Z (req 9F8E7D6C5B4A3F2E)"
        )
        assert obs.occurrences == 2
        assert calls["write"] == ["learning/apply_events"] and calls["read"] == []


def test_backfill_without_indexing_then_index_pending(mem: KGMem, driver, ns: str) -> None:
    errors = [
        "ReadTimeoutError: HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)",
        "pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', "
        "port=443): Read timed out.",
    ]
    result = mem.tool_results([{"tool": "pip", "error": e} for e in errors], index=False)
    assert result.new_patterns == 2 and mem.vectors.count(ns, "error") == 0
    assert mem.index_errors() == 2 and mem.index_errors() == 0
    assert mem.vectors.count(ns, "error") == 2
    records, _, _ = driver.execute_query(
        "MATCH (a:ErrorPattern {ns: $ns})-[s:SIMILAR_TO]-(b:ErrorPattern {ns: $ns}) WHERE a.id < b.id "
        "RETURN count(s) AS n, collect(a.vector_pending) AS pending",
        ns=ns,
    )
    assert records[0]["n"] == 1 and records[0]["pending"] == [False]

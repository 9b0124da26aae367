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
        events.append(ToolEvent("http", {"timeout": 5}, error=f"ReadTimeoutError: Read timed out. (read timeout={i})",
                                session=session, ts=f"2024-01-01T00:00:{i:02d}+00:00"))
    events.append({"tool": "http", "params": {"timeout": 60}, "session": "s0", "ts": "2024-01-01T00:01:00+00:00"})
    events.append({"tool": "psql", "error": "FATAL: database \"x\" does not exist", "session": "s1"})
    result = mem.tool_results(events)
    assert (result.events, result.errors, result.successes) == (32, 31, 1)
    assert result.new_patterns == 2 and result.fixes_observed == 1
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns})-[r:IN_SESSION]->(s:Session {ns: $ns}) "
        "RETURN e.tool AS tool, e.occurrences AS occ, e.first_seen AS first, e.last_seen AS last, "
        "s.key AS session, r.count AS n, r.open AS open ORDER BY tool, session", ns=ns)
    http = [r for r in records if r["tool"] == "http"]
    assert {r["occ"] for r in http} == {30} and sum(r["n"] for r in http) == 30
    assert http[0]["first"] == "2024-01-01T00:00:00+00:00" and http[0]["last"] == "2024-01-01T00:00:29+00:00"
    assert [r["open"] for r in http] == [False, True, True]  # s0 was closed by the success
    obs = mem.tool_result("http", {"timeout": 5}, error="ReadTimeoutError: Read timed out. (read timeout=7)")
    assert obs.occurrences == 31 and obs.fixes[0].description == "http: set timeout=60 (was 5)"


def test_cli_status_and_history(mem: KGMem, ns: str) -> None:
    mem.tool_result("git", {"cwd": "/tmp"}, error="fatal: not a git repository (or any of the parent directories): .git",
                    session="s")
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

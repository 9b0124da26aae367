"""Deterministic JSONL inputs for the ingest reliability tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ERRORS = [
    "Error: connect ECONNREFUSED 10.0.0.{n}:5432",
    "ReadTimeoutError: HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout={n})",
    "PermissionError: [Errno 13] Permission denied: '/var/lib/app/{n}.lock'",
    "ModuleNotFoundError: No module named 'pkg{m}'",
]


def mixed_events(
    n_tools: int, n_sessions: int = 20, turns_per_session: int = 6, n_knowledge: int = 40
) -> list[dict[str, Any]]:
    """Tool results (errors, repeats, successes after failures), turns, knowledge and session ends."""
    events: list[dict[str, Any]] = []
    for i in range(n_tools):
        session = f"s{i % n_sessions}"
        if i % 10 == 9:
            events.append(
                {"type": "tool_result", "tool": "psql", "params": {"port": 6432}, "session": session, "result": "ok"}
            )
        else:
            events.append(
                {
                    "type": "tool_result",
                    "tool": ["psql", "http", "fs", "py"][i % 4],
                    "params": {"port": 5432, "try": i % 3},
                    "error": ERRORS[i % 4].format(n=i % 7, m=i % 5),
                    "session": session,
                }
            )
        if i % 25 == 0:
            s = f"s{(i // 25) % n_sessions}"
            for t in range(turns_per_session // 2):
                events.append(
                    {
                        "type": "turn",
                        "session": s,
                        "role": "user",
                        "text": f"Session {s} question {i}-{t}: why does the {ERRORS[t % 4][:20]} happen?",
                    }
                )
                events.append(
                    {
                        "type": "turn",
                        "session": s,
                        "role": "assistant",
                        "text": f"Answer {i}-{t}: start the database before the tests in {s}.",
                    }
                )
    for k in range(n_knowledge):
        events.append(
            {
                "type": "knowledge",
                "content": f"Service {k % 13} needs port {6000 + k % 13} open",
                "knowledge_type": ["fact", "pattern", "preference"][k % 3],
                "confidence": 0.8,
                "session": f"s{k % n_sessions}",
            }
        )
    for s in range(0, n_sessions, 4):
        events.append({"type": "session_end", "session": f"s{s}"})
    return events


def write_jsonl(path: Path, events: list[dict[str, Any]], extra_lines: dict[int, bytes] | None = None) -> Path:
    """Write events one per line; ``extra_lines`` inserts raw bytes before the given 1-based line."""
    lines = [json.dumps(e).encode() for e in events]
    for at, raw in sorted((extra_lines or {}).items()):  # ascending: each key is its final line number
        lines.insert(at - 1, raw)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


COUNTS = """
MATCH (n {ns: $ns})
WITH count(n) AS nodes
OPTIONAL MATCH (e:ErrorPattern {ns: $ns})
WITH nodes, count(e) AS patterns, sum(e.occurrences) AS occurrences
OPTIONAL MATCH (:ErrorPattern {ns: $ns})-[r:IN_SESSION]->()
WITH nodes, patterns, occurrences, count(r) AS in_session, sum(r.count) AS in_session_count
OPTIONAL MATCH (:ErrorPattern {ns: $ns})-[f:RESOLVED_BY]->()
WITH nodes, patterns, occurrences, in_session, in_session_count, count(f) AS fixes,
     sum(f.successes) AS fix_successes
OPTIONAL MATCH (m:Message {ns: $ns})
WITH nodes, patterns, occurrences, in_session, in_session_count, fixes, fix_successes, count(m) AS messages
OPTIONAL MATCH (:Message {ns: $ns})-[x:NEXT]->()
WITH nodes, patterns, occurrences, in_session, in_session_count, fixes, fix_successes, messages, count(x) AS next
OPTIONAL MATCH (k:Knowledge {ns: $ns})
WITH nodes, patterns, occurrences, in_session, in_session_count, fixes, fix_successes, messages, next,
     count(k) AS knowledge, sum(k.times_seen) AS times_seen
OPTIONAL MATCH (s:Session {ns: $ns})
WITH nodes, patterns, occurrences, in_session, in_session_count, fixes, fix_successes, messages, next,
     knowledge, times_seen, count(s) AS sessions, sum(s.turns) AS session_turns,
     count(s.ended_at) AS ended
OPTIONAL MATCH (i:IngestedEvent {ns: $ns})
RETURN nodes, patterns, occurrences, in_session, in_session_count, fixes, fix_successes, messages, next,
       knowledge, times_seen, sessions, session_turns, ended, count(i) AS marks
"""


def graph_counts(driver, ns: str) -> dict[str, int]:
    """Every count the tests compare (one read)."""
    records, _, _ = driver.execute_query(COUNTS, ns=ns)
    return dict(records[0])

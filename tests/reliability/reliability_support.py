"""Shared helpers of the reliability suite: a content fingerprint of a namespace (to compare a
faulted run with a fault-free control) and a deterministic mixed workload (tool results, turns,
manual knowledge). Private Neo4j servers: tests/private_neo4j.py."""

from __future__ import annotations

from typing import Any

# -- what a namespace holds, by content (ids include the namespace, so compare content) ---------
_FINGERPRINT = {
    "labels": "MATCH (n {ns: $ns}) UNWIND labels(n) AS label RETURN label AS k, count(*) AS v",
    "relationships": (
        "MATCH (a {ns: $ns})-[r]->(b {ns: $ns}) WHERE type(r) <> 'SIMILAR_TO' RETURN type(r) AS k, count(*) AS v"
    ),
    "occurrences": "MATCH (e:ErrorPattern {ns: $ns}) RETURN e.tool + ' | ' + e.pattern AS k, e.occurrences AS v",
    "in_session": (
        "MATCH (e:ErrorPattern {ns: $ns})-[r:IN_SESSION]->(s:Session) "
        "RETURN e.pattern + ' @ ' + s.key AS k, r.count AS v"
    ),
    "fixes": (
        "MATCH (e:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->(f:Fix) "
        "RETURN e.pattern + ' -> ' + f.description AS k, [r.successes, r.failures] AS v"
    ),
    "messages": (
        "MATCH (m:Message {ns: $ns})-[:PART_OF]->(s:Session) "
        "RETURN s.key + '#' + toString(m.seq) AS k, m.role + ': ' + m.text AS v"
    ),
    "session_turns": "MATCH (s:Session {ns: $ns}) RETURN s.key AS k, s.turns AS v",
    "knowledge": "MATCH (k:Knowledge {ns: $ns}) RETURN k.content AS k, [k.confidence, k.is_manual] AS v",
}


def fingerprint(driver: Any, ns: str, database: str = "neo4j") -> dict[str, dict[str, Any]]:
    """Every count kgmem keeps for ``ns``, keyed by content."""
    out: dict[str, dict[str, Any]] = {}
    for name, query in _FINGERPRINT.items():
        records, _, _ = driver.execute_query(query, ns=ns, database_=database)
        out[name] = {r["k"]: r["v"] for r in records}
    return out


def node_count(driver: Any, ns: str) -> int:
    """Nodes of the namespace's data; kgmem's bookkeeping (the query log that lets feedback name a
    search from any process, BQAR session state: labels ``Kgmem*``) is not data and is left out."""
    records, _, _ = driver.execute_query(
        "MATCH (n {ns: $ns}) WHERE none(l IN labels(n) WHERE l STARTS WITH 'Kgmem') RETURN count(n) AS n", ns=ns
    )
    return records[0]["n"]


# -- a deterministic workload ------------------------------------------------------------------
TIMEOUT = "ReadTimeoutError: HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout={t})"
REFUSED = "Error: connect ECONNREFUSED 10.0.0.{n}:5432"
MISSING = "FileNotFoundError: [Errno 2] No such file or directory: '/srv/data/run-{n}.csv'"


def workload(n: int) -> list[tuple[str, dict[str, Any]]]:
    """``n`` calls of a mixed stream: tool errors (3 tools), a success closing each session's
    failure (an observed fix), a conversation turn per event and a manual fact every 15."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        session = f"s{i // 10}"
        if i % 10 == 9:
            calls.append(("tool_result", {"tool": "http", "params": {"timeout": 60}, "session": session}))
        else:
            tool, template = (("http", TIMEOUT), ("psql", REFUSED), ("etl", MISSING))[i % 3]
            calls.append(
                (
                    "tool_result",
                    {
                        "tool": tool,
                        "params": {"timeout": 5},
                        "session": session,
                        "error": template.format(t=i, n=i % 7),
                    },
                )
            )
        calls.append(
            (
                "turn",
                {
                    "session": session,
                    "role": "user" if i % 2 else "assistant",
                    "text": f"step {i}: looking at the {('http', 'psql', 'etl')[i % 3]} failure",
                    "ref": f"t{i}",
                },
            )
        )
        if i % 15 == 0:
            calls.append(
                ("add_knowledge", {"content": f"Rule {i}: retry the job once before paging someone", "type": "fact"})
            )
    return calls


def run_call(mem: Any, call: tuple[str, dict[str, Any]]) -> Any:
    name, kwargs = call
    return getattr(mem, name)(**kwargs)

"""The same tests for both clients: ``KGMem`` and ``AsyncKGMem`` (the ``client`` fixture of
tests/integration/conftest.py runs the async client's coroutines on an event loop thread, so each
test body is written once).

The data is written by the sync client (``mem``); ``client`` is the client under test.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from kgmem import AsyncKGMem, KGMem
from kgmem.config import Settings
from kgmem.errors import ValidationError
from kgmem.maintenance import delete_namespace
from kgmem.retrieval.service import UnknownQuery
from tests.settled import hit_scores, settled

FACTS = [
    "The staging database runs on port 6543 behind pgbouncer.",
    "Deploys to production need a green canary for 30 minutes.",
    "The billing service retries Stripe webhooks three times.",
]


def _seed(mem: KGMem) -> list[str]:
    return [mem.add_knowledge(text, ns=mem.namespace)["id"] for text in FACTS]


def test_search_finds_the_seeded_fact_with_the_same_ranking_as_the_sync_client(mem: KGMem, client) -> None:
    ids = _seed(mem)
    question = "which port does the staging database use"
    result, reference = settled(
        lambda: (client.search(question, k=3), mem.search(question, k=3)),
        key=lambda both: [hit_scores(r) for r in both],
    )
    assert result.hits and result.hits[0].id == ids[0]
    assert [h.id for h in result.hits] == [h.id for h in reference.hits]
    assert result.query_id != reference.query_id


def test_context_renders_citations_and_feedback_moves_the_usage_posterior(mem: KGMem, client, driver, ns: str) -> None:
    ids = _seed(mem)
    ctx = client.context("how long must the canary stay green before a production deploy", max_tokens=200)
    assert "[1]" in ctx.text and ctx.citations and ctx.citations[0].id == ids[1]
    client.feedback(ctx.query_id, response="Wait for the canary [1].", outcome="success")
    records, _, _ = driver.execute_query(
        "MATCH (k:Knowledge {ns: $ns, id: $id}) RETURN k.alpha AS a, k.beta AS b", ns=ns, id=ids[1]
    )
    assert records[0]["a"] is not None and records[0]["a"] > records[0]["b"]


def test_session_feedback_stays_in_the_overlay_until_end_session(mem: KGMem, client, driver, ns: str) -> None:
    ids = _seed(mem)
    result = client.search("stripe webhook retries", k=3, session="s-1")
    client.feedback(result.query_id, used=[ids[2]], outcome="positive")

    def alpha() -> Any:
        records, _, _ = driver.execute_query(
            "MATCH (k:Knowledge {ns: $ns, id: $id}) RETURN k.alpha AS a", ns=ns, id=ids[2]
        )
        return records[0]["a"]

    before = alpha()
    client.end_session("s-1")
    after = alpha()
    assert after is not None and (before is None or after > before)


def test_bad_input_is_a_clear_error_for_both(client) -> None:
    with pytest.raises(ValidationError, match="query"):
        client.search("   ")
    with pytest.raises(ValidationError, match="max_tokens"):
        client.context("x", max_tokens=3)
    with pytest.raises(UnknownQuery):
        client.feedback("no-such-query", outcome="positive")
    with pytest.raises(ValidationError):
        client.search("x", ns="")


def test_namespaces_are_isolated(mem: KGMem, client, ns: str) -> None:
    _seed(mem)
    other = f"{ns}-other"
    try:
        assert client.search("staging database port", k=3, ns=other).hits == []
        assert client.search("staging database port", k=3).hits
    finally:
        delete_namespace(mem.graph, None, other)


def test_async_searches_run_concurrently_and_equal_the_sequential_ones(
    mem: KGMem, settings: Settings, embedder
) -> None:
    _seed(mem)
    queries = [
        f"{q} {i}"
        for i in range(5)
        for q in ("staging database port", "canary before deploy", "stripe webhook retries", "pgbouncer")
    ]

    async def main() -> tuple[list[list[str]], list[list[str]], int]:
        async with AsyncKGMem(settings, embedder=embedder) as amem:
            sequential = [[h.id for h in (await amem.search(q, k=3)).hits] for q in queries]
            in_flight = peak = 0
            real_handle = amem.io.handle

            async def counting(req: Any) -> Any:  # how many requests are in flight at once
                nonlocal in_flight, peak
                in_flight += 1
                peak = max(peak, in_flight)
                try:
                    return await real_handle(req)
                finally:
                    in_flight -= 1

            amem.io.handle = counting  # type: ignore[method-assign]
            results = await asyncio.gather(*(amem.search(q, k=3) for q in queries))
            return sequential, [[h.id for h in r.hits] for r in results], peak

    sequential, concurrent, peak = settled(lambda: asyncio.run(main()), key=lambda run: run[:2])
    assert len(concurrent) == 20 and concurrent == sequential
    # One search has at most 2 requests in flight (its two legs): more means the searches overlapped.
    assert peak > 2, f"the searches did not overlap (peak {peak} requests in flight)"


def test_turns_are_stored_searchable_and_the_session_ends(client, driver, ns: str) -> None:
    first = client.turn(session="s-1", role="user", text="My cat Miso only eats salmon flavoured kibble.")
    second = client.turn(session="s-1", role="assistant", text="Noted: salmon kibble for Miso.")
    again = client.turn(session="s-1", role="user", text="My cat Miso only eats salmon flavoured kibble.")
    assert first != second and again == first, "message ids are deterministic: a retry adds nothing"
    hits = client.search("what does the cat eat", k=5, session="s-1", kinds="message").hits
    assert first in [h.id for h in hits]
    client.end_session("s-1")
    records, _, _ = driver.execute_query(
        "MATCH (m:Message {ns: $ns})-[:PART_OF]->(s:Session {ns: $ns, key: 's-1'}) "
        "RETURN count(m) AS n, s.ended_at IS NOT NULL AS ended",
        ns=ns,
    )
    assert records[0]["n"] == 2 and records[0]["ended"]
    with pytest.raises(ValidationError, match="text"):
        client.turn(session="s-1", role="user", text="  ")


@pytest.fixture
def behind(client_kind: str, settings: Settings, driver, embedder, graph, open_client_of, tmp_path):
    """The client under test with write-behind of turns and the offline extractor (no key)."""
    analysis = settings.analysis.model_copy(
        update={"write_behind": True, "write_behind_batch": 8, "flush_timeout_s": 300.0}
    )  # a slow first model load
    c = open_client_of(
        client_kind, settings.model_copy(update={"analysis": analysis, "home": tmp_path / "home"}), driver, embedder
    )
    yield c
    c.close()


def test_write_behind_turns_are_searchable_and_analysed_in_the_background(behind, driver, ns: str) -> None:
    turns = [
        ("user", "I prefer tabs over spaces."),
        ("assistant", "Noted."),
        ("user", "The deploy target is staging."),
        ("assistant", "Understood."),
        ("user", "Thanks."),
    ]
    ids = [behind.turn(session="wb", role=role, text=text) for role, text in turns]
    assert len(set(ids)) == 5
    hits = behind.search("which deploy target", k=5, kinds="message").hits  # search flushes the queue first
    assert ids[2] in [h.id for h in hits]
    behind.end_session("wb")
    assert behind.wait_for_analysis(120)
    stats = behind.analysis_stats()
    assert stats["extractor"] == "offline" and stats["turns_written"] == 5 and stats["queued"] == 0
    contents = [k["content"] for k in behind.learnings()]
    assert "The user prefers tabs over spaces." in contents
    records, _, _ = driver.execute_query(
        "MATCH (k:Knowledge {ns: $ns})-[:FROM_SESSION]->(:Session {ns: $ns, key: 'wb'}) RETURN count(k) AS n", ns=ns
    )
    assert records[0]["n"] == len(contents)


def test_call_graph_and_reports(client, ns: str) -> None:
    assert client.record_calls([("pkg.a", "pkg.b"), ("pkg.b", "pkg.c")]) == 2
    healed = client.observe_changes(["pkg.a", "pkg.b", "pkg.c"], session="s")
    assert (healed.confirmed, healed.discovered, healed.unknown) == (2, 1, 0)
    with pytest.raises(ValidationError, match="functions_changed"):
        client.observe_changes("pkg.a")
    client.tool_result("psql", {"port": 5432}, error="connection refused (10.0.0.5:5432)", session="s1")
    client.tool_result("psql", {"port": 5432}, error="connection refused (10.0.0.9:5432)", session="s2")
    client.flush()
    rows = client.report("top_errors")
    assert [(r["tool"], r["occurrences"], r["sessions"]) for r in rows] == [("psql", 2, 2)]
    edges = client.report("callgraph_edges", source="*", max_confidence=1.0, limit=10)
    assert {(r["caller"], r["callee"], r["source"]) for r in edges} == {
        ("pkg.a", "pkg.b", "ast"),
        ("pkg.b", "pkg.c", "ast"),
        ("pkg.a", "pkg.c", "observation"),
    }


def test_add_knowledge_and_learnings(client) -> None:
    item = client.add_knowledge("Always run migrations before deploying the API.", type="pattern")
    assert item["confidence"] == 1.0 and item["type"] == "pattern"
    again = client.add_knowledge("always run migrations before deploying the api.", type="pattern")
    assert again["id"] == item["id"], "the same normalised text is one item"
    client.add_knowledge("The on-call rota changes on Mondays.")
    listed = client.learnings()
    assert sorted(i["content"] for i in listed) == [
        "Always run migrations before deploying the API.",
        "The on-call rota changes on Mondays.",
    ]
    assert [i["id"] for i in client.learnings(type="pattern")] == [item["id"]]
    assert client.search("migrations before deploy", k=3, kinds="knowledge").hits[0].id == item["id"]
    with pytest.raises(ValidationError, match="type"):
        client.add_knowledge("x y z", type="rumour")
    with pytest.raises(ValidationError, match="min_confidence"):
        client.learnings(min_confidence=2.0)


REFUSED = "could not connect to server: Connection refused (10.0.0.5:5432)"


def test_tool_result_recovery_resolve_and_known_fixes(client, driver, ns: str) -> None:
    obs = client.tool_result("psql", {"host": "db1", "port": 5432}, error=REFUSED, session="run-1")
    assert not obs.ok and obs.is_new and obs.fixes == () and obs.session == "run-1"
    ok = client.tool_result("psql", {"host": "db1", "port": 6432}, session="run-1")
    assert ok.ok and ok.id == obs.id and ok.fix_id, "the success after the failure is the recovery's fix"
    named = client.resolve(obs, "use the pgbouncer port 6432")
    assert named.error_id == obs.id and named.successes == 1, "the observed recovery, named: not a second success"
    again = client.tool_result(
        "psql", {"host": "db9", "port": 5432}, error=REFUSED.replace("10.0.0.5", "10.9.9.9"), session="run-2"
    )
    assert again.id == obs.id and not again.is_new and again.occurrences == 2
    assert [f.description for f in again.fixes] == ["use the pgbouncer port 6432"]
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->(f:Fix) RETURN count(f) AS n", ns=ns
    )
    assert records[0]["n"] == 1


def test_fix_applied_correction_and_batches(client, ns: str) -> None:
    obs = client.tool_result("curl", {"url": "https://api.example.com/v1"}, error="HTTP 429 Too Many Requests")
    failed = client.fix_applied(obs, "retry at once", success=False)
    assert failed.failures == 1 and failed.successes == 0
    user = client.correction("Back off exponentially on HTTP 429", error=obs)
    assert user is not None and user.description == "Back off exponentially on HTTP 429"
    assert [i["content"] for i in client.learnings(type="correction")] == ["Back off exponentially on HTTP 429"]
    top = client.tool_result("curl", {"url": "https://api.example.com/v2"}, error="HTTP 429 Too Many Requests")
    assert top.fixes[0].description == "Back off exponentially on HTTP 429", "a user fix outranks the others"
    # A fix that failed here and never worked is not suggested again, but listed as failed.
    assert "retry at once" not in {f.description for f in top.fixes}
    assert [(f.description, f.failures) for f in top.failed_fixes] == [("retry at once", 1)]
    batch = client.tool_results(
        [
            {"tool": "git", "params": {"cmd": "push"}, "error": "rejected: non-fast-forward", "session": "b"},
            {"tool": "git", "params": {"cmd": "pull --rebase"}, "session": "b"},
            {"tool": "git", "params": {"cmd": "push"}, "session": "b"},
        ],
        index=False,
    )
    assert (batch.events, batch.errors, batch.successes) == (3, 1, 2)
    assert client.index_errors() == 1
    with pytest.raises(ValidationError, match="fix"):
        client.resolve(obs, "  ")


def test_async_learning_spools_or_in_strict_mode_raises_when_neo4j_is_down(
    settings: Settings, embedder, tmp_path
) -> None:
    """As in KGMem: an unreachable Neo4j spools the event (``obs.spooled``), and with ``learning.strict``
    raises — never a silent drop. (Own home: the spool is not the shared one.)"""
    from kgmem.errors import BackendUnavailable
    from kgmem.spool import Spool

    down = settings.model_copy(
        update={"home": tmp_path / "home", "neo4j": settings.neo4j.model_copy(update={"uri": "bolt://127.0.0.1:9"})}
    )
    strict = down.model_copy(update={"learning": down.learning.model_copy(update={"strict": True})})

    async def main() -> None:
        async with AsyncKGMem(down, embedder=embedder) as amem:
            obs = await amem.tool_result("psql", {"port": 5432}, error=REFUSED, session="s")
            assert obs.spooled and not obs.ok and obs.category
        async with AsyncKGMem(strict, embedder=embedder) as amem:
            with pytest.raises(BackendUnavailable):
                await amem.tool_result("psql", {"port": 5432}, error=REFUSED, session="s")
            with pytest.raises(BackendUnavailable):
                await amem.turn(session="s", role="user", text="the database refuses connections")

    asyncio.run(main())
    assert Spool(tmp_path / "home" / "spool").stats()["pending"] == 1


def _spooled_graph(settings: Settings, ns: str) -> dict[str, Any]:
    """What the private server holds for the spool test, read with a driver of the test's own."""
    from kgmem.graph import connect

    with connect(settings) as drv:
        records, _, _ = drv.execute_query(
            "MATCH (m:Message {ns: $ns})-[:PART_OF]->(s:Session {ns: $ns, key: 's'}) "
            "RETURN count(m) AS messages, s.ended_at IS NOT NULL AS ended",
            ns=ns,
        )
        row = records[0] if records else {"messages": 0, "ended": False}
        errors, _, _ = drv.execute_query(
            "MATCH (e:ErrorPattern {ns: $ns, tool: 'rsync'}) RETURN sum(e.occurrences) AS n", ns=ns
        )
        knowledge, _, _ = drv.execute_query(
            "MATCH (k:Knowledge {ns: $ns, is_manual: true}) RETURN collect(k.content) AS c", ns=ns
        )
    return {
        "messages": row["messages"],
        "ended": row["ended"],
        "rsync": errors[0]["n"] or 0,
        "manual": sorted(knowledge[0]["c"]),
    }


def test_both_clients_spool_while_neo4j_is_stopped_and_replay_once_it_is_back(
    private_neo4j, embedder, open_client_of
) -> None:
    """The private Neo4j (tests/private_neo4j.py) is stopped under a live sync and a live async client
    (one outage for both, each with its own namespace and spool): tool result, turn, manual knowledge and
    session end are spooled (the calls return), the graph is untouched; once the server is back one replay
    applies each exactly once, a second replays nothing."""
    from kgmem.graph import GraphStore, connect
    from kgmem.graph.schema import apply_schema
    from kgmem.spool import Spool

    kinds = ("sync", "async")
    views = {
        kind: private_neo4j(
            f"client_spool_{kind}",
            namespace=f"spooled-{kind}",
            learning={"offline_retry_s": 1.0},
            neo4j={"offline_retry_s": 1.0, "deadline_s": 3.0},
        )
        for kind in kinds
    }
    with connect(views["sync"].settings) as drv:
        apply_schema(GraphStore(drv))
    clients: dict[str, Any] = {}
    try:
        firsts = {}
        for kind in kinds:  # each client its own driver to the private server
            clients[kind] = open_client_of(kind, views[kind].settings, None, embedder)
            firsts[kind] = clients[kind].turn(
                session="s", role="user", text="the nightly backup job writes to /mnt/backup"
            )
        views["sync"].down()
        for kind, c in clients.items():
            obs = c.tool_result(
                "rsync", {"dest": "/mnt/backup"}, error="rsync: connection unexpectedly closed (code 12)", session="s"
            )
            mid = c.turn(session="s", role="assistant", text="I will check the backup mount")
            item = c.add_knowledge("The backup mount is an NFS share", type="fact")
            c.end_session("s")  # spooled after the session's turn: replayed after it
            assert obs.spooled and item["spooled"] and mid and mid != firsts[kind], kind
            assert Spool(views[kind].settings.spool_dir).stats()["pending"] == 4, kind

        views["sync"].up()
        for kind in kinds:
            got = _spooled_graph(views[kind].settings, f"spooled-{kind}")
            assert got == {"messages": 1, "ended": False, "rsync": 0, "manual": []}, kind
        time.sleep(1.1)  # past the offline window
        for kind, c in clients.items():
            settings = views[kind].settings
            assert c.replay_spool() == 4, kind
            assert _spooled_graph(settings, f"spooled-{kind}") == {
                "messages": 2,
                "ended": True,
                "rsync": 1,
                "manual": ["The backup mount is an NFS share"],
            }, kind
            assert c.replay_spool() == 0, kind
            assert Spool(settings.spool_dir).stats()["pending"] == 0, kind
            # The replay wrote the vectors too: the spooled fact is found by the vector leg as well.
            hits = c.search("which kind of share is the backup mount", k=3, kinds=["knowledge"])
            assert hits.hits and hits.hits[0].text == "The backup mount is an NFS share", kind
            assert "vector" in hits.hits[0].provenance.legs, kind
    finally:
        for c in clients.values():
            c.close()

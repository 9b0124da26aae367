"""Export/import keeps a namespace's retrieval session state: the query log (old query ids still
accept feedback, exactly once; a judged query stays judged), the BQAR overlays of an open session's
unmerged feedback, and the sessions' shift states — round trip equal, into the same namespace and
into another one. Real Neo4j, Chroma and embedding model."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from kgmem.maintenance import delete_namespace, export_namespace, import_namespace

FACTS = [
    "The staging database is restored from the nightly snapshot at 02:00.",
    "Staging database credentials rotate every Monday morning.",
    "Office plants are watered on Fridays by the facilities team.",
]
QUERY = "staging database"
STATE = {"KgmemQuery": "id", "KgmemOverlay": "item_id", "KgmemSessionState": "session"}


def session_state(driver, ns: str) -> dict[str, list[str]]:
    """Every session-state node of ``ns`` with all its properties but the namespace, per label."""
    out = {}
    for label, key in STATE.items():
        records, _, _ = driver.execute_query(
            f"MATCH (n:{label}) WHERE n.ns = $ns RETURN properties(n) AS p ORDER BY n.{key}, n.session", ns=ns
        )
        out[label] = sorted(
            json.dumps({k: v for k, v in r["p"].items() if k != "ns"}, sort_keys=True, default=str) for r in records
        )
    return out


def posteriors(driver, ns: str) -> dict[str, tuple]:
    records, _, _ = driver.execute_query(
        "MATCH (k:Knowledge {ns: $ns}) RETURN k.id AS id, k.alpha AS a, k.beta AS b", ns=ns
    )
    return {r["id"]: (r["a"], r["b"]) for r in records}


def overlay_alpha(driver, ns: str, session: str, item: str) -> float:
    records, _, _ = driver.execute_query(
        "MATCH (o:KgmemOverlay {ns: $ns, session: $s, item_id: $id}) RETURN o.d_alpha AS d", ns=ns, s=session, id=item
    )
    return records[0]["d"] if records else 0.0


@pytest.fixture
def other_ns(graph):
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    delete_namespace(graph, None, name)


def test_session_state_survives_export_and_import_into_the_same_and_another_namespace(
    mem, ns, other_ns, graph, driver, tmp_path: Path
) -> None:
    facts = [mem.add_knowledge(text, "fact", ns=ns)["id"] for text in FACTS]
    mem.wait_for_analysis(30)
    target = facts[0]
    judged_plain = mem.search(QUERY, ns=ns, kinds="knowledge")  # judged, global
    assert mem.feedback(judged_plain.query_id, used=[target], outcome="success").counted
    judged_open = mem.search(QUERY, ns=ns, session="S", kinds="knowledge")  # judged, in S's overlay
    assert mem.feedback(judged_open.query_id, used=[target], outcome="positive").target == "overlay"
    pending = mem.search(QUERY, ns=ns, session="S", kinds="knowledge")  # not judged yet
    mem.retrieval.flush()
    before_state, before_post = session_state(driver, ns), posteriors(driver, ns)
    assert len(before_state["KgmemQuery"]) == 3 and before_state["KgmemOverlay"] and before_state["KgmemSessionState"]
    assert overlay_alpha(driver, ns, "S", target) == pytest.approx(1.0)

    path = tmp_path / "ns.jsonl"
    summary = export_namespace(mem.graph, ns, path)
    assert not summary.skipped  # nothing is left out with a warning any more
    assert summary.state["KgmemQuery"] == 3 and summary.state["KgmemSessionState"] == 1
    assert summary.state["KgmemOverlay"] == len(before_state["KgmemOverlay"])

    # 1. a copy into another namespace while the source lives: posteriors, overlays and session state
    #    equal; the query ids stay with the source (feedback names only the id), reported as skipped
    copy = import_namespace(graph, path, ns=other_ns)
    assert (copy.ns, copy.source) == (other_ns, ns)
    assert copy.skipped == {"KgmemQuery held by another namespace": 3}
    copied = session_state(driver, other_ns)
    assert copied == {**before_state, "KgmemQuery": []}
    assert posteriors(driver, other_ns) == before_post

    # 2. import --replace into the same namespace: everything as it was; the old ids still work, once
    import_namespace(graph, path, replace=True)
    assert session_state(driver, ns) == before_state and posteriors(driver, ns) == before_post
    assert not mem.feedback(judged_plain.query_id, used=[target], outcome="success").counted
    assert not mem.feedback(judged_open.query_id, used=[target], outcome="positive").counted
    first = mem.feedback(pending.query_id, used=[target], outcome="success")
    assert first.counted and first.target == "overlay"  # S is still open: its overlay came back
    assert not mem.feedback(pending.query_id, used=[target], outcome="success").counted
    assert overlay_alpha(driver, ns, "S", target) == pytest.approx(1.0 + 0.8)
    assert posteriors(driver, ns) == before_post  # nothing global yet: S has not ended

    # 3. a move: the source gone, import --replace into the other namespace takes the query ids along
    delete_namespace(graph, None, ns)
    moved = import_namespace(graph, path, replace=True, ns=other_ns)
    assert moved.replaced and not moved.skipped
    assert session_state(driver, other_ns) == before_state and posteriors(driver, other_ns) == before_post
    # this client still caches the queries as made in `ns`: the log in Neo4j decides where they go now
    assert not mem.feedback(judged_open.query_id, used=[target], outcome="positive").counted
    again = mem.feedback(pending.query_id, used=[target], outcome="success")  # unjudged in the file
    assert again.counted and again.target == "overlay"
    assert overlay_alpha(driver, other_ns, "S", target) == pytest.approx(1.0 + 0.8)
    mem.retrieval.end_session(other_ns, "S")
    alpha, _ = posteriors(driver, other_ns)[target]
    # global success 0.8, then S's positive 1.0 and success 0.8 merged: each judgement once
    assert alpha == pytest.approx(1.0 + 0.8 + 1.0 + 0.8)
    assert posteriors(driver, ns) == {}  # nothing leaked back into the deleted source


def test_a_format_1_export_still_imports(graph, ns, tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    docs = [
        {"kgmem_export": 1, "ns": ns},
        {"node": "Tool", "id": "t", "props": {"id": "t", "ns": ns, "name": "psql"}},
        {"end": True, "nodes": 1, "relationships": 0},
    ]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    summary = import_namespace(graph, path)
    assert summary.nodes["Tool"] == 1 and not summary.state

"""The leak scan on the real stack (Neo4j, Chroma, the embedding model; the LLM's answers scripted
at the HTTP level): a unique canary planted in the turns, tool errors, fixes, corrections and
extracted knowledge of one session, and a unique person's name planted the same way in another
session; forget the session and the person; then every store, read raw, holds neither. A control
namespace holding the same texts and an untouched session of the same namespace are unchanged."""

from __future__ import annotations

import json

import pytest

from kgmem import KGMem
from kgmem.errors import ValidationError
from kgmem.forget import ForgetTargetNotFound

from .conftest import canary, person, scan, snapshot

GARDEN = [
    "I planted tomatoes along the south fence this spring.",
    "The basil needs watering every other morning.",
    "Slugs keep eating the lettuce seedlings at night.",
    "We built a raised bed out of cedar planks.",
    "The compost heap is finally warm enough to break down leaves.",
]


def knowledge(content: str, subject: str, obj: str) -> dict:
    return {
        "type": "fact",
        "content": content,
        "confidence": 0.9,
        "subject": subject,
        "predicate": "has",
        "object": obj,
    }


def plant(mem: KGMem, scripted, ns: str, secret: str, name: str) -> dict[str, str]:
    """Session s1 carries ``secret`` everywhere, session s3 the person ``name``; s2 is untouched."""
    ids: dict[str, str] = {}
    scripted.then(scripted.items(knowledge(f"The locker code of the user is {secret}", "user", secret)))
    for i in range(5):
        mem.turn(
            session="s1", role="user", text=f"Remember that my locker code is {secret}, turn {i}.", ref=f"a{i}", ns=ns
        )
    assert mem.wait_for_analysis(60)
    failed = mem.tool_result(
        "deploy", {"target": secret}, error=f"PermissionError: access to {secret} denied", session="s1", ns=ns
    )
    ids["error"] = failed.id
    mem.resolve(failed.id, f"grant the deploy role access to {secret}", session="s1", ns=ns)
    mem.correction(f"Never deploy {secret} on a Friday", error=failed.id, ns=ns)
    found = mem.search(f"locker code {secret}", session="s1", ns=ns)
    if found.hits:
        mem.feedback(found.query_id, used=[found.hits[0].id], ns=ns)

    scripted.then(scripted.items(knowledge(f"{name} teaches pottery on Saturdays", name, "pottery")))
    for i in range(5):
        mem.turn(
            session="s3",
            role="user",
            text=f"Yesterday {name} showed me the pottery wheel, part {i}.",
            ref=f"p{i}",
            ns=ns,
        )
    assert mem.wait_for_analysis(60)
    other = mem.tool_result(
        "calendar", {"who": name}, error=f"LookupError: no calendar for {name}", session="s3", ns=ns
    )
    mem.resolve(other.id, f"ask {name} to share the calendar", session="s3", ns=ns)
    mem.correction(f"{name} prefers email to phone calls", ns=ns)
    mem.search(f"what does {name} teach", session="s3", ns=ns)

    for i, text in enumerate(GARDEN):
        mem.turn(session="s2", role="user", text=text, ref=f"g{i}", ns=ns)
    assert mem.wait_for_analysis(60)
    mem.flush()
    return ids


def spool_line(mem: KGMem, ns: str, secret: str) -> None:
    """A turn another (dead) process spooled while Neo4j was down: a segment no writer holds."""
    spool = mem.settings.spool_dir
    spool.mkdir(parents=True, exist_ok=True)
    event = {
        "ns": ns,
        "kind": "turn",
        "seq": 0,
        "session": "s1",
        "role": "user",
        "text": f"spooled {secret}",
        "ref": "z",
    }
    (spool / "learning-999999-deadbeef0000.jsonl").write_text(json.dumps(event) + "\n")


@pytest.fixture
def fmem(fsettings, driver, embedder, graph, scripted):
    client = KGMem(fsettings, driver=driver, embedder=embedder, generator=scripted.generator(fsettings))
    yield client
    client.close()


def test_forget_session_and_person_leaves_no_trace(fmem, scripted, ns, control_ns, driver):
    secret, name = canary(), person()
    plant(fmem, scripted, control_ns, secret, name)  # the same texts in another namespace
    plant(fmem, scripted, ns, secret, name)
    spool_line(fmem, ns, secret)
    before = scan(fmem, driver, ns, [secret, name])
    assert before["neo4j nodes"] and before["chroma"] and before["spool files"] and before["export"], before
    control = snapshot(fmem, driver, control_ns, [f"locker code {secret}", name, "tomatoes"])
    garden = snapshot(fmem, driver, ns, ["tomatoes", "watering the basil"], session="s2")["hits"]

    dry = fmem.forget(session="s1", dry_run=True)
    assert dry.dry_run and dry.counts["graph"]["Message"] == 5 and dry.items["Message"]
    assert scan(fmem, driver, ns, [secret]) == scan(fmem, driver, ns, [secret])  # a dry run erases nothing

    done = fmem.forget(session="s1")
    assert done.counts["graph"]["Message"] == 5 and done.counts["vectors"]["message"] == 5
    assert done.counts["spool"]["events"] == 1
    listed = fmem.forget(entity=name, dry_run=True)
    assert listed.items["Message"] and listed.items["Knowledge"]
    fmem.forget(entity=name)

    after = scan(fmem, driver, ns, [secret, name])
    assert after == {store: 0 for store in after}, after
    assert snapshot(fmem, driver, control_ns, [f"locker code {secret}", name, "tomatoes"]) == control
    assert scan(fmem, driver, control_ns, [secret, name])["neo4j nodes"] > 0
    assert snapshot(fmem, driver, ns, ["tomatoes", "watering the basil"], session="s2")["hits"] == garden
    # the audit trail names scopes by hash, never by name; it is a report
    audit = fmem.report("forgotten", ns=ns)
    assert [a["scope"] for a in audit] == ["entity", "session"] and all(a["state"] == "done" for a in audit)
    assert name not in json.dumps(audit) and "s1" not in [a["target"] for a in audit]


def test_bad_input_erases_nothing(fmem, ns, driver, graph):
    fmem.turn(session="s1", role="user", text="hello there", ref="1")
    fmem.flush()
    with pytest.raises(ForgetTargetNotFound, match="no session 'nope'"):
        fmem.forget(session="nope")
    with pytest.raises(ForgetTargetNotFound, match="no turn, knowledge item"):
        fmem.forget(id="0" * 32)
    with pytest.raises(ValidationError, match="one scope per call"):
        fmem.forget(session="s1", entity="x")
    mid = fmem.turns.messages(ns, "s1")[0]["id"]
    with pytest.raises(ForgetTargetNotFound):  # an id of another namespace is not found
        fmem.forget(id=mid, ns=ns + "-other")
    assert len(fmem.turns.messages(ns, "s1")) == 1
    assert fmem.forget(id=mid).counts["graph"]["Message"] == 1
    assert fmem.turns.messages(ns, "s1") == []


def test_a_forgotten_turn_retried_with_the_same_ref_stays_forgotten_new_turns_are_new(fmem, ns):
    fmem.turn(session="s1", role="user", text="my secret plan", ref="r1")
    fmem.flush()
    fmem.forget(session="s1")
    fmem.turn(session="s1", role="user", text="my secret plan", ref="r1")  # a retried ingest of the same turn
    fmem.turn(session="s1", role="user", text="a new thing to remember", ref="r2")  # new data
    fmem.flush()
    assert [m["text"] for m in fmem.turns.messages(ns, "s1")] == ["a new thing to remember"]


def test_everything_erases_the_namespace_and_keeps_the_audit(fmem, ns, driver, scripted):
    secret = canary()
    fmem.turn(session="s1", role="user", text=f"remember {secret}", ref="1")
    fmem.add_knowledge(f"the vault code is {secret}")
    fmem.flush()
    result = fmem.forget(everything=True)
    assert result.counts["graph"]["Message"] == 1
    assert scan(fmem, driver, ns, [secret]) == dict.fromkeys(scan(fmem, driver, ns, [secret]), 0)
    assert [a["scope"] for a in fmem.report("forgotten")] == ["everything"]


def test_export_and_import_carry_the_audit_trail_and_tombstones(fmem, ns, graph, tmp_path):
    from kgmem.maintenance.export import export_namespace
    from kgmem.maintenance.importer import import_namespace

    fmem.turn(session="s1", role="user", text="to be forgotten", ref="1")
    fmem.turn(session="s2", role="user", text="to be kept", ref="1")
    fmem.flush()
    fmem.forget(session="s1")
    path = tmp_path / "export.jsonl"
    summary = export_namespace(fmem.graph, ns, path)
    assert summary.state["KgmemForget"] == 1 and summary.state["KgmemTombstone"] >= 2
    assert "to be forgotten" not in path.read_text()
    # restored over itself, the namespace keeps refusing the forgotten turn (its tombstone came back)
    import_namespace(fmem.graph, path, replace=True)
    assert [a["scope"] for a in fmem.report("forgotten")] == ["session"]
    fmem.turn(session="s1", role="user", text="to be forgotten", ref="1")
    fmem.flush()
    assert fmem.turns.messages(ns, "s1") == []

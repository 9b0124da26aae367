"""The checks where events enter: spooled events and analysis jobs a forget made void."""

import json

from kgmem.conversation.store import Turn, message_id
from kgmem.forget.guard import spool_filter_op
from kgmem.forget.spool_files import matcher, purge
from kgmem.runner import Read, Write
from kgmem.tombstones import (
    EVERYTHING,
    KNOWLEDGE_WRITE,
    NameTombstones,
    guard_job,
    mentioned_name_ids,
    name_id,
    session_node_id,
)


def drive(op, tombstones: dict[str, int], log: list | None = None, names: set[str] | None = None):
    """Run ``op`` against a fake graph holding ``tombstones`` (id -> at_ms); ``names``: which of them
    are entity-name tombstones (default: those that are the name id of some text checked)."""
    value = None
    try:
        while True:
            req = op.send(value)
            if log is not None:
                log.append(req)
            if isinstance(req, Read) and req.name == "forget/screen":
                gone = [{"id": i, "at_ms": tombstones[i]} for i in req.params["ids"] if i in tombstones]
                has = bool(names) if names is not None else bool(tombstones)
                value = [{"gone": gone, "names": has}]
            elif isinstance(req, Write):
                value = [{"written": True}]
            else:
                value = None
    except StopIteration as stop:
        return stop.value


def turn(session, ref, at_ms):
    return {"session": session, "role": "user", "text": f"t {ref}", "ref": ref, "at_ms": at_ms}


def test_spooled_turns_before_the_session_forget_are_dropped_later_ones_kept():
    events = [turn("s1", "a", 100), turn("s1", "b", 300), turn("s2", "c", 100)]
    kept = drive(spool_filter_op("ns", "turn", events), {session_node_id("ns", "s1"): 200})
    assert [e["ref"] for e in kept] == ["b", "c"]


def test_a_forgotten_turn_is_dropped_whenever_it_was_spooled():
    gone = message_id("ns", Turn("s1", "user", "t a", "a"))
    kept = drive(spool_filter_op("ns", "turn", [turn("s1", "a", 999), turn("s1", "b", 999)]), {gone: 500})
    assert [e["ref"] for e in kept] == ["b"]


def test_a_namespace_forget_voids_every_earlier_event_of_any_kind():
    events = [{"tool": "t", "session": "s", "at_ms": 10}, {"tool": "t", "at_ms": 30}, {"tool": "t"}]
    kept = drive(spool_filter_op("ns", "learning", events), {EVERYTHING: 20})
    assert kept == [{"tool": "t", "at_ms": 30}]  # a line without at_ms comes from before any forget


def test_nothing_tombstoned_keeps_everything():
    events = [turn("s1", "a", 1)]
    assert drive(spool_filter_op("ns", "turn", events), {}) == events


def _job(writes: list, content: str = "a fact"):
    def op():
        rows = yield Write(KNOWLEDGE_WRITE, {"rows": [{"content": content}]})
        writes.append(rows)
        return "done"

    return op()


def test_a_job_begun_before_its_session_was_forgotten_writes_nothing():
    writes: list = []
    log: list = []
    out = drive(guard_job(_job(writes), "ns", "s1", 100), {session_node_id("ns", "s1"): 150}, log)
    assert out == "done" and writes == [[]]
    assert not any(isinstance(r, Write) for r in log)


def test_a_job_begun_after_the_forget_is_new_data():
    writes: list = []
    drive(guard_job(_job(writes), "ns", "s1", 200), {session_node_id("ns", "s1"): 150})
    assert writes == [[{"written": True}]]


def test_a_name_is_recognised_in_a_text_by_its_hash_only():
    forgotten = name_id("ns", "Dr. Oyelaran")
    assert forgotten is not None and "oyelaran" not in forgotten
    assert forgotten in mentioned_name_ids("ns", ["Call DR OYELARAN on Tuesdays."])
    assert forgotten not in mentioned_name_ids("ns", ["Call Dr. Oyelaranski", None])
    assert forgotten not in mentioned_name_ids("other-ns", ["Dr. Oyelaran"])
    assert name_id("ns", " ?! ") is None


def test_a_job_whose_window_names_an_entity_forgotten_after_it_began_writes_nothing():
    gone = {name_id("ns", "Ada Lovelace"): 150}
    writes: list = []
    drive(guard_job(_job(writes), "ns", "s9", 100, ["we met ada lovelace", None]), gone)
    assert writes == [[]]
    later: list = []
    drive(guard_job(_job(later), "ns", "s9", 200, ["we met ada lovelace"]), gone)
    assert later == [[{"written": True}]]  # the window began after the forget: new data


def test_late_knowledge_naming_a_forgotten_entity_without_a_triple_is_not_written():
    writes: list = []
    job = _job(writes, content="Ada Lovelace prefers tea")
    drive(guard_job(job, "ns", "s9", 100, ["she prefers tea"]), {name_id("ns", "Ada Lovelace"): 150})
    assert writes == [[]]


def test_a_spooled_line_naming_a_forgotten_entity_is_dropped_if_spooled_before():
    events = [
        {"session": "s2", "role": "user", "text": "Ada Lovelace called", "ref": "a", "at_ms": 100},
        {"session": "s2", "role": "user", "text": "Ada Lovelace called", "ref": "b", "at_ms": 300},
        {"session": "s2", "role": "user", "text": "nobody called", "ref": "c", "at_ms": 100},
    ]
    kept = drive(spool_filter_op("ns", "turn", events), {name_id("ns", "Ada Lovelace"): 200})
    assert [e["ref"] for e in kept] == ["b", "c"]


def _screens(log: list) -> list[int]:
    """How many ids each check read."""
    return [len(r.params["ids"]) for r in log if isinstance(r, Read) and r.name == "forget/screen"]


def test_a_namespace_without_name_tombstones_is_checked_without_hashing_its_texts():
    names = NameTombstones()
    events = [{"session": "s2", "role": "user", "text": "Ada Lovelace called about the tea", "ref": "a"}]
    log: list = []
    assert drive(spool_filter_op("ns", "turn", events, names), {}, log, names=set()) == events
    first = _screens(log)
    assert len(first) == 1 and first[0] > 10  # the first check hashes: nothing known yet
    assert names.none_known("ns") and not names.none_known("other-ns")
    log.clear()
    assert drive(spool_filter_op("ns", "turn", events, names), {}, log, names=set()) == events
    assert _screens(log) == [3]  # the namespace, the session, the turn: no word run hashed


def test_a_name_tombstone_another_process_wrote_since_is_still_caught():
    """The client last saw no name tombstone; the read says there is one now: it hashes and reads again."""
    names = NameTombstones()
    names.note("ns", False)
    gone = {name_id("ns", "Ada Lovelace"): 200}
    events = [
        {"session": "s2", "role": "user", "text": "Ada Lovelace called", "ref": "a", "at_ms": 100},
        {"session": "s2", "role": "user", "text": "nobody called", "ref": "c", "at_ms": 100},
    ]
    log: list = []
    kept = drive(spool_filter_op("ns", "turn", events, names), gone, log)
    assert [e["ref"] for e in kept] == ["c"]
    assert len(_screens(log)) == 2 and not names.none_known("ns")
    writes: list = []
    log.clear()
    names.note("ns", False)
    drive(guard_job(_job(writes), "ns", "s9", 100, ["we met ada lovelace"], names), gone, log)
    assert writes == [[]] and len(_screens(log)) == 2


def test_a_forget_of_this_client_writing_a_name_tombstone_makes_the_next_check_hash_at_once():
    names = NameTombstones()
    names.note("ns", False)
    names.forgot_name("ns")
    log: list = []
    writes: list = []
    drive(
        guard_job(_job(writes), "ns", "s9", 100, ["we met ada lovelace"], names),
        {name_id("ns", "Ada Lovelace"): 150},
        log,
    )
    assert writes == [[]] and len(_screens(log)) == 1


def test_spool_files_lose_the_scope_lines_and_keep_the_rest(tmp_path):
    seg = tmp_path / "learning-1-abc.jsonl"
    lines = [
        {"ns": "ns", "kind": "turn", "session": "s1", "role": "u", "text": "secret", "seq": 0},
        {"ns": "ns", "kind": "turn", "session": "s2", "role": "u", "text": "keep", "seq": 1},
        {"ns": "other", "kind": "turn", "session": "s1", "role": "u", "text": "other ns", "seq": 2},
    ]
    seg.write_text("".join(json.dumps(line) + "\n" for line in lines))
    quarantine = tmp_path / "quarantine.jsonl"
    quarantine.write_text(json.dumps({"line": 3, "reason": "torn", "text": '{"ns": "ns", "session": "s1", "te'}) + "\n")
    match = matcher("ns", "session", "s1", set(), None)
    assert purge(tmp_path, match, dry_run=True) == 1
    assert seg.read_text().count("\n") == 3
    assert purge(tmp_path, match) == 1
    assert [json.loads(line)["text"] for line in seg.read_text().splitlines()] == ["keep", "other ns"]
    # an unreadable quarantined line is matched by an entity's name only
    assert purge(tmp_path, matcher("ns", "entity", None, set(), "session"), "session") == 2

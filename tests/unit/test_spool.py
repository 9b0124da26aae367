"""The spool file format and its locking (no Neo4j involved)."""

from __future__ import annotations

import json
from pathlib import Path

from kgmem.spool import QUARANTINE_FILE, Spool


def test_append_is_durable_and_numbered(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    assert spool.append([{"tool": "a"}, {"tool": "b"}]) == 2
    assert spool.append([{"tool": "c"}]) == 1
    [segment] = list(tmp_path.glob("learning-*.jsonl"))
    lines = [json.loads(x) for x in segment.read_text().splitlines()]
    assert [(x["seq"], x["tool"]) for x in lines] == [(0, "a"), (1, "b"), (2, "c")]
    assert spool.stats() == {"pending": 3, "spooled": 3, "replayed": 0, "dropped": 0, "quarantined": 0}


def test_a_segment_being_written_is_not_claimed(tmp_path: Path) -> None:
    writer = Spool(tmp_path)
    writer.append([{"ns": "a", "tool": "a"}])
    replayer = Spool(tmp_path)  # another client (another process in real life)
    [segment] = replayer.segments()
    with replayer.claim(segment) as events:
        assert events is None  # the writer's shared lock blocks an exclusive claim
    writer.rotate()
    with replayer.claim(segment) as events:
        assert [e["tool"] for e in events] == ["a"]
    replayer.retire(segment, 1)
    assert replayer.segments() == [] and replayer.stats()["replayed"] == 1


def test_rotation_starts_a_new_segment_and_a_torn_last_line_is_quarantined(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append([{"ns": "a", "tool": "a"}])
    spool.rotate()
    spool.append([{"ns": "a", "tool": "b"}])
    spool.rotate()
    first, second = spool.segments()
    with open(second, "a") as handle:
        handle.write('{"seq": 1, "tool": "tor')  # a crash mid-write
    with spool.claim(second) as events:
        assert [e["tool"] for e in events] == ["b"]
    with spool.claim(first) as events:
        assert [e["seq"] for e in events] == [0]
    [bad] = [json.loads(x) for x in (tmp_path / QUARANTINE_FILE).read_text().splitlines()]
    assert bad["segment"] == second.name and bad["line"] == 1 and bad["text"] == '{"seq": 1, "tool": "tor'
    assert spool.stats()["quarantined"] == 1


def test_lines_no_replay_can_apply_are_quarantined_once_and_the_rest_kept(tmp_path: Path) -> None:
    good = [{"seq": i, "ns": "a", "kind": "learning", "tool": f"t{i}"} for i in (0, 2, 4)]
    lines = [
        json.dumps(good[0]),
        '{"seq": 1, "ns": "a", "kind": "learn',  # truncated in the middle
        json.dumps(good[1]),
        json.dumps({"seq": 3, "ns": "a", "kind": "vector_clock", "x": 1}),  # a newer kind
        json.dumps(good[2]),
        json.dumps([1, 2]),
        json.dumps({"ns": "a", "tool": "no seq"}),
    ]
    segment = tmp_path / "learning-1-abc.jsonl"
    segment.write_text("\n".join(lines) + "\n")
    spool = Spool(tmp_path)
    with spool.claim(segment) as events:
        assert events == good
    quarantined = [json.loads(x) for x in (tmp_path / QUARANTINE_FILE).read_text().splitlines()]
    assert [(q["line"], q["reason"].split(" ")[0]) for q in quarantined] == [
        (1, "unreadable"),
        (3, "unknown"),
        (5, "not"),
        (6, "no"),
    ]
    assert all(q["segment"] == segment.name for q in quarantined) and quarantined[1]["text"] == lines[3]
    assert [json.loads(x) for x in segment.read_text().splitlines()] == good  # the valid lines, only
    assert spool.stats()["quarantined"] == 4 and spool.stats()["pending"] == 3
    with spool.claim(segment) as events:  # claimed again (e.g. the replay stopped midway): nothing new
        assert events == good
    assert spool.stats()["quarantined"] == 4 and len((tmp_path / QUARANTINE_FILE).read_text().splitlines()) == 4
    assert spool.segments() == [segment]  # the quarantine file and the rewrite's temp file are no segments


def test_lines_carry_their_kind_and_old_lines_count_as_learning(tmp_path: Path) -> None:
    from kgmem.spool import KNOWLEDGE, LEARNING, TURN, _groups

    spool = Spool(tmp_path)
    spool.append([{"ns": "a", "tool": "t"}])  # the default kind
    spool.append([{"ns": "a", "text": "hi"}], kind=TURN)
    [segment] = spool.segments() or list(tmp_path.glob("learning-*.jsonl"))
    kinds = [json.loads(x)["kind"] for x in segment.read_text().splitlines()]
    assert kinds == [LEARNING, TURN]
    events = [
        {"seq": 0, "ns": "a"},  # a line of an older version: no kind
        {"seq": 1, "ns": "a", "kind": TURN},
        {"seq": 2, "ns": "a", "kind": LEARNING},
        {"seq": 3, "ns": "b", "kind": LEARNING},
        {"seq": 4, "ns": "a", "kind": KNOWLEDGE},
        {"seq": 5, "ns": "a", "kind": TURN},
        {"seq": 6, "ns": "b", "kind": LEARNING},
    ]
    groups = [(kind, ns, [e["seq"] for e in run]) for kind, ns, run in _groups(events)]
    # learning keeps its order (one run per namespace change, turns in between do not split it);
    # turns and knowledge go as one group per (kind, namespace)
    assert groups == [(LEARNING, "a", [0, 2]), (LEARNING, "b", [3, 6]), (TURN, "a", [1, 5]), (KNOWLEDGE, "a", [4])]

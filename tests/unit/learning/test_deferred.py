"""Deferred repeats, the pure parts: the memo of known patterns, the flush trigger and the deferred
segment's bookkeeping on disk (no Neo4j; the graph side is tests/integration/learning/test_deferred.py)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from kgmem.learning.deferred import (
    DeferredSegment,
    Flusher,
    KnownPatterns,
    flush_due,
    flush_wait,
    indexed_ids,
)
from kgmem.spool import DEFERRED_PREFIX, Spool


def test_known_patterns_is_a_bounded_lru_per_namespace() -> None:
    known = KnownPatterns(size=2)
    known.add("a", ["x", "y"])
    assert ("a", "x") in known and ("b", "x") not in known  # namespaces never mix
    assert ("a", "x") in known  # touched: y is now the oldest
    known.add("a", ["z"])
    assert ("a", "y") not in known and ("a", "x") in known and ("a", "z") in known and len(known) == 2
    known.discard("a", "x")
    assert ("a", "x") not in known
    with pytest.raises(ValueError):
        KnownPatterns(size=0)


def test_only_indexed_rows_are_deferrable() -> None:
    rows = [{"id": "a", "vector_pending": False}, {"id": "b", "vector_pending": True}, {"id": "c"}]
    assert indexed_ids(rows) == ["a", "c"]


@pytest.mark.parametrize(
    ("now", "first", "n", "due"),
    [
        (10.0, None, 0, False),  # nothing buffered
        (10.1, 10.0, 3, False),  # 100 ms after the first, 200 ms window
        (10.25, 10.0, 3, True),  # the window is over
        (10.0, 10.0, 500, True),  # the count trigger, at once
        (10.0, 10.0, 499, False),
    ],
)
def test_flush_due(now: float, first: float | None, n: int, due: bool) -> None:
    assert flush_due(now, first, n, 0.2, 500) is due


def test_flush_wait() -> None:
    assert flush_wait(10.0, None, 0, 0.2) is None
    assert flush_wait(10.05, 10.0, 1, 0.2) == pytest.approx(0.15)
    assert flush_wait(11.0, 10.0, 1, 0.2) == 0.0


def test_segment_counts_and_cursor(tmp_path: Path) -> None:
    seg = DeferredSegment(tmp_path)
    assert seg.append("ns", {"tool": "t", "message": "boom", "seq": 0}, "e1") == 1
    assert seg.append("ns", {"tool": "t", "message": "boom", "seq": 0}, "e1") == 2
    assert seg.append("ns", {"tool": "t", "message": "bang", "seq": 0}, "e2") == 1
    [path] = tmp_path.glob("learning-*.jsonl")
    assert path.name.startswith(DEFERRED_PREFIX) and seg.segment == path.name
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(x["seq"], x["error_id"], x["deferred"], x["ns"]) for x in lines] == [
        (0, "e1", True, "ns"),
        (1, "e1", True, "ns"),
        (2, "e2", True, "ns"),
    ]
    # not outage traffic: the shared "spooled" counter does not move
    assert Spool(tmp_path).stats()["spooled"] == 0
    seg.applied(1)
    assert seg.unapplied("ns", "e1") == 0 and seg.unapplied("ns", "e2") == 1 and seg.cursor == 1
    assert [e["seq"] for e in seg.events] == [2] and seg.spool.applied == 2
    assert not seg.rotate_if_done(time.monotonic(), force=True)  # a line is still unapplied: kept
    seg.applied(2)
    assert seg.first_at is None
    assert not seg.rotate_if_done(time.monotonic())  # short and just written: kept (one cursor per segment)
    assert seg.rotate_if_done(time.monotonic(), force=True) and not path.exists() and seg.cursor == -1


def test_the_owners_live_segment_is_not_pending_nor_a_replay_candidate(tmp_path: Path) -> None:
    main = Spool(tmp_path)
    seg = DeferredSegment(tmp_path)
    main.companions.append(seg.spool)
    seg.append("ns", {"tool": "t", "message": "boom", "seq": 0}, "e1")
    seg.append("ns", {"tool": "t", "message": "boom", "seq": 0}, "e1")
    assert main.segments() == [] and main.pending() == 2
    seg.applied(0)
    assert main.pending() == 1  # the owner's applied lines are not pending
    other = Spool(tmp_path)  # another client: the file is held by its live owner
    assert other.pending() == 0 and len(other.segments()) == 1
    with other.claim(other.segments()[0]) as events:
        assert events is None


def test_hand_over_leaves_the_file_to_the_replayer(tmp_path: Path) -> None:
    seg = DeferredSegment(tmp_path)
    seg.append("ns", {"tool": "t", "message": "boom", "seq": 0}, "e1")
    seg.append("ns", {"tool": "t", "message": "boom", "seq": 0}, "e1")
    seg.applied(0)
    assert seg.hand_over() == 1
    assert seg.events == [] and seg.unapplied("ns", "e1") == 0 and seg.segment is None
    other = Spool(tmp_path)
    [path] = other.segments()
    assert other.pending() == 2  # released: pending for any replayer (its cursor skips line 0)
    with other.claim(path) as events:
        assert [e["seq"] for e in events] == [0, 1]


def test_flusher_flushes_after_the_window_and_at_the_count(tmp_path: Path) -> None:
    seg = DeferredSegment(tmp_path)
    flushed = threading.Event()

    def flush() -> None:
        seg.applied(int(seg.events[-1]["seq"]))
        flushed.set()

    flusher = Flusher(seg, flush, lambda: None, flush_s=0.05, max_events=3)
    try:
        seg.append("ns", {"tool": "t", "message": "m", "seq": 0}, "e")
        flusher.notify()
        assert flushed.wait(5) and seg.events == []
        flushed.clear()
        slow = Flusher(seg, flush, lambda: None, flush_s=3600, max_events=3)  # only the count can trigger
        try:
            for _ in range(3):
                seg.append("ns", {"tool": "t", "message": "m", "seq": 0}, "e")
                slow.notify()
            assert flushed.wait(5) and seg.events == []
        finally:
            slow.stop()
    finally:
        flusher.stop()

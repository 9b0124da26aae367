"""The overlay-expiry operation (never-ended sessions) driven with scripted I/O: which sessions it
asks to merge, how it reads the merge back, and its input checks. The Cypher itself is tested on
the real stack (tests/integration/retrieval/test_overlay_ttl.py)."""

from __future__ import annotations

import time

import pytest

from kgmem.config import RetrievalSettings
from kgmem.errors import ValidationError
from kgmem.retrieval.service import RetrievalEngine
from kgmem.runner import Read, Write, _drive


def drive(op, replies):
    """Run ``op``, answering each I/O request from ``replies`` (name → rows); return (result, requests)."""
    seen = []

    def handle(req):
        seen.append(req)
        return replies[req.name]

    return _drive(op, handle), seen


def merged_row(ns, session, d_alpha, current_alpha):
    item = {
        "id": "k1",
        "base_alpha": 1.0,
        "base_beta": 1.0,
        "d_alpha": d_alpha,
        "d_beta": 0.0,
        "alpha": current_alpha + d_alpha,
        "beta": 1.0,
    }
    return {"ns": ns, "session": session, "merged": [item]}


def test_expiry_merges_the_stale_sessions_in_one_write():
    engine = RetrievalEngine(overlay_ttl_hours=2)
    stale = [{"ns": "a", "session": "s1", "last_ms": 5}, {"ns": "b", "session": "s2", "last_ms": 7}]
    replies = {
        "retrieval/overlay_stale": stale,
        "retrieval/overlay_merge": [merged_row("a", "s1", 0.8, 1.0), merged_row("b", "s2", 1.0, 3.0)],
    }
    before = int(time.time() * 1000)
    expired, seen = drive(engine.expire_overlays_op(), replies)
    read, write = seen
    assert isinstance(read, Read) and read.params["ns"] is None and read.params["limit"] == 100
    assert before - 2 * 3_600_000 - 1000 <= read.params["cutoff_ms"] <= int(time.time() * 1000) - 2 * 3_600_000
    assert isinstance(write, Write) and write.params["targets"] == [
        {"ns": "a", "session": "s1"},
        {"ns": "b", "session": "s2"},
    ]
    assert [(e.ns, e.session, e.last_ms) for e in expired] == [("a", "s1", 5), ("b", "s2", 7)]
    first, second = expired[0].merges[0], expired[1].merges[0]
    assert first.merged.alpha == pytest.approx(1.8) and first.theirs.alpha == pytest.approx(0.0)
    assert second.theirs.alpha == pytest.approx(2.0)  # another session had merged +2 meanwhile


def test_nothing_stale_means_no_write():
    expired, seen = drive(RetrievalEngine().expire_overlays_op("ns", ttl_hours=0.5), {"retrieval/overlay_stale": []})
    assert expired == [] and len(seen) == 1 and seen[0].params["ns"] == "ns"


@pytest.mark.parametrize("bad", [0, -1, "24", True])
def test_ttl_is_validated(bad):
    with pytest.raises(ValidationError, match="overlay_ttl_hours"):
        RetrievalEngine(overlay_ttl_hours=bad)
    with pytest.raises(ValidationError, match="ttl_hours"):
        drive(RetrievalEngine().expire_overlays_op("ns", ttl_hours=bad), {})


def test_limit_is_validated_and_the_setting_has_a_default():
    with pytest.raises(ValidationError, match="limit"):
        drive(RetrievalEngine().expire_overlays_op("ns", limit=0), {})
    assert RetrievalSettings().overlay_ttl_hours == 24.0

"""Newer first among same-subject hits when the question asks for a current value."""

from __future__ import annotations

from kgmem.retrieval.recency import newer_first, wants_current
from kgmem.retrieval.types import Provenance, SearchHit


def hit(id: str, text: str, score: float, ts: str | None = None, kind: str = "message", **meta: str) -> SearchHit:
    return SearchHit(id, kind, text, score, {}, Provenance(("vector",)), ts=ts, metadata=dict(meta))


def test_a_newer_same_subject_hit_takes_the_older_ones_place_and_score():
    old = hit("a", "My favourite editor is Vim.", 0.9, ts="2026-03-01T10:00:00+00:00")
    other = hit("b", "We talked about lunch.", 0.8, ts="2026-03-01T10:05:00+00:00")
    new = hit("c", "My favourite editor is Helix.", 0.7, ts="2026-04-01T10:00:00+00:00")
    out = newer_first([old, other, new], "What is my favourite editor?")
    assert [h.id for h in out] == ["c", "b", "a"]
    assert [h.score for h in out] == [0.9, 0.8, 0.7]
    assert out[0].breakdown["newer_first"] == 1.0


def test_knowledge_uses_valid_from_and_kinds_do_not_mix():
    old = hit("k1", "The port is 8080.", 0.9, kind="knowledge", valid_from="2026-03-01T00:00:00+00:00")
    msg = hit("m", "The port is 9090.", 0.8, ts="2026-04-01T00:00:00+00:00")
    new = hit("k2", "The port is 9090.", 0.7, kind="knowledge", valid_from="2026-04-01T00:00:00+00:00")
    assert [h.id for h in newer_first([old, msg, new], "Which port?")] == ["k2", "m", "k1"]


def test_a_past_question_different_subjects_or_no_time_keep_the_ranking():
    old = hit("a", "My favourite editor is Vim.", 0.9, ts="2026-03-01T10:00:00+00:00")
    new = hit("c", "My favourite editor is Helix.", 0.7, ts="2026-04-01T10:00:00+00:00")
    assert [h.id for h in newer_first([old, new], "What was my favourite editor before?")] == ["a", "c"]
    unrelated = hit("d", "The weather in Lisbon is mild today.", 0.5, ts="2026-05-01T10:00:00+00:00")
    assert [h.id for h in newer_first([old, unrelated], "What is my favourite editor?")] == ["a", "d"]
    undated = hit("e", "My favourite editor is Helix.", 0.5)
    assert [h.id for h in newer_first([old, undated], "What is my favourite editor?")] == ["a", "e"]


def test_past_cues():
    assert wants_current("Where do I live now?")
    assert not wants_current("Where did I live?")
    assert not wants_current("What was my previous car?")

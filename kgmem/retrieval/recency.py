"""Newer first: when a question asks for a current value, the newer of two hits about the same thing
ranks first.

A change the judge detected is handled by time itself (the superseded item is not current). This is
for what it did not detect — two turns "My favourite editor is Vim." (March) and "My favourite editor
is Helix." (April), or two items no rule linked: among the final hits, a hit that is *newer* than a hit
ranked above it and of the same kind with mostly the same words (word Jaccard >= ``SAME_SUBJECT``)
trades places with it (scores too, so the order stays by score). A question with a past cue ("was",
"did", "used to", "before" ...) or a search ``as_of`` a time is left as ranked: it asks about then.
"""

from __future__ import annotations

import re
from dataclasses import replace

from kgmem.retrieval.types import SearchHit

#: Two hits are about the same thing when this share of their words (Jaccard) is common.
SAME_SUBJECT = 0.5
_PAST = re.compile(
    r"\b(?:was|were|did|had|used to|before|previous(?:ly)?|original(?:ly)?|first|initial(?:ly)?|earlier|ago|"
    r"former(?:ly)?|old|last (?:year|month|week|time))\b",
    re.I,
)
_WORD = re.compile(r"[\w'.-]+")


def wants_current(query: str) -> bool:
    """A question without a past cue asks for the value now."""
    return _PAST.search(query) is None


def _words(text: str) -> frozenset[str]:
    return frozenset(w.strip(".'-").lower() for w in _WORD.findall(text) if w.strip(".'-"))


def _time(hit: SearchHit) -> str:
    return str(hit.metadata.get("valid_from") or hit.ts or "")


def same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    """Mostly the same words (word Jaccard >= SAME_SUBJECT)."""
    union = a | b
    return bool(union) and len(a & b) / len(union) >= SAME_SUBJECT


def newer_first(hits: list[SearchHit], query: str) -> list[SearchHit]:
    """``hits`` with each newer hit moved above an older same-subject hit of its kind (see the module)."""
    if len(hits) < 2 or not wants_current(query):
        return hits
    out = list(hits)
    words = [_words(h.text) for h in out]
    for j in range(1, len(out)):
        when = _time(out[j])
        if not when:
            continue
        for i in range(j):
            older = out[i]
            if older.kind == out[j].kind and _time(older) and _time(older) < when and same_subject(words[i], words[j]):
                newer = out[j]
                out[i] = replace(newer, score=older.score, breakdown={**newer.breakdown, "newer_first": 1.0})
                out[j] = replace(older, score=newer.score)
                words[i], words[j] = words[j], words[i]
                break
    return out

"""Where graph neighbours may enter the ranking: direct hits keep their order, neighbours compete for slots.

Pure (no I/O); unit-tested in tests/unit/retrieval/test_slots.py.

The first Graph RAG version lifted a neighbour to ``max(own score, 0.9 × seed score)`` and sorted
everything together. On LoCoMo conversations it was not tuned on that *lowered* recall against plain
hybrid: a top seed's neighbour turns displaced the second and third direct evidence of
multi-hop questions. Here the two lists stay apart:

* **direct** items (found by a leg), best first, keep their relative order;
* **neighbours** (reached by the traversal; score = the seed's score × path weight) only take a position
  when they beat the direct item that would otherwise go there by ``margin`` (× ``1 + margin``), or when
  the position is a *reserved* graph slot (every ``slot_every``-th position, from ``slot_start`` on).

An item that is both (a direct hit that is also some seed's neighbour) is placed at whichever position
it wins first and only once. With ``margin = 0`` and no reserved slots this is exactly the old
max-lift ranking, so the old behaviour is one setting of this one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgmem.retrieval.text import STOP_WORDS

_WORDS = re.compile(r"[\w'’]+")
_POSSESSIVE = re.compile(r"['’]s?$")


@dataclass(frozen=True)
class Slotted:
    """One placed item: ``source`` is ``"direct"`` or ``"graph"`` (how it earned its position)."""

    id: str
    score: float
    source: str


def interleave(
    direct: Sequence[tuple[str, float]],
    neighbours: Sequence[tuple[str, float]],
    k: int,
    margin: float = 0.0,
    slot_every: int = 0,
    slot_start: int = 1,
) -> list[Slotted]:
    """Merge ``direct`` and ``neighbours`` (each ``(id, score)``, any order) into ``k`` positions.

    Args:
        direct: items the legs found, with their final score.
        neighbours: items the traversal reached, with their inherited score.
        k: positions to fill.
        margin: a neighbour takes an ordinary position only if its score > ``(1 + margin) ×`` the
            best remaining direct score.
        slot_every: every ``slot_every``-th position (1-based, counted from ``slot_start``) is offered to
            the best remaining neighbour first; 0 = no reserved slots.
        slot_start: the first position that can be a reserved slot (positions before it never are).
    """
    if k < 0 or margin < 0 or slot_every < 0 or slot_start < 1:
        raise ValueError("interleave: k, margin and slot_every must be >= 0 and slot_start >= 1")
    d = sorted(direct, key=lambda x: -x[1])
    n = sorted(neighbours, key=lambda x: -x[1])
    placed: dict[str, Slotted] = {}
    i = j = 0
    while len(placed) < k:
        while i < len(d) and d[i][0] in placed:
            i += 1
        while j < len(n) and n[j][0] in placed:
            j += 1
        if i >= len(d) and j >= len(n):
            break
        position = len(placed) + 1
        reserved = slot_every > 0 and position >= slot_start and (position - slot_start) % slot_every == slot_every - 1
        take_graph = j < len(n) and (
            i >= len(d) or reserved or n[j][1] > (1.0 + margin) * d[i][1]
        )
        if take_graph:
            placed[n[j][0]] = Slotted(n[j][0], n[j][1], "graph")
            j += 1
        else:
            placed[d[i][0]] = Slotted(d[i][0], d[i][1], "direct")
            i += 1
    return list(placed.values())


def query_names(query: str) -> list[str]:
    """Capitalised words of ``query`` except its first word and stop words, lower-cased, possessive
    dropped, de-duplicated: the entities a question names ("Which city have both Jean and John
    visited?" → ``["jean", "john"]``). Two or more names mark a multi-entity (multi-hop) question."""
    out: dict[str, None] = {}
    for idx, word in enumerate(_WORDS.findall(query)):
        if idx == 0 or not word[0].isupper():
            continue
        name = _POSSESSIVE.sub("", word).lower()
        if name and name not in STOP_WORDS:
            out[name] = None
    return list(out)


def entity_seeds(names: Sequence[str], ranked: Sequence[tuple[str, str]], limit: int) -> list[str]:
    """For each name, the best-ranked candidate whose text (``"role: text"``) contains it as a word.

    Args:
        names: lower-cased names (:func:`query_names`).
        ranked: ``(id, searchable text)`` best first.
        limit: look only at the first ``limit`` candidates.
    Returns the ids, one per name that has one, in name order, without duplicates.
    """
    out: dict[str, None] = {}
    head = [(i, t.lower()) for i, t in ranked[:limit]]
    for name in names:
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        for item_id, text in head:
            if pattern.search(text):
                out[item_id] = None
                break
    return list(out)

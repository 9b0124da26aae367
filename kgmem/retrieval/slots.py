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

No neighbour takes a position before ``slot_start``. The concept hop's neighbours enter the result the
same way, against the ranking the first step made (:mod:`kgmem.retrieval.concept_hop`).

An item that is both (a direct hit that is also some seed's neighbour) is placed at whichever position
it wins first and only once. With ``margin = 0`` and no reserved slots this is exactly the old
max-lift ranking, so the old behaviour is one setting of this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Slotted:
    """One placed item: ``source`` is the ranking's own (``"direct"``, ``"graph"``) or the neighbours'
    (how it earned its position)."""

    id: str
    score: float
    source: str


def interleave(
    ranking: Sequence[tuple[str, float, str]],
    neighbours: Sequence[tuple[str, float]],
    k: int,
    margin: float = 0.0,
    slot_every: int = 0,
    slot_start: int = 1,
    *,
    source: str = "graph",
    floor: float = 0.0,
    lift: bool = True,
) -> list[Slotted]:
    """Let ``neighbours`` compete for the first ``k`` positions of ``ranking``, which keeps its order.

    Both steps of the ranking use it: the traversal's neighbours against the direct hits (sorted by
    score), then the concept hop's neighbours against that result.

    Args:
        ranking: ``(id, score, source)`` in the order it keeps.
        neighbours: ``(id, score)``, any order.
        k: positions to fill.
        margin: a neighbour takes an ordinary position only with a score > ``(1 + margin) ×`` the score
            of the ranking's item that would go there.
        slot_every: every ``slot_every``-th position from ``slot_start`` on is offered to the best
            remaining neighbour first; 0 = no reserved slots.
        slot_start: no neighbour takes a position before this one (1-based).
        source: the ``source`` of a placed neighbour.
        floor: a ranking item scoring at least ``floor ×`` the ranking's first score is a *strong*
            hit, and no neighbour is placed ahead of one: neighbours compete only for the positions
            after the last strong hit (so they never push a strong hit down, let alone out); 0 = no
            item is strong.
        lift: an item in both lists is placed once, where it wins first; with ``lift`` False a
            neighbour already in the first ``k`` of ``ranking`` keeps its place there (and its source,
            so its provenance: the concept hop does not relabel a traversal neighbour).
    Returns at most ``k`` items.
    """
    if k < 0 or margin < 0 or slot_every < 0 or slot_start < 1 or floor < 0:
        raise ValueError("interleave: k, margin, slot_every and floor must be >= 0 and slot_start >= 1")
    head = set() if lift else {item_id for item_id, _, _ in ranking[:k]}
    queue = [n for n in sorted(neighbours, key=lambda x: -x[1]) if n[0] not in head]
    top = ranking[0][1] if ranking else 0.0
    strong = {item_id for item_id, score, _ in ranking if floor > 0 and score >= floor * top}
    placed: dict[str, Slotted] = {}
    i = j = 0
    while len(placed) < k:
        while i < len(ranking) and ranking[i][0] in placed:
            i += 1
        while j < len(queue) and queue[j][0] in placed:
            j += 1
        if i >= len(ranking) and j >= len(queue):
            break
        position = len(placed) + 1
        open_ = j < len(queue) and position >= slot_start and strong <= placed.keys()
        reserved = slot_every > 0 and position >= slot_start and (position - slot_start) % slot_every == slot_every - 1
        if open_ and (i >= len(ranking) or reserved or queue[j][1] > (1.0 + margin) * ranking[i][1]):
            placed[queue[j][0]] = Slotted(queue[j][0], queue[j][1], source)
            j += 1
        elif i < len(ranking):
            item_id, score, item_source = ranking[i]
            placed[item_id] = Slotted(item_id, score, item_source)
            i += 1
        else:
            break  # only neighbours left, and this position is closed to them
    return list(placed.values())

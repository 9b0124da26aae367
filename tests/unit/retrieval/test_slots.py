"""Neighbours compete for their own slots; direct hits keep their order."""

from __future__ import annotations

import pytest

from kgmem.retrieval import slots

DIRECT = [("d1", 1.0), ("d2", 0.8), ("d3", 0.5), ("d4", 0.4)]


def ids(placed):
    return [p.id for p in placed]


def test_margin_zero_without_slots_is_the_max_lift_ranking():
    out = slots.interleave(DIRECT, [("n1", 0.9), ("n2", 0.45)], k=6)
    assert ids(out) == ["d1", "n1", "d2", "d3", "n2", "d4"]
    assert [p.source for p in out][:2] == ["direct", "graph"]


def test_a_neighbour_needs_the_margin_to_pass_a_direct_hit():
    out = slots.interleave(DIRECT, [("n1", 0.85)], k=5, margin=0.1)
    # 0.85 > 0.8 but not > 0.88: d2 keeps its place; n1 passes d3 (0.55 threshold)
    assert ids(out) == ["d1", "d2", "n1", "d3", "d4"]


def test_direct_hits_keep_their_relative_order_whatever_the_neighbours():
    out = slots.interleave(DIRECT, [("n1", 5.0), ("n2", 4.0), ("n3", 0.01)], k=7, margin=0.2, slot_every=2)
    direct_order = [p.id for p in out if p.source == "direct"]
    assert direct_order == ["d1", "d2", "d3", "d4"]


def test_reserved_slots_go_to_the_best_remaining_neighbour():
    out = slots.interleave(DIRECT, [("n1", 0.01), ("n2", 0.001)], k=6, margin=1.0, slot_every=3)
    assert ids(out) == ["d1", "d2", "n1", "d3", "d4", "n2"]


def test_slot_start_keeps_the_head_direct():
    out = slots.interleave(DIRECT, [("n1", 0.01)], k=4, margin=1.0, slot_every=1, slot_start=3)
    assert ids(out) == ["d1", "d2", "n1", "d3"]


def test_an_item_in_both_lists_is_placed_once_where_it_wins_first():
    out = slots.interleave([("a", 1.0), ("b", 0.2)], [("b", 0.9)], k=3)
    assert ids(out) == ["a", "b"] and out[1].source == "graph" and out[1].score == 0.9


def test_runs_out_gracefully_and_validates():
    assert ids(slots.interleave([], [("n", 0.1)], k=3)) == ["n"]
    assert slots.interleave([], [], k=3) == []
    with pytest.raises(ValueError):
        slots.interleave(DIRECT, [], k=3, margin=-1)


@pytest.mark.parametrize("query, names", [
    ("Which city have both Jean and John visited?", ["jean", "john"]),
    ("What do Melanie's kids like?", ["melanie"]),
    ("What did Caroline research?", ["caroline"]),
    ("When did she go to Paris?", ["paris"]),
    ("Caroline went where?", []),  # the first word is capitalised anyway
])
def test_query_names(query, names):
    assert slots.query_names(query) == names


def test_entity_seeds_take_each_names_best_candidate():
    ranked = [("a", "Jon: I opened the studio"), ("b", "Jon: dance"), ("c", "Gina: my store"), ("d", "Gina: x")]
    assert slots.entity_seeds(["jon", "gina"], ranked, limit=10) == ["a", "c"]
    assert slots.entity_seeds(["jon", "gina"], ranked, limit=2) == ["a"]
    assert slots.entity_seeds(["jo"], ranked, limit=10) == []  # whole words only

"""Neighbours compete for their own slots; direct hits keep their order."""

from __future__ import annotations

import pytest

from kgmem.retrieval import slots

DIRECT = [("d1", 1.0, "direct"), ("d2", 0.8, "direct"), ("d3", 0.5, "direct"), ("d4", 0.4, "direct")]


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
    # however strong, a neighbour takes no position before slot_start
    assert ids(slots.interleave(DIRECT, [("n1", 9.0)], k=4, slot_start=3)) == ["d1", "d2", "n1", "d3"]


def test_an_item_in_both_lists_is_placed_once_where_it_wins_first():
    out = slots.interleave([("a", 1.0, "direct"), ("b", 0.2, "direct")], [("b", 0.9)], k=3)
    assert ids(out) == ["a", "b"] and out[1].source == "graph" and out[1].score == 0.9


def test_runs_out_gracefully_and_validates():
    assert ids(slots.interleave([], [("n", 0.1)], k=3)) == ["n"]
    assert slots.interleave([], [], k=3) == []
    with pytest.raises(ValueError):
        slots.interleave(DIRECT, [], k=3, margin=-1)
    with pytest.raises(ValueError):
        slots.interleave(DIRECT, [], k=3, slot_start=0)
    with pytest.raises(ValueError):
        slots.interleave(DIRECT, [], k=3, floor=-0.1)


# -- the second step: concept neighbours entering a ranking that already mixes sources -------------
RANKING = [("d1", 0.09, "direct"), ("d2", 0.08, "direct"), ("g1", 0.07, "graph"), ("d3", 0.03, "direct")]


def sourced(placed):
    return [(p.id, p.source) for p in placed]


def test_the_ranking_keeps_its_order_and_sources_and_a_neighbour_gets_its_own():
    assert sourced(slots.interleave(RANKING, [], k=4)) == [(i, s) for i, _, s in RANKING]
    placed = slots.interleave(RANKING, [("n", 0.05)], k=4, source="concept")
    assert sourced(placed) == [("d1", "direct"), ("d2", "direct"), ("g1", "graph"), ("n", "concept")]


def test_the_ranking_is_taken_in_its_order_not_re_sorted():
    out = slots.interleave([("a", 0.1, "direct"), ("b", 0.5, "graph")], [], k=2)
    assert ids(out) == ["a", "b"]


def test_reserved_slots_after_slot_start_go_to_neighbours_first():
    placed = slots.interleave(RANKING, [("n1", 0.001), ("n2", 0.002)], k=6, slot_every=2, slot_start=3)
    assert ids(placed) == ["d1", "d2", "g1", "n2", "d3", "n1"]


def test_only_neighbours_left_fill_the_positions_from_slot_start():
    assert sourced(slots.interleave(RANKING[:1], [("n", 0.0)], k=3, slot_start=2, source="concept")) == [
        ("d1", "direct"),
        ("n", "concept"),
    ]
    assert slots.interleave([], [("n", 0.1)], k=3, slot_start=2) == []


def test_no_neighbour_goes_ahead_of_a_strong_hit():
    ranking = [("d1", 1.0, "direct"), ("d2", 0.2, "direct"), ("d3", 0.6, "direct"), ("d4", 0.1, "direct")]
    # without a floor the neighbour passes d2 (and would push d3, the strong one, down)
    assert ids(slots.interleave(ranking, [("n", 0.5)], k=4)) == ["d1", "n", "d2", "d3"]
    # floor 0.5: d1 and d3 are strong (>= 0.5 × 1.0); the neighbour competes only after d3
    assert ids(slots.interleave(ranking, [("n", 0.5)], k=4, floor=0.5)) == ["d1", "d2", "d3", "n"]
    # reserved slots wait for the strong hits too
    assert ids(slots.interleave(ranking, [("n", 0.0)], k=4, slot_every=1, floor=0.5)) == ["d1", "d2", "d3", "n"]
    # floor 0.7: only d1 is strong
    assert ids(slots.interleave(ranking, [("n", 0.5)], k=4, floor=0.7)) == ["d1", "n", "d2", "d3"]


def test_a_strong_hit_below_k_keeps_every_neighbour_out():
    ranking = [("d1", 1.0, "direct"), ("d2", 0.1, "direct"), ("d3", 0.9, "direct")]
    assert ids(slots.interleave(ranking, [("n", 0.5)], k=2, floor=0.5)) == ["d1", "d2"]


def test_without_lift_a_neighbour_already_in_the_head_keeps_its_place_and_source():
    placed = slots.interleave(RANKING, [("g1", 1.0)], k=3, slot_start=2, source="concept", lift=False)
    assert sourced(placed) == [("d1", "direct"), ("d2", "direct"), ("g1", "graph")]
    placed = slots.interleave(RANKING, [("d3", 1.0)], k=3, slot_start=2, source="concept", lift=False)
    assert sourced(placed) == [("d1", "direct"), ("d3", "concept"), ("d2", "direct")]  # below k: lifted

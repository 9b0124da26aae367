"""The concept hop's weighting: specificity, seed choice, neighbour scores (its slots: test_slots.py)."""

from __future__ import annotations

import pytest

from kgmem.retrieval.concept_hop import Shared, neighbour_scores, pick_seeds, seed_share, shared_weight, specificity


# -- specificity ------------------------------------------------------------------------------
def test_specificity_damps_by_document_frequency():
    assert specificity(2, 1.0, 50) == pytest.approx(0.5)
    assert specificity(10, 1.0, 50) == pytest.approx(0.1)
    assert specificity(4, 0.5, 50) == pytest.approx(0.5)
    assert specificity(9, 0.0, 50) == 1.0  # alpha 0: no damping


def test_a_concept_above_the_cap_or_mentioned_once_counts_nothing():
    assert specificity(51, 1.0, 50) == 0.0  # the speaker's name every turn carries
    assert specificity(50, 1.0, 50) == pytest.approx(0.02)
    assert specificity(1, 1.0, 50) == 0.0  # nobody else mentions it
    assert specificity(0, 1.0, 50) == 0.0


def test_specificity_rejects_negative_settings():
    with pytest.raises(ValueError):
        specificity(3, -1.0, 50)


# -- seeds ------------------------------------------------------------------------------------
RANKED = [
    ("t1", 0.09, "Caroline: I went to the LGBTQ support group yesterday."),
    ("t2", 0.08, "Melanie: Caroline, that sounds lovely."),
    ("t3", 0.07, "Melanie: My kids loved the pottery workshop."),
    ("t4", 0.06, "Caroline: Melanie's paintings are in the Sunflower gallery now."),
]


def test_the_top_candidates_are_seeds_with_their_scores():
    assert pick_seeds(RANKED, [], top=2, pool=30) == {"t1": 0.09, "t2": 0.08}


def test_each_question_concept_adds_its_best_candidate():
    seeds = pick_seeds(RANKED, ["pottery workshop", "sunflower"], top=1, pool=30)
    assert seeds == {"t1": 0.09, "t3": 0.07, "t4": 0.06}


def test_a_lemmatised_key_finds_the_inflected_text_and_not_a_word_inside_another():
    assert "t4" in pick_seeds(RANKED, ["painting"], top=0, pool=30)  # "paintings"
    assert pick_seeds(RANKED, ["kid"], top=0, pool=30) == {"t3": 0.07}
    assert pick_seeds(RANKED, ["up"], top=0, pool=30) == {}  # not inside "support" / "group"


def test_the_pool_bounds_where_a_question_concept_looks():
    assert pick_seeds(RANKED, ["sunflower"], top=0, pool=3) == {}
    assert pick_seeds(RANKED, ["sunflower"], top=0, pool=4) == {"t4": 0.06}


# -- neighbour scores ---------------------------------------------------------------------------
def test_neighbour_score_is_seed_score_times_specificity():
    out = neighbour_scores([("s", "n", [Shared("marisol", 2)])], {"s": 0.08})
    assert [(n.id, n.via) for n in out] == [("n", (("s", "marisol"),))]
    assert out[0].score == pytest.approx(0.08 * 0.5)


def test_a_rare_concept_beats_a_common_one_and_a_hub_counts_nothing():
    out = neighbour_scores(
        [
            ("s", "rare", [Shared("lisbon", 2)]),
            ("s", "common", [Shared("painting", 20)]),
            ("s", "hub", [Shared("caroline", 400)]),
        ],
        {"s": 1.0},
        max_df=50,
    )
    assert [n.id for n in out] == ["rare", "common"]
    assert out[1].score == pytest.approx(1 / 20)


def test_a_stronger_seed_gives_a_stronger_neighbour():
    out = neighbour_scores(
        [("weak", "a", [Shared("x", 3)]), ("strong", "b", [Shared("y", 3)])], {"weak": 0.02, "strong": 0.09}
    )
    assert [n.id for n in out] == ["b", "a"]
    assert out[0].score / out[1].score == pytest.approx(4.5)


def test_shared_concepts_add_up_to_the_cap():
    shared = [Shared("a", 2), Shared("b", 2), Shared("c", 2)]
    assert neighbour_scores([("s", "n", shared)], {"s": 1.0}, cap=1.0)[0].score == pytest.approx(1.0)
    assert neighbour_scores([("s", "n", shared)], {"s": 1.0}, cap=5.0)[0].score == pytest.approx(1.5)


def test_shared_weight_is_the_sum_bounded_by_the_cap_and_a_multiple_of_the_best():
    assert shared_weight([0.5, 0.5], cap=1.0, best_multiple=2.0) == pytest.approx(1.0)
    assert shared_weight([0.5, 0.25], cap=0.5, best_multiple=2.0) == pytest.approx(0.5)
    assert shared_weight([0.1] * 15, cap=1.0, best_multiple=2.0) == pytest.approx(0.2)
    assert shared_weight([0.1] * 15, cap=1.0) == pytest.approx(1.0)
    assert shared_weight([0.5, 0.1, 0.1], cap=1.0, best_multiple=1.0) == pytest.approx(0.5)
    assert shared_weight([], cap=1.0, best_multiple=2.0) == 0.0


def test_shared_weight_rejects_bad_settings():
    with pytest.raises(ValueError, match="cap"):
        shared_weight([0.5], cap=0.0)
    with pytest.raises(ValueError, match="best_multiple"):
        shared_weight([0.5], cap=1.0, best_multiple=0.5)


def test_two_rare_concepts_beat_many_mid_frequency_ones():
    # The bridge shares two names (df 2) with its seed; the long reply shares fifteen words of df 10 with
    # it. By the cap alone both reach 1 (the reply inherits the seed's full score); bounded by a multiple
    # of the best single concept, the reply counts a fifth of the bridge.
    rows = [
        ("s", "bridge", [Shared("marisol", 2), Shared("harbor street", 2)]),
        ("s", "reply", [Shared(f"w{i}", 10) for i in range(15)]),
    ]
    capped = neighbour_scores(rows, {"s": 0.1}, cap=1.0)
    assert [n.score for n in capped] == [pytest.approx(0.1), pytest.approx(0.1)]
    out = neighbour_scores(rows, {"s": 0.1}, cap=1.0, best_multiple=2.0)
    assert [(n.id, n.score) for n in out] == [("bridge", pytest.approx(0.1)), ("reply", pytest.approx(0.02))]


def test_a_concept_the_question_names_is_boosted():
    rows = [("s", "named", [Shared("lisbon", 4)]), ("s", "other", [Shared("tile", 4)])]
    out = neighbour_scores(rows, {"s": 1.0}, ["lisbon"], query_boost=2.0)
    assert [(n.id, n.score) for n in out] == [("named", pytest.approx(0.5)), ("other", pytest.approx(0.25))]


def test_a_bridge_reached_from_two_seeds_adds_both():
    out = neighbour_scores(
        [("s1", "bridge", [Shared("x", 2)]), ("s2", "bridge", [Shared("y", 2)]), ("s1", "single", [Shared("z", 2)])],
        {"s1": 0.1, "s2": 0.1},
    )
    assert [n.id for n in out] == ["bridge", "single"]
    assert out[0].score == pytest.approx(0.1)
    assert {seed for seed, _ in out[0].via} == {"s1", "s2"}


def test_weight_scales_and_a_seed_is_not_its_own_neighbour():
    out = neighbour_scores([("s", "s", [Shared("x", 2)]), ("s", "n", [Shared("x", 2)])], {"s": 0.1}, weight=3.0)
    assert [(n.id, n.score) for n in out] == [("n", pytest.approx(0.15))]


def test_neighbour_scores_rejects_bad_settings():
    with pytest.raises(ValueError):
        neighbour_scores([], {}, cap=0.0)
    with pytest.raises(ValueError, match="best_multiple"):
        neighbour_scores([], {}, best_multiple=0.9)


# -- a seed's share per concept -------------------------------------------------------------------
def test_seed_share_splits_a_seed_over_its_concepts():
    assert seed_share(4, 1.0) == pytest.approx(0.25)
    assert seed_share(4, 0.5) == pytest.approx(0.5)
    assert seed_share(30, 0.0) == 1.0  # no damping: every concept passes on the full score
    assert seed_share(0, 1.0) == 1.0  # a seed the read found no walkable concept for counts as one
    with pytest.raises(ValueError, match="damping"):
        seed_share(3, -0.5)


def test_a_long_seed_passes_on_less_through_one_shared_concept_than_a_short_one():
    # Both seeds score 0.08 and share one df-2 concept with a neighbour; the long reply mentions 25
    # walkable concepts, the short turn 2. Damped, the long reply's neighbour counts a fifth of the other.
    rows = [("short", "a", [Shared("marisol", 2)]), ("long", "b", [Shared("fitness level", 2)])]
    seeds = {"short": 0.08, "long": 0.08}
    flat = neighbour_scores(rows, seeds, degrees={"short": 2, "long": 25})
    assert [n.score for n in flat] == [pytest.approx(0.04), pytest.approx(0.04)]
    out = neighbour_scores(rows, seeds, degrees={"short": 2, "long": 25}, seed_damping=0.5)
    assert [(n.id, n.score) for n in out] == [("a", pytest.approx(0.04 / 2**0.5)), ("b", pytest.approx(0.04 / 5))]
    with pytest.raises(ValueError, match="seed_damping"):
        neighbour_scores(rows, seeds, seed_damping=-1.0)

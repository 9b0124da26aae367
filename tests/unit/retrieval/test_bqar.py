"""BQAR math: three-way merge (incl. concurrent merges), shift detection, sampling, attribution."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kgmem.errors import ValidationError
from kgmem.retrieval import bqar
from kgmem.retrieval.bqar import Beta


def test_seed_example_merges_all_evidence():
    m = bqar.three_way_merge(base=Beta(10, 5), session=Beta(15, 7), current=Beta(12, 8))
    assert m.merged == Beta(17, 10)
    assert m.ours == Beta(5, 2) and m.theirs == Beta(2, 3)
    assert m.conflict  # we learned "good" (+5/+2), they learned "bad" (+2/+3)


def test_no_conflict_when_only_one_side_moved():
    m = bqar.three_way_merge(Beta(1, 1), Beta(3, 1), Beta(1, 1))
    assert m.merged == Beta(3, 1) and not m.conflict


def test_concurrent_merges_commute_and_lose_nothing():
    """Sessions forked from the same base, merged in any order, each on the result of the previous."""
    base = Beta(2, 3)
    sessions = [Beta(5, 3), Beta(2, 7), Beta(4, 4)]  # deltas +3/0, 0/+4, +2/+1
    results = set()
    for order in itertools.permutations(sessions):
        current = base
        for s in order:
            current = bqar.three_way_merge(base, s, current).merged
        results.add((round(current.alpha, 9), round(current.beta, 9)))
    assert results == {(2 + 3 + 0 + 2, 3 + 0 + 4 + 1)}


def test_a_lost_update_would_be_caught():
    """Merging both sessions against the *stale* current (what a racy read-modify-write does) drops one."""
    base = Beta(1, 1)
    a, b = Beta(3, 1), Beta(1, 4)
    racy = bqar.three_way_merge(base, b, base).merged  # b did not see a's merge
    correct = bqar.three_way_merge(base, b, bqar.three_way_merge(base, a, base).merged).merged
    assert racy != correct and correct == Beta(3, 4)


def test_apply_signal_and_effective():
    d = bqar.apply_signal(bqar.apply_signal(Beta(0, 0), 0.8), -0.1)
    assert d == Beta(0.8, pytest.approx(0.1))
    assert bqar.effective(None, d, Beta(1, 1)) == Beta(1.8, pytest.approx(1.1))
    assert bqar.effective(Beta(3, 2), None, Beta(1, 1)) == Beta(3, 2)


def unit(*xs):
    v = np.array(xs, dtype=float)
    return v / np.linalg.norm(v)


def test_shift_detected_against_the_centroid_and_resets_it():
    state = bqar.ShiftState()
    for v in (unit(1, 0.1, 0), unit(1, 0, 0.1), unit(1, 0.05, 0.05)):
        r = bqar.observe(state, v, threshold=0.5)
        assert not r.is_shift
        state = r.state
    assert state.n == 3
    r = bqar.observe(state, unit(0, 0, 1), threshold=0.5)
    assert r.is_shift and r.distance > 0.5
    assert r.state.n == 1 and r.state.shifts == 1
    assert np.allclose(r.state.centroid, unit(0, 0, 1))


def test_no_shift_before_min_queries_and_similar_queries_never_shift():
    first = bqar.observe(bqar.ShiftState(), unit(1, 0), threshold=0.3).state
    r = bqar.observe(first, unit(0, 1), threshold=0.3, min_queries=2)
    assert not r.is_shift  # one query is no conversation yet
    state = bqar.ShiftState()
    for i in range(20):
        r = bqar.observe(state, unit(1, 0.01 * i), threshold=0.3)
        assert not r.is_shift
        state = r.state


def test_shift_validates():
    with pytest.raises(ValidationError):
        bqar.observe(bqar.ShiftState(), unit(1, 0), threshold=0)


def test_thompson_sampling_is_reproducible_with_a_seed_and_centred_on_the_mean():
    a = [bqar.sample_posterior(np.random.default_rng(7), 8, 2) for _ in range(3)]
    b = [bqar.sample_posterior(np.random.default_rng(7), 8, 2) for _ in range(3)]
    assert a == b
    rng = np.random.default_rng(1)
    draws = [bqar.sample_posterior(rng, 8, 2) for _ in range(4000)]
    assert np.mean(draws) == pytest.approx(0.8, abs=0.01) and np.std(draws) > 0.05


RETRIEVED = [("a", "message"), ("b", "message"), ("c", "knowledge"), ("d", "message")]


def test_attribution_credits_only_the_cited_hits():
    updates = {
        u.id: u.delta for u in bqar.attribute(RETRIEVED, included=["a", "b", "c"], cited=["b"], outcome="success")
    }
    assert updates == {"b": 0.8, "a": 0.2, "c": 0.2, "d": -0.1}


def test_attribution_of_a_bad_outcome_blames_the_cited_hit_not_the_bystanders():
    updates = {u.id: u.delta for u in bqar.attribute(RETRIEVED, ["a", "b"], ["a"], "negative")}
    assert updates["a"] == -1.0 and updates["b"] == 0.2


def test_citations_parse_and_map():
    assert bqar.cited_numbers("Yes [2], see also [1] and [2].") == [2, 1]
    assert bqar.citations_to_ids([2, 1], ["x", "y"]) == ["y", "x"]
    with pytest.raises(ValidationError, match=r"\[3\]"):
        bqar.citations_to_ids([3], ["x", "y"])
    with pytest.raises(ValidationError):
        bqar.attribute(RETRIEVED, ["a"], ["zzz"], "success")

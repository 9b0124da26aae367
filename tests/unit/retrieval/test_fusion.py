"""Pure fusion and quality arithmetic."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from kgmem.retrieval import fusion
from kgmem.retrieval.types import Candidate


def cands(*ids: str, kind: str = "message") -> list[Candidate]:
    return [Candidate(id=i, kind=kind, rank=r, score=1.0 / r) for r, i in enumerate(ids, start=1)]


def test_rrf_term_is_weight_over_k_plus_rank():
    assert fusion.rrf_term(1, 0.7, 60) == pytest.approx(0.7 / 61)
    with pytest.raises(ValueError):
        fusion.rrf_term(0, 1.0, 60)


def test_fuse_sums_weighted_terms_and_records_breakdown():
    out = fusion.fuse({"vector": cands("a", "b"), "keyword": cands("b", "c")}, {"vector": 0.7, "keyword": 0.3}, k=60)
    by_id = {f.id: f for f in out}
    assert by_id["b"].score == pytest.approx(0.7 / 62 + 0.3 / 61)
    assert by_id["b"].breakdown == {"vector": pytest.approx(0.7 / 62), "keyword": pytest.approx(0.3 / 61)}
    assert by_id["b"].legs == ("vector", "keyword")
    assert [f.id for f in out] == ["b", "a", "c"]


def test_weights_decide_which_leg_wins():
    legs = {"vector": cands("v"), "keyword": cands("k")}
    assert fusion.fuse(legs, {"vector": 0.7, "keyword": 0.3})[0].id == "v"
    assert fusion.fuse(legs, {"vector": 0.3, "keyword": 0.7})[0].id == "k"


def test_agreement_bonus_uses_the_worse_rank_and_only_when_both_legs_agree():
    legs = {"vector": cands("a", "x"), "keyword": cands("y", "a")}
    out = {f.id: f for f in fusion.fuse(legs, {"vector": 0.5, "keyword": 0.5}, k=60, agreement_bonus=0.2)}
    assert out["a"].breakdown["agreement"] == pytest.approx(0.2 / 62)
    assert "agreement" not in out["x"].breakdown


def test_ties_keep_first_appearance_order():
    out = fusion.fuse({"vector": cands("a"), "keyword": cands("b")}, {"vector": 0.5, "keyword": 0.5})
    assert [f.id for f in out] == ["a", "b"]


def test_usage_posterior_is_alpha_over_alpha_plus_beta():
    assert fusion.usage_posterior(None, None) == 0.5
    assert fusion.usage_posterior(3.0, 1.0) == pytest.approx(0.75)


def test_staleness_halves_at_half_life_and_is_neutral_without_one():
    assert fusion.staleness(30.0, 30.0) == pytest.approx(0.5)
    assert fusion.staleness(1000.0, None) == 1.0
    assert fusion.staleness(None, 30.0) == 1.0


def test_quality_factors_are_neutral_for_unjudged_items():
    now = datetime.now(UTC)
    f = fusion.quality_factors({}, None, fusion.QualityWeights(), now)
    assert f["quality"] == pytest.approx(1.0)


def test_quality_factors_reward_use_and_penalise_low_confidence_and_age():
    now = datetime.now(UTC)
    w = fusion.QualityWeights(confidence=0.3, usage=0.5, staleness=0.2)
    used = fusion.quality_factors({"alpha": 3.0, "beta": 1.0}, None, w, now)
    assert used["usage"] == pytest.approx(1 + 0.5 * (0.75 - 0.5) / 0.5)
    low = fusion.quality_factors({"confidence": 0.2}, None, w, now)
    assert low["confidence"] == pytest.approx(1 - 0.3 * 0.8)
    old = fusion.quality_factors({"updated_at": (now - timedelta(days=90)).isoformat()}, 90.0, w, now)
    assert old["staleness"] == pytest.approx(1 - 0.2 * 0.5)
    assert old["quality"] < 1.0 < used["quality"]


def test_usage_factor_spans_one_minus_to_one_plus_weight():
    now = datetime.now(UTC)
    w = fusion.QualityWeights(usage=0.5)
    assert fusion.quality_factors({"alpha": 1e6, "beta": 1.0}, None, w, now)["usage"] == pytest.approx(1.5, abs=1e-4)
    assert fusion.quality_factors({"alpha": 1.0, "beta": 1e6}, None, w, now)["usage"] == pytest.approx(0.5, abs=1e-4)


def test_age_days_parses_iso_and_rejects_garbage():
    now = datetime(2024, 1, 11, tzinfo=UTC)
    assert fusion.age_days("2024-01-01T00:00:00+00:00", now) == pytest.approx(10.0)
    assert fusion.age_days("2024-01-01T00:00:00", now) == pytest.approx(10.0)
    assert fusion.age_days("yesterday", now) is None
    assert math.isclose(fusion.age_days(now + timedelta(days=1), now), 0.0)


def test_a_session_overlay_view_adds_to_the_global_posterior():
    now = datetime.now(UTC)
    w = fusion.QualityWeights()
    plain = fusion.quality_factors({"alpha": 2.0, "beta": 1.0}, None, w, now)
    viewed = fusion.quality_factors({"alpha": 2.0, "beta": 1.0, "v_alpha": 0.0, "v_beta": 2.0}, None, w, now)
    assert plain["posterior"] == pytest.approx(2 / 3) and viewed["posterior"] == pytest.approx(2 / 5)
    unjudged = fusion.quality_factors({"v_alpha": 1.0}, None, w, now)  # overlay on an item with no global counts
    assert unjudged["posterior"] == pytest.approx(2 / 3)


def test_thompson_sampling_replaces_the_mean_with_the_samplers_draw():
    now = datetime.now(UTC)
    seen = []
    out = fusion.quality_factors(
        {"alpha": 9.0, "beta": 1.0}, None, fusion.QualityWeights(), now, sample=lambda a, b: seen.append((a, b)) or 0.25
    )
    assert seen == [(9.0, 1.0)] and out["posterior"] == 0.25 and out["usage"] < 1.0


def test_a_reranked_candidate_keeps_every_other_field() -> None:
    from dataclasses import asdict, fields

    values = {
        "id": "m1",
        "kind": "message",
        "rank": 3,
        "score": 0.5,
        "text": "t",
        "props": {"role": "user"},
        "path": ("m0", "NEXT", "m1"),
        "explain": {"distance": 0.5},
    }
    assert set(values) == {f.name for f in fields(Candidate)}  # a new field must be set here (and in ranked)
    moved = Candidate(**values).ranked(1)
    assert asdict(moved) == {**values, "rank": 1}

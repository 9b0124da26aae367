"""Confidence math (float, clamped) and ranking of suggestions."""

from __future__ import annotations

import pytest

from kgmem.learning.confidence import (
    ConfidenceRules,
    after_outcome,
    after_outcomes,
    beta_mean,
    clamp,
    failed_fixes,
    is_auto_apply,
    never_worked,
    propagated,
    rank_fixes,
)

RULES = ConfidenceRules()


def test_success_adds_boost_failure_subtracts_penalty() -> None:
    assert after_outcome(0.5, True, RULES) == pytest.approx(0.6)
    assert after_outcome(0.5, False, RULES) == pytest.approx(0.3)


def test_clamped_to_bounds() -> None:
    assert after_outcome(0.95, True, RULES) == 1.0
    assert after_outcome(0.15, False, RULES) == pytest.approx(0.1)
    assert after_outcomes([False] * 10, RULES) == pytest.approx(0.1)
    assert after_outcomes([True] * 10, RULES) == 1.0
    assert clamp(-3, 0.1, 1.0) == 0.1


def test_two_successes_reach_auto_apply_despite_binary_floats() -> None:
    conf = after_outcomes([True, True], RULES)  # 0.5 + 0.1 + 0.1
    assert conf == pytest.approx(0.7)
    assert is_auto_apply(conf, RULES.auto_apply)
    assert not is_auto_apply(after_outcomes([True], RULES), RULES.auto_apply)


def test_propagation_is_fractional_not_truncated() -> None:
    # The seed system computed int(0.3) = 0; here 0.3 x 0.1 x 0.9 = 0.027 arrives.
    assert propagated(0.5, 0.9, RULES) == pytest.approx(0.527)
    assert propagated(0.999, 1.0, RULES) == 1.0


def test_beta_mean() -> None:
    assert beta_mean(0, 0) == 0.5
    assert beta_mean(3, 1) == pytest.approx(4 / 6)


def _row(fix_id: str, conf: float, source: str = "observed", **extra):
    return {"fix_id": fix_id, "description": fix_id, "confidence": conf, "source": source, **extra}


def test_ranking_direct_first_then_similar_attenuated() -> None:
    fixes = rank_fixes(
        direct=[_row("d-low", 0.3), _row("d-high", 0.8)],
        similar=[
            _row("s-strong", 0.95, similarity=0.9, via="e2", identity=False),
            _row("s-weak", 0.9, similarity=0.5, via="e3", identity=False),
        ],
        auto_apply=0.7,
    )
    assert [f.fix_id for f in fixes] == ["d-high", "d-low", "s-strong", "s-weak"]
    strong = fixes[2]
    assert strong.kind == "similar" and strong.confidence == pytest.approx(0.855) and not strong.auto_apply
    assert fixes[3].confidence == pytest.approx(0.45) and not fixes[3].auto_apply
    assert fixes[0].auto_apply and not fixes[1].auto_apply


def test_over_an_identity_link_a_fix_keeps_its_confidence() -> None:
    # Provably one error: nothing to attenuate (a link proven by outcome may score below 1).
    fixes = rank_fixes(
        [],
        [
            _row("s", 0.95, similarity=0.5, via="e2", identity=True, proof="outcome"),
            _row("t", 0.6, similarity=1.0, via="e3", identity=True, proof="text"),
        ],
        0.7,
    )
    by_id = {f.fix_id: f for f in fixes}
    assert by_id["s"].confidence == pytest.approx(0.95) and by_id["s"].match_score == 0.5
    assert by_id["s"].auto_apply and by_id["s"].proof == "outcome"
    assert by_id["t"].confidence == pytest.approx(0.6) and not by_id["t"].auto_apply and by_id["t"].proof == "text"


def test_an_own_fix_is_offered_with_the_stronger_evidence_of_an_identity_link() -> None:
    # The variant's own success (0.6) and the user's correction on the error it was proven one with (1.0).
    proven = _row("f", 1.0, "user", similarity=0.55, via="first", identity=True, proof="outcome", successes=1)
    fixes = rank_fixes([_row("f", 0.6, "explicit", successes=1)], [proven], 0.7)
    assert len(fixes) == 1 and fixes[0].auto_apply and fixes[0].borrowed_from == "first"
    assert (fixes[0].kind, fixes[0].confidence, fixes[0].proof) == ("similar", 1.0, "outcome")
    # Not over a link that is no identity, and not once the fix failed on this error itself.
    looser = rank_fixes(
        [_row("f", 0.6, "explicit", successes=1)],
        [_row("f", 1.0, "user", similarity=0.55, via="first", identity=False)],
        0.7,
    )
    failed_here = rank_fixes([_row("f", 0.4, "explicit", successes=1, failures=1)], [proven], 0.7)
    # Nor when the copy over the identity link may not act either: the error's own evidence is shown.
    weak = rank_fixes(
        [_row("f", 0.6, "explicit", successes=1)],
        [_row("f", 0.62, "explicit", similarity=0.55, via="first", identity=True, proof="outcome")],
        0.7,
    )
    assert [(f.kind, f.auto_apply) for f in looser] == [("direct", False)]
    assert [(f.kind, f.auto_apply) for f in failed_here] == [("direct", False)]
    assert [(f.kind, f.confidence) for f in weak] == [("direct", 0.6)]


def test_a_borrowed_fix_acts_only_over_an_identity_link() -> None:
    # A user's correction (confidence 1.0) lent over a 0.95 link: the same error only if the link says so.
    lookalike = rank_fixes([], [_row("u", 1.0, "user", similarity=0.95, via="e2", identity=False)], 0.7)[0]
    same = rank_fixes([], [_row("u", 1.0, "user", similarity=1.0, via="e3", identity=True)], 0.7)[0]
    older = rank_fixes([], [_row("u", 1.0, "user", similarity=1.0, via="e4")], 0.7)[0]  # no identity field
    assert not lookalike.auto_apply and lookalike.confidence == pytest.approx(0.95)
    assert (lookalike.identity, lookalike.match_score, lookalike.borrowed_from) == (False, 0.95, "e2")
    assert same.auto_apply and (same.identity, same.match_score, same.borrowed_from) == (True, 1.0, "e3")
    assert not older.auto_apply and not older.identity
    direct = rank_fixes([_row("d", 0.8)], [], 0.7)[0]
    assert direct.auto_apply and (direct.identity, direct.match_score, direct.borrowed_from) == (True, None, None)


def test_identity_evidence_wins_over_a_higher_score_for_one_fix() -> None:
    fixes = rank_fixes(
        [],
        [
            _row("f", 1.0, "user", similarity=0.97, via="near", identity=False),
            _row("f", 1.0, "user", similarity=0.9, via="same", identity=True),
        ],
        0.7,
    )
    assert len(fixes) == 1 and fixes[0].borrowed_from == "same" and fixes[0].auto_apply


def test_user_corrections_outrank_automatic_fixes() -> None:
    fixes = rank_fixes([_row("auto", 1.0), _row("user", 0.8, source="user")], [], 0.7)
    assert [f.fix_id for f in fixes] == ["user", "auto"]


def test_a_fix_appears_once_with_its_best_score() -> None:
    fixes = rank_fixes(
        [_row("f", 0.4)],
        [_row("f", 1.0, similarity=0.9), _row("g", 0.5, similarity=0.9), _row("g", 0.8, similarity=0.85)],
        0.7,
    )
    assert [f.fix_id for f in fixes] == ["f", "g"]
    assert fixes[0].kind == "direct" and fixes[1].confidence == pytest.approx(0.68)


def test_a_fix_that_failed_here_and_never_worked_is_not_suggested_but_listed() -> None:
    direct = [
        _row("failed", 0.3, successes=0, failures=1, last_used="2026-01-02T00:00:00Z"),
        _row("older-failure", 0.1, successes=0, failures=3, last_used="2026-01-01T00:00:00Z"),
        _row("works", 0.5, successes=1, failures=2),
    ]
    fixes = rank_fixes(direct, [], 0.7)
    assert [f.fix_id for f in fixes] == ["works"]  # one success is enough to stay (or come back)
    listed = failed_fixes(direct)
    assert [(f.fix_id, f.failures) for f in listed] == [("failed", 1), ("older-failure", 3)]  # most recent first
    assert listed[0].last_used == "2026-01-02T00:00:00Z" and listed[0].description == "failed"


def test_a_failed_fix_is_not_borrowed_back_through_a_neighbour() -> None:
    # The near-twin case: the fix came from a similar error, failed here; the neighbour still has it.
    fixes = rank_fixes(
        [_row("borrowed", 0.3, successes=0, failures=1)],
        [
            _row("borrowed", 0.9, similarity=0.95, successes=4, via="e2"),
            _row("other", 0.6, similarity=0.9, successes=1, via="e2"),
        ],
        0.7,
    )
    assert [f.fix_id for f in fixes] == ["other"]


def test_a_neighbours_fix_that_never_worked_there_is_not_lent() -> None:
    fixes = rank_fixes(
        [],
        [
            _row("dud", 0.3, similarity=0.9, successes=0, failures=1, via="e2"),
            _row("good", 0.6, similarity=0.9, successes=1, via="e3"),
        ],
        0.7,
    )
    assert [f.fix_id for f in fixes] == ["good"]


def test_a_user_correction_is_never_withdrawn_by_a_failure() -> None:
    row = _row("user", 0.8, source="user", successes=0, failures=2)
    assert not never_worked(row)
    assert [f.fix_id for f in rank_fixes([row], [], 0.7)] == ["user"] and failed_fixes([row]) == ()


def test_never_worked_needs_a_failure() -> None:
    assert not never_worked(_row("new", 0.5, successes=0, failures=0))  # e.g. just created, weight 0
    assert never_worked(_row("bad", 0.3, successes=0, failures=1))
    assert not never_worked(_row("flaky", 0.4, successes=1, failures=5))

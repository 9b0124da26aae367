"""Call-graph self-healing maths (seed 003 §2.6)."""

from __future__ import annotations

import pytest

from kgmem.callgraph import CallGraphSettings, confirm, decayed, pairs


def test_confirmation_boost_diminishes_and_never_passes_the_cap() -> None:
    c, steps = 0.6, []
    for _ in range(60):
        new = confirm(c)
        steps.append(new - c)
        c = new
    assert all(b < a for a, b in zip(steps, steps[1:]))  # each boost smaller than the last
    assert c <= 0.95 and c == pytest.approx(0.95, abs=1e-3)
    assert confirm(0.6) == pytest.approx(0.6 + 0.15 * 0.35)


def test_confirmation_never_lowers_an_ast_edge() -> None:
    assert confirm(1.0) == 1.0


def test_decay_starts_at_the_threshold_and_steps_per_session() -> None:
    s = CallGraphSettings()
    assert decayed(0.6, 9, 0, s) == (0.6, 0)
    c, steps = decayed(0.6, 10, 0, s)
    assert (round(c, 6), steps) == (0.55, 1)
    c, steps = decayed(c, 12, steps, s)  # two more sessions: two more steps, not three
    assert (round(c, 6), steps) == (0.45, 3)
    assert decayed(c, 12, steps, s) == (c, steps)  # re-running never decays twice


def test_decay_stops_at_the_floor_and_never_raises() -> None:
    c, _ = decayed(0.6, 100, 0)
    assert c == 0.1
    assert decayed(0.05, 100, 0)[0] == 0.05


def test_pairs_are_ordered_unique_and_skip_duplicates() -> None:
    assert pairs(["a", "b", "a", " c "]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairs(["only"]) == []

"""Confidence formulas of knowledge items (seed 003; docs/analysis.md)."""

import pytest

from kgmem.analysis import confidence
from kgmem.config import AnalysisSettings


def test_boost_trajectory_from_initial():
    values = [0.5]
    for _ in range(5):
        values.append(confidence.boost(values[-1]))
    assert values[1] == pytest.approx(0.59)
    assert values[2] == pytest.approx(0.662)
    assert values[3] == pytest.approx(0.7196)
    assert values[5] == pytest.approx(0.95 - 0.45 * 0.8**5)


def test_boost_from_high_value_and_cap():
    assert confidence.boost(0.8) == pytest.approx(0.83)
    assert confidence.boost(0.95) == pytest.approx(0.95)
    # an item above the cap (not manual) is brought down to the cap, never above it
    assert confidence.boost(0.99) == pytest.approx(0.95)


def test_boost_converges_but_never_exceeds_max_auto():
    c = 0.1
    for _ in range(200):
        c = confidence.boost(c)
        assert c <= 0.95
    assert c == pytest.approx(0.95, abs=1e-9)


def test_penalty_and_floor():
    assert confidence.penalise(0.7) == pytest.approx(0.4)
    assert confidence.penalise(0.2) == pytest.approx(0.1)  # clamped at the floor
    assert confidence.penalise(0.1) == pytest.approx(0.1)
    assert confidence.penalise(0.5, penalty=0.3, floor=0.25) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [(0.2, 0.35, False), (0.4, 0.51, True), (0.45, 0.55, True), (0.5, 0.59, False), (0.1, 0.27, False)],
)
def test_revival_only_when_a_merge_crosses_half(old, new, expected):
    # (seed 003 lists 0.4 -> 0.49; with its own formula 0.4 + 0.2*(0.95-0.4) is 0.51, which crosses)
    assert confidence.boost(old) == pytest.approx(new)
    assert confidence.revived(old, confidence.boost(old)) is expected


def test_params_come_from_settings():
    p = confidence.params(AnalysisSettings(boost_factor=0.3, contradiction_penalty=0.25))
    assert p == {"max_auto": 0.95, "factor": 0.3, "penalty": 0.25, "floor": 0.1, "initial": 0.5}

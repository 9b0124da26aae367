"""tests/settled.py: a measurement is taken when two runs in a row agree, else the test fails."""

from __future__ import annotations

import pytest

from tests.settled import rounded, settled


def runs(*values):
    it = iter(values)
    return lambda: next(it)


def test_the_first_of_two_alike_runs_is_the_result():
    assert settled(runs([1.0, 2.0], [1.5, 2.0], [1.5, 2.0], [9.0, 9.0])) == [1.5, 2.0]


def test_floats_agree_to_seven_decimals_whatever_the_clock_adds():
    assert settled(runs({"a": 0.09090909065393857}, {"a": 0.09090909065078466})) == {"a": 0.09090909065393857}
    assert rounded(("x", 0.123456789, [0.5])) == ["x", 0.1234568, [0.5]]


def test_a_measurement_that_never_repeats_fails():
    with pytest.raises(AssertionError, match="never ran twice alike in 3 runs"):
        settled(runs(1.0, 2.0, 3.0, 4.0), attempts=3)


def test_the_key_picks_what_must_agree():
    assert settled(runs((1, "peak 3"), (1, "peak 4")), key=lambda run: run[0]) == (1, "peak 3")

"""Session-end sampling: first 3 + every 5th + last 5 above 20 messages."""

import pytest

from kgmem.analysis.session_learner import sample_indices


@pytest.mark.parametrize("n", [0, 1, 4, 19, 20])
def test_short_sessions_are_not_sampled(n):
    assert sample_indices(n) == list(range(n))


def test_21_messages():
    assert sample_indices(21) == [0, 1, 2, 4, 9, 14, 16, 17, 18, 19, 20]


def test_50_messages():
    got = sample_indices(50)
    assert got[:3] == [0, 1, 2]
    assert got[-5:] == [45, 46, 47, 48, 49]
    assert {4, 9, 14, 19, 24, 29, 34, 39, 44}.issubset(got)
    assert len(got) == len(set(got)) == 3 + 9 + 5  # 49 is both a 5th and in the tail
    assert got == sorted(got)


def test_threshold_is_configurable():
    assert sample_indices(10, sample_above=5) == [0, 1, 2, 4, 5, 6, 7, 8, 9]

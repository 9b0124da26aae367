"""Where ``benchmarks/evidence_ranks.py`` files an evidence turn."""

from __future__ import annotations

import pytest

from benchmarks.evidence_ranks import BUCKETS, bucket


@pytest.mark.parametrize(
    ("position", "in_vector", "in_keyword", "expected"),
    [
        (1, True, True, "top 10"),
        (10, False, False, "top 10"),
        (11, True, False, "11-20"),
        (20, False, True, "11-20"),
        (21, False, False, "21-100"),
        (None, True, True, "in the vector leg's first 100"),  # both legs have it, the default does not: counted once
        (None, False, True, "only in the keyword leg's first 100"),
        (None, False, False, "none"),
    ],
)
def test_an_evidence_turn_falls_in_one_bucket(position, in_vector, in_keyword, expected):
    assert bucket(position, in_vector, in_keyword) == expected
    assert expected in BUCKETS

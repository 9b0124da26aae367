"""One measure of one thing with another amount (kgmem.analysis.measures)."""

from __future__ import annotations

import pytest

from kgmem.analysis.measures import measure, other_measure, same_limit
from kgmem.analysis.parsing import parse


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Build logs are kept for two years.", ("span", 2 * 31_536_000)),
        ("We retain build logs for 24 months.", ("span", 24 * 2_628_000)),
        ("Uploads are capped at 10 MB.", ("size", 10e6)),
        ("The export returns 25,000 rows.", ("count:row", 25_000)),
        ("One reviewer is enough.", ("count:review", 1)),
        # no measure: a clock time, a version, a rate, two amounts, none
        ("The nightly job starts at 1 am.", None),
        ("We run Postgres 16.", None),
        ("The limit is 1000 requests per minute.", None),
        ("The laptop has 14 inches and 32 GB.", None),
        ("Logs are kept forever.", None),
    ],
)
def test_a_statement_s_one_amount(text, expected):
    got = measure(text)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got[0] == expected[0] and got[1] == pytest.approx(expected[1])


@pytest.mark.parametrize(
    ("new", "old", "conflict"),
    [
        ("We only retain build logs for 6 months.", "Build logs are kept for two years.", True),
        # one amount said in two units
        ("We retain build logs for 24 months.", "Build logs are kept for two years.", False),
        # another measure: a span against a size
        ("Build logs are kept for 6 months.", "Build logs are capped at 5 GB.", False),
        # too little said alike to be one subject
        ("I waited 3 hours.", "The flight took 9 hours.", False),
    ],
)
def test_another_amount_of_one_measure(new, old, conflict):
    n, o = parse(new), parse(old)
    assert other_measure(new, old, n, o, n.content & o.content) is conflict


@pytest.mark.parametrize(
    ("new", "old", "same"),
    [
        ("The API accepts request bodies up to 5 MB.", "The API rejects request bodies over 5 MB.", True),
        ("The API accepts request bodies up to 20 MB.", "The API rejects request bodies over 5 MB.", False),
        # no limit word on one side: a value, not a bound
        ("The API accepts request bodies of 5 MB.", "The API rejects request bodies over 5 MB.", False),
    ],
)
def test_one_limit_said_from_both_sides(new, old, same):
    assert same_limit(new, old) is same

"""``as_of`` of a search: None, a datetime or an ISO-8601 string, as canonical UTC text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from kgmem.errors import ValidationError
from kgmem.retrieval.scope import Scope, check_as_of


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("2026-04-15", "2026-04-15T00:00:00+00:00"),
        ("2026-04-15T12:30:00Z", "2026-04-15T12:30:00+00:00"),
        ("2026-04-15T14:30:00+02:00", "2026-04-15T12:30:00+00:00"),
        (datetime(2026, 4, 15, 12, 30), "2026-04-15T12:30:00+00:00"),
        (datetime(2026, 4, 15, 14, 30, tzinfo=timezone(timedelta(hours=2))), "2026-04-15T12:30:00+00:00"),
        (datetime(2026, 4, 15, tzinfo=UTC), "2026-04-15T00:00:00+00:00"),
    ],
)
def test_as_of_values(value, expected):
    assert check_as_of(value) == expected
    assert Scope.build("ns", as_of=value).as_of == expected


@pytest.mark.parametrize("value", ["", "last April", "2026-13-01", 20260415, ["2026-04-15"]])
def test_a_bad_as_of_is_named(value):
    with pytest.raises(ValidationError, match="as_of"):
        check_as_of(value)

"""One judgement per (error occurrence, fix): the occurrence a report judges and its key (pure)."""

from __future__ import annotations

import pytest

from kgmem.errors import ValidationError
from kgmem.learning.judgement import judgement_key, new_occurrence, occurrence_of
from kgmem.learning.models import Observation


def _obs(occurrence: str | None) -> Observation:
    return Observation("e" * 32, "psql", "auth", "p", 1, True, occurrence=occurrence)


def test_each_failure_gets_its_own_occurrence() -> None:
    a, b = new_occurrence(), new_occurrence()
    assert a != b and len(a) == 32


def test_the_occurrence_is_the_given_one_else_the_observations() -> None:
    assert occurrence_of(_obs("o1"), None) == "o1"
    assert occurrence_of(_obs("o1"), "o2") == "o2"
    assert occurrence_of(_obs(None), None) is None
    assert occurrence_of("e" * 32, None) is None  # an error id or message alone: no occurrence
    assert occurrence_of("e" * 32, " o3 ") == "o3"


@pytest.mark.parametrize("bad", ["", "   ", 7, "x" * 201])
def test_a_bad_occurrence_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ValidationError, match="occurrence"):
        occurrence_of("e" * 32, bad)


def test_the_key_separates_namespace_occurrence_error_and_fix() -> None:
    key = judgement_key("ns", "o1", "err", "fix")
    assert key == judgement_key("ns", "o1", "err", "fix")
    others = {
        judgement_key("ns2", "o1", "err", "fix"),
        judgement_key("ns", "o2", "err", "fix"),
        judgement_key("ns", "o1", "err2", "fix"),
        judgement_key("ns", "o1", "err", "fix2"),
    }
    assert key not in others and len(others) == 4

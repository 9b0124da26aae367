"""Export value encoding round trips; decay maths."""

from __future__ import annotations

import json
import math

import neo4j.time
import pytest

from kgmem.errors import ImportFormatError, ValidationError
from kgmem.maintenance.codec import decode_props, encode_props
from kgmem.maintenance.decay import DecaySettings, decay_factor


def test_property_values_round_trip_through_json() -> None:
    props = {
        "s": "text ü",
        "i": 3,
        "f": 3.0,
        "b": False,
        "l": [1, 2],
        "lf": [0.5, 1.0],
        "ls": ["a"],
        "dt": neo4j.time.DateTime(2026, 1, 2, 3, 4, 5, 123456789, tzinfo=None),
        "d": neo4j.time.Date(2026, 1, 2),
        "nan": float("inf"),
    }
    back = decode_props(json.loads(json.dumps(encode_props(props))), "x")
    assert back == props
    assert type(back["i"]) is int and type(back["f"]) is float  # int vs float survives
    assert math.isinf(back["nan"])


def test_unknown_encoded_values_are_rejected_naming_the_place() -> None:
    with pytest.raises(ImportFormatError, match=r"f.jsonl:3.props.x"):
        decode_props({"x": {"evil": 1}}, "f.jsonl:3")


def test_decay_factor_halves_per_half_life() -> None:
    assert decay_factor(90, 90) == pytest.approx(0.5)
    assert decay_factor(0, 90) == 1.0
    assert decay_factor(-5, 90) == 1.0


def test_decay_settings_validate() -> None:
    with pytest.raises(ValidationError, match="half_life_days"):
        DecaySettings(half_life_days=0)

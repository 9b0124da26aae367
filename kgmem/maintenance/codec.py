"""Property values <-> JSON, losslessly.

Strings, booleans, integers, floats and lists of them map to JSON directly (Python's
``json`` keeps ``1`` and ``1.0`` apart, so integer vs float survives). Neo4j temporal
values (should a writer store one) become ``{"$neo4j": kind, "value": ISO-8601}`` and
come back as the same type. Non-finite floats are written as ``{"$float": "nan"|"inf"|"-inf"}``.
"""

from __future__ import annotations

import math
from typing import Any

import neo4j.time

from kgmem.errors import ImportFormatError

_TEMPORAL: dict[str, type] = {
    "datetime": neo4j.time.DateTime,
    "date": neo4j.time.Date,
    "time": neo4j.time.Time,
    "duration": neo4j.time.Duration,
}


def encode(value: Any) -> Any:
    """A property value as JSON-ready data."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    for kind, cls in _TEMPORAL.items():
        if isinstance(value, cls):
            return {"$neo4j": kind, "value": value.iso_format()}
    raise TypeError(f"cannot export property value of type {type(value).__name__}")


def decode(value: Any, where: str) -> Any:
    """The inverse of :func:`encode`; ``where`` names the place in the file for errors."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [decode(v, where) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$float"} and value["$float"] in ("nan", "inf", "-inf"):
            return float(value["$float"])
        if set(value) == {"$neo4j", "value"} and value["$neo4j"] in _TEMPORAL:
            try:
                return _TEMPORAL[value["$neo4j"]].from_iso_format(value["value"])
            except (ValueError, TypeError) as exc:
                raise ImportFormatError(f"{where}: bad {value['$neo4j']} value {value['value']!r}") from exc
    raise ImportFormatError(f"{where}: unsupported property value {value!r}")


def encode_props(props: dict[str, Any]) -> dict[str, Any]:
    return {k: encode(v) for k, v in props.items()}


def decode_props(props: Any, where: str) -> dict[str, Any]:
    if not isinstance(props, dict):
        raise ImportFormatError(f"{where}: props must be an object")
    return {str(k): decode(v, f"{where}.props.{k}") for k, v in props.items()}

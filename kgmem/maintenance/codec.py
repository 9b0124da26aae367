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

_Temporal = neo4j.time.DateTime | neo4j.time.Date | neo4j.time.Time | neo4j.time.Duration
_TEMPORAL: dict[str, type[_Temporal]] = {
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


_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


def check_storable(value: Any, where: str) -> None:
    """Raise :class:`ImportFormatError` unless Neo4j can store ``value`` as a property: a scalar
    (64-bit integer, float, string, boolean, temporal) or a list of scalars of one type — no null,
    no nested list, no map. Checked before anything is written, so a bad file changes nothing."""
    if value is None:
        raise ImportFormatError(f"{where}: null is not a property value (leave the key out)")
    if isinstance(value, list):
        kinds = set()
        for i, item in enumerate(value):
            if item is None or isinstance(item, list):
                what = "null" if item is None else "a nested list"
                raise ImportFormatError(f"{where}[{i}]: a list property cannot hold {what}")
            _check_scalar(item, f"{where}[{i}]")
            kinds.add(_kind(item))
        if len(kinds) > 1:
            raise ImportFormatError(f"{where}: a list property must hold one type, got {', '.join(sorted(kinds))}")
        return
    _check_scalar(value, where)


def _check_scalar(value: Any, where: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and not _INT_MIN <= value <= _INT_MAX:
        raise ImportFormatError(f"{where}: integer {value} does not fit in 64 bits")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if isinstance(value, int) else "float"
    return type(value).__name__ if not isinstance(value, str) else "string"


def decode_props(props: Any, where: str) -> dict[str, Any]:
    if not isinstance(props, dict):
        raise ImportFormatError(f"{where}: props must be an object")
    out: dict[str, Any] = {}
    for key, raw in props.items():
        if not key.strip():
            raise ImportFormatError(f"{where}.props: empty property key")
        value = decode(raw, f"{where}.props.{key}")
        check_storable(value, f"{where}.props.{key}")
        out[key] = value
    return out

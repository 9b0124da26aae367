"""Timestamps at the API boundary: ISO-8601 in, one canonical UTC form out.

Every ``ts`` a caller hands kgmem (``tool_result(s)``, ``turn``, ``kgmem ingest``) goes through
:func:`normalise_ts`, so what is stored always parses and compares as text in time order
(reports compare the stored strings; a value like ``"not-a-date"`` would break them).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kgmem.errors import ValidationError

# Year 1..9999 is what Python and Neo4j both accept; anything else is a typo.
_MIN_YEAR, _MAX_YEAR = 1, 9999


def normalise_ts(value: Any, field: str = "ts") -> str:
    """``value`` (ISO-8601 string; naive means UTC) as UTC ``YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00``.

    Raises :class:`ValidationError` naming ``field`` when it is not a string or not a timestamp.
    """
    if not isinstance(value, str):
        raise ValidationError(f"{field}: must be an ISO-8601 string or None; got {type(value).__name__}")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValidationError(f"{field}: not an ISO-8601 timestamp: {value[:64]!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC).isoformat()
    except OverflowError:  # e.g. 0001-01-01T00:00:00+05:00 falls before year 1 in UTC
        raise ValidationError(f"{field}: timestamp out of range: {value[:64]!r}") from None

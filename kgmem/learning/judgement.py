"""A fix outcome is one judgement per (error occurrence, fix) (pure).

``tool_result`` gives each recorded failure an *occurrence* id (``Observation.occurrence``),
made on the client when the failure is recorded — no round trip. ``resolve`` / ``fix_applied`` on
that occurrence with one fix write a judgement key (:func:`judgement_key`) in the same transaction
as the outcome (``learning/apply_events``, ``$judgements``); a key already there makes the call a
no-op, so a retried report counts once, from any process. A report without an occurrence (an
error id or message string and no ``occurrence``) carries no key and counts each time.
"""

from __future__ import annotations

import uuid
from typing import Any

from kgmem.errors import ValidationError
from kgmem.ids import node_id

__all__ = ["judgement_key", "new_occurrence", "occurrence_of"]

_KIND = "fix_judgement"
_MAX_CHARS = 200


def new_occurrence() -> str:
    """A fresh occurrence id (random: two failures with the same text are two occurrences)."""
    return uuid.uuid4().hex


def occurrence_of(error: Any, occurrence: Any) -> str | None:
    """The occurrence a report judges: ``occurrence`` if given, else the Observation's (None: none).

    Raises :class:`ValidationError` for an occurrence that is not a non-empty string (≤ 200 chars).
    """
    if occurrence is None:
        occurrence = getattr(error, "occurrence", None)
        if occurrence is None:
            return None
    if not isinstance(occurrence, str) or not occurrence.strip() or len(occurrence) > _MAX_CHARS:
        raise ValidationError(
            f"occurrence: must be a non-empty string of at most {_MAX_CHARS} characters "
            "(the `occurrence` tool_result returned) or None"
        )
    return occurrence.strip()


def judgement_key(ns: str, occurrence: str, error_id: str, fix_id: str) -> str:
    """The key of the judgement of ``fix_id`` on one occurrence of ``error_id`` in ``ns``."""
    return node_id(ns, _KIND, occurrence, error_id, fix_id)

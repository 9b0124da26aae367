"""What a search is allowed to see: one namespace, some kinds, optionally one session."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kgmem.errors import ValidationError
from kgmem.retrieval.config import KIND_LABELS, check_kinds
from kgmem.retrieval.timing import StageClock

#: The most hits one search returns (``k``); every surface (client, CLI, MCP) takes its limit from here.
MAX_K = 1000


@dataclass(frozen=True)
class Scope:
    """Namespace, kinds and session of one search, and how many hits it wants.

    ``session`` restricts conversation turns (``message`` hits) to that session; learned
    knowledge, errors and fixes are namespace-wide by design (they exist to cross sessions).
    """

    ns: str
    k: int = 10
    kinds: tuple[str, ...] = tuple(KIND_LABELS)
    session: str | None = None
    # BQAR: the session's conversation-shift count and the damping per shift, applied to its overlay
    # view when the expansion reads it (kgmem.retrieval.service); 1.0 = the view as written.
    overlay_epoch: int = 0
    overlay_damping: float = 1.0
    # Whether the legs return each candidate's text and properties. Graph RAG re-reads them from Neo4j
    # when it hydrates the fused head, so it asks the legs for ids and scores only (False) unless it
    # needs the text before that read (entity seeds, the concept hop).
    payload: bool = True
    # Per-stage timing of this search (``explain=True``; kgmem.retrieval.timing); None = not timed.
    clock: StageClock | None = field(default=None, compare=False, repr=False)
    # What was valid then (canonical UTC ISO text, see check_as_of); None = now: superseded knowledge
    # is left out. Applied in the Neo4j statements (keyword leg, expansion), not after them.
    as_of: str | None = None

    @classmethod
    def build(
        cls,
        ns: str,
        k: int = 10,
        kinds=None,
        session: str | None = None,
        clock: StageClock | None = None,
        as_of: Any = None,
    ) -> Scope:
        """Validate caller input; errors name the field."""
        if not isinstance(ns, str) or not ns:
            raise ValidationError("ns: must be a non-empty string")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise ValidationError(f"k: must be an integer between 1 and {MAX_K}, got {k!r}")
        if session is not None and (not isinstance(session, str) or not session):
            raise ValidationError("session: must be a non-empty string or None")
        return cls(ns=ns, k=k, kinds=check_kinds(kinds), session=session, clock=clock, as_of=check_as_of(as_of))

    @property
    def labels(self) -> list[str]:
        return [KIND_LABELS[k] for k in self.kinds]


def check_as_of(value: Any) -> str | None:
    """``as_of`` of a search or context: None (now), a ``datetime`` (naive = UTC) or an ISO-8601 string,
    as the canonical UTC text the graph stores times in (so they compare as text in time order)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC).isoformat()
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"as_of: must be an ISO-8601 string or a datetime; got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValidationError(f"as_of: not an ISO-8601 date or time: {value[:64]!r}") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC).isoformat()

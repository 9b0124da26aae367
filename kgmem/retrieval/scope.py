"""What a search is allowed to see: one namespace, some kinds, optionally one session."""

from __future__ import annotations

from dataclasses import dataclass, field

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

    @classmethod
    def build(
        cls, ns: str, k: int = 10, kinds=None, session: str | None = None, clock: StageClock | None = None
    ) -> Scope:
        """Validate caller input; errors name the field."""
        if not isinstance(ns, str) or not ns:
            raise ValidationError("ns: must be a non-empty string")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise ValidationError(f"k: must be an integer between 1 and {MAX_K}, got {k!r}")
        if session is not None and (not isinstance(session, str) or not session):
            raise ValidationError("session: must be a non-empty string or None")
        return cls(ns=ns, k=k, kinds=check_kinds(kinds), session=session, clock=clock)

    @property
    def labels(self) -> list[str]:
        return [KIND_LABELS[k] for k in self.kinds]

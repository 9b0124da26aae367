"""Values the learning engine takes and returns (frozen dataclasses at the API boundary)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FixSuggestion:
    """A known fix for an error, as the agent sees it.

    ``confidence`` is what ranking and ``auto_apply`` use: the fix's own confidence for
    a direct fix, attenuated by similarity (``confidence × similarity``) for a fix
    borrowed from a ``SIMILAR_TO`` neighbour.

    The evidence behind a borrowed fix (``kind="similar"``): ``borrowed_from`` is the error it
    was learnt on, ``match_score`` the link's match score, ``identity`` whether the two errors are
    provably the same (same tool, same core template, same identity keys — exception class,
    errno, SQLSTATE, HTTP status, …, and the quoted names the error is about). Only a fix of the
    error itself or one borrowed over an identity link is ever ``auto_apply``; any other borrowed
    fix is a suggestion, whatever its
    confidence. ``proof`` says what proved an identity link: ``"text"`` (the same core template and
    keys) or ``"outcome"`` (a fix the link lent was reported working on this error; a reported failure
    refutes the link for good). A direct fix has ``identity=True``, no ``match_score``, no
    ``borrowed_from`` and no ``proof``.
    """

    fix_id: str
    description: str
    confidence: float
    base_confidence: float
    source: str  # "user" | "observed" | "explicit" | "analyzer"
    kind: str  # "direct" | "similar"
    auto_apply: bool
    similarity: float = 1.0
    via_error_id: str | None = None
    successes: int = 0
    failures: int = 0
    identity: bool = True
    match_score: float | None = None
    borrowed_from: str | None = None
    proof: str | None = None  # "text" | "outcome" for a fix borrowed over an identity link


@dataclass(frozen=True)
class FailedFix:
    """A fix that was applied to this error and failed, and never worked on it.

    It is not suggested again for this error (neither directly nor borrowed from a similar
    error) until it succeeds once here; it is listed so an agent knows what not to retry.
    """

    fix_id: str
    description: str
    failures: int
    last_used: str | None = None


@dataclass(frozen=True)
class Observation:
    """What kgmem made of one tool call — returned for every ``tool_result``.

    A failure (``ok=False``): ``id`` is the error pattern's id, ``fixes`` the known fixes,
    best first. A success (``ok=True``): ``fixes`` is empty; when the success completed a
    recovery (a failure of the same tool earlier in the session) ``id`` is that error's id
    and ``fix_id`` the fix recorded for it — pass the observation to ``resolve()`` to name
    it; when it confirmed that the last recovery's fix held, ``fix_id`` is that fix;
    otherwise ``id`` is ``""`` and ``fix_id`` None.

    ``failed_fixes``: fixes reported as failed on this error that never worked on it
    (``fix_applied(..., success=False)``); they are left out of ``fixes`` — borrowed ones
    included — until one succeeds here once (docs/learning.md, "Failed borrowed fixes").

    ``spooled`` is true when Neo4j was unreachable: the event is safe in the spool and
    will be counted when it is replayed; ``fixes`` is then empty.

    ``occurrence`` (a failure only): the id of this one failure, made when it was recorded. A fix
    outcome is one judgement per (occurrence, fix): ``fix_applied`` / ``resolve`` on this
    observation with the same fix count once, however often they are retried (docs/learning.md,
    "Fixes and confidence"). ``None`` for a success.
    """

    id: str
    tool: str
    category: str
    pattern: str
    occurrences: int
    is_new: bool
    fixes: tuple[FixSuggestion, ...] = ()
    spooled: bool = False
    ok: bool = False
    session: str | None = None
    fix_id: str | None = None
    failed_fixes: tuple[FailedFix, ...] = ()
    occurrence: str | None = None

    @property
    def error_id(self) -> str | None:
        """The error this observation is about (None for a success that recovered nothing)."""
        return self.id or None

    @property
    def auto_fix(self) -> FixSuggestion | None:
        """The best fix flagged for automatic application, if any."""
        return next((f for f in self.fixes if f.auto_apply), None)


def success_observation(event: Any, recovery: tuple[str, str] | None = None, *, spooled: bool = False) -> Observation:
    """The :class:`Observation` of a successful call (``event`` is a prepared event: tool, session);
    ``recovery`` is the (error id, fix id) it recovered or held, if any."""
    error_id, fix = recovery or ("", None)
    return Observation(
        id=error_id,
        tool=event.tool,
        category="",
        pattern="",
        occurrences=0,
        is_new=False,
        spooled=spooled,
        ok=True,
        session=event.session,
        fix_id=fix,
    )


@dataclass(frozen=True)
class ToolEvent:
    """One tool call outcome for :meth:`KGMem.tool_results` (batch / backfill).

    Exactly one of ``error`` (failure) or not (success) — ``result`` is informational.
    ``ts`` (ISO-8601) lets a backfill keep the original times.
    """

    tool: str
    params: Mapping[str, Any] | None = None
    error: str | BaseException | None = None
    result: Any = None
    session: str | None = None
    ts: str | None = None


@dataclass(frozen=True)
class FixOutcome:
    """The state of one error→fix edge after :meth:`resolve` / :meth:`fix_applied`.

    ``counted`` is false when the call repeated a judgement already counted (the same fix on the
    same error occurrence): nothing changed and this is the edge as it stands (``propagated`` 0).
    """

    error_id: str
    fix_id: str
    description: str
    confidence: float
    successes: int
    failures: int
    propagated: int
    counted: bool = True


@dataclass(frozen=True)
class BatchResult:
    """Summary of :meth:`tool_results`."""

    events: int
    errors: int
    successes: int
    new_patterns: int
    fixes_observed: int
    spooled: int = 0
    observations: tuple[Observation, ...] = field(default=(), repr=False)

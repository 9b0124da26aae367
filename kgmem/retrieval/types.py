"""Typed results of a search: what a caller (or the CLI's ``--json``) sees."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Candidate:
    """One item found by one leg (vector, keyword or graph), before fusion."""

    id: str
    kind: str
    rank: int  # 1-based rank within its leg
    score: float  # the leg's own score: cosine similarity, BM25, or decayed path weight
    text: str = ""
    props: dict[str, Any] = field(default_factory=dict)
    path: tuple[str, ...] = ()  # for graph candidates: "kind:id", "REL", "kind:id", ...
    # The leg's raw figures shown in a fused hit's score breakdown (vector: distance, keyword: bm25).
    explain: dict[str, float] = field(default_factory=dict)

    def ranked(self, rank: int) -> Candidate:
        """This candidate at another ``rank`` (``dataclasses.replace`` costs ~20 µs, and a Graph RAG
        search re-ranks dozens of candidates; keep the field list in step with the fields above)."""
        return Candidate(self.id, self.kind, rank, self.score, self.text, self.props, self.path, self.explain)


@dataclass(frozen=True)
class Provenance:
    """How a hit was found: the legs that returned it and, if reached by traversal, the path."""

    legs: tuple[str, ...]
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchHit:
    """One retrieved item with its score, the score's parts and where it came from."""

    id: str
    kind: str
    text: str
    score: float
    breakdown: dict[str, float]
    provenance: Provenance
    ref: str | None = None
    session: str | None = None
    ts: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchResult:
    """Hits, best first, plus the ``query_id`` to pass to ``KGMem.feedback``."""

    query_id: str
    query: str
    ns: str
    preset: str
    hits: list[SearchHit]
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Legs that failed (leg name -> reason; "graph" for the traversal); the hits come from the others.
    failed_legs: dict[str, str] = field(default_factory=dict)

    def __iter__(self):  # iterate hits directly: `for hit in mem.search(...)`
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Judgement:
    """What ``feedback`` did with a query's judgement.

    A query id takes one judgement: the first call counts, a repeat (a retried call, from any process,
    whatever its arguments) changes nothing and comes back with ``counted=False``.
    """

    query_id: str
    counted: bool  # False: the query had been judged before; nothing changed
    target: str  # where the (first) judgement went: "global" posteriors or the session's "overlay"
    calls: int  # feedback calls this query id has received, retries included
    posteriors: list[dict[str, Any]] = field(default_factory=list)  # new {id, alpha, beta}; empty on a repeat

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

"""Opt-in per-stage timing of one search (``search(..., explain=True)``).

A search asked to explain carries a :class:`StageClock` in its :class:`~kgmem.retrieval.scope.Scope`;
each stage adds the nanoseconds it took under its name, and the engine reports them in
``SearchResult.timings_ms`` as ``<stage>_ms``. Without ``explain`` the scope holds no clock and a
stage costs one attribute test. Stages (docs/retrieval.md, "Latency by stage"):

* ``embed`` — the query embedding (an LRU-cache hit when the query was seen before);
* ``vector`` — the Chroma queries of the vector leg (every kind in scope);
* ``keyword`` — the keyword leg's Neo4j round trip (full-text query), rows to candidates included;
* ``legs`` — wall time of all legs, run concurrently (≈ the slower leg, not the sum);
* ``fusion`` — reciprocal-rank fusion of the legs (before and after the expansion);
* ``expand`` — the one Neo4j round trip that hydrates the fused head and walks the graph;
* ``rank`` — neighbours to candidates, quality factors, slot interleaving, hits built;
* ``total`` — the whole search as the engine saw it.

The legs run in different threads (sync client) or tasks (async client); each writes its own
stage names, so no lock is needed.
"""

from __future__ import annotations

from time import perf_counter_ns
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgmem.retrieval.scope import Scope

#: The stage names, in pipeline order (what a bench prints).
STAGES = ("embed", "vector", "keyword", "legs", "fusion", "expand", "rank", "total")


class StageClock:
    """Nanoseconds per stage of one search."""

    __slots__ = ("_ns",)

    def __init__(self) -> None:
        self._ns: dict[str, int] = {}

    def add(self, stage: str, start_ns: int) -> None:
        """Add the time since ``start_ns`` (a :func:`time.perf_counter_ns` reading) to ``stage``."""
        self._ns[stage] = self._ns.get(stage, 0) + perf_counter_ns() - start_ns

    def ms(self) -> dict[str, float]:
        """``{"<stage>_ms": milliseconds}`` of every stage that ran."""
        return {f"{stage}_ms": ns / 1e6 for stage, ns in self._ns.items()}


def start(scope: Scope) -> int:
    """A start reading for :func:`lap`: the clock's time when ``scope`` carries one, else 0 (free)."""
    return perf_counter_ns() if scope.clock is not None else 0


def lap(scope: Scope, stage: str, start_ns: int) -> None:
    """Add the time since ``start_ns`` to ``stage`` when ``scope`` carries a clock."""
    if scope.clock is not None:
        scope.clock.add(stage, start_ns)

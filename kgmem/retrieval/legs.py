"""The retrieval leg protocol and the leg registry (docs/retrieval.md "Legs").

A *leg* is one independent source of candidates for a query — today the vector leg
(Chroma) and the keyword leg (Neo4j full-text). Every strategy above the legs (single
leg, hybrid fusion, Graph RAG) and :class:`~kgmem.retrieval.service.RetrievalEngine`
iterate over the registry instead of naming legs, so a new leg is one class that
satisfies :class:`RetrievalLeg` plus one :class:`LegSpec` in :data:`DEFAULT_LEGS` (or in
the ``legs=`` given to the engine). The graph traversal is not a leg: it starts from the
fused candidates of the legs (:mod:`kgmem.retrieval.graph`).

A leg's ``candidates`` is an operation (a generator of I/O requests, :mod:`kgmem.runner`),
so the same leg runs under both clients. Under :class:`GuardedLeg` a failing leg answers
nothing and records why; the engine reports it in ``SearchResult.failed_legs``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from kgmem.errors import BackendUnavailable, KGMemError
from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.keyword import KeywordRetriever
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.types import Candidate
from kgmem.retrieval.vector import VectorRetriever
from kgmem.runner import Op

log = logging.getLogger(__name__)


@runtime_checkable
class RetrievalLeg(Protocol):
    """One source of candidates: ``name`` keys its fusion weight, its breakdown entry and
    ``failed_legs``; ``candidates`` returns up to ``scope.k × overfetch`` items, best first,
    with 1-based ranks (an operation: see :mod:`kgmem.runner`)."""

    name: str

    def candidates(self, query: str, scope: Scope) -> Op[list[Candidate]]: ...


@dataclass(frozen=True)
class LegSpec:
    """How the engine gets a leg for one search config.

    Attributes:
        name: the leg's name (unique in a registry; ``"graph"`` is taken by the traversal).
        build: a leg for a config.
        enabled: whether a config uses the leg.
        weight: the leg's RRF weight under a config.
    """

    name: str
    build: Callable[[SearchConfig], RetrievalLeg]
    enabled: Callable[[SearchConfig], bool]
    weight: Callable[[SearchConfig], float]


#: The legs every search may use; the config's ``use_*`` / ``*_weight`` fields switch and weigh them.
DEFAULT_LEGS: tuple[LegSpec, ...] = (
    LegSpec("vector", VectorRetriever, lambda c: c.use_vector, lambda c: c.vector_weight),
    LegSpec("keyword", KeywordRetriever, lambda c: c.use_keyword, lambda c: c.keyword_weight),
)


def check_registry(specs: Sequence[LegSpec]) -> tuple[LegSpec, ...]:
    """``specs`` as a tuple, or :class:`ValueError` naming a duplicate or reserved leg name."""
    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes or "graph" in names:
        raise ValueError(f"legs: names must be unique and not 'graph'; got {names}")
    return tuple(specs)


class GuardedLeg:
    """A leg for one search whose failure leaves it empty instead of failing the search.

    Backend outages and the engines' own error types (chromadb raises many) become ``failure``
    (logged; the search goes on with the other legs and says so in ``failed_legs``). kgmem's
    other errors — bad input, a wrong embedding model, a missing full-text index — are not
    outages and propagate with their message.
    """

    def __init__(self, leg: RetrievalLeg) -> None:
        self.leg = leg
        self.name = leg.name
        self.failure: str | None = None

    def candidates(self, query: str, scope: Scope) -> Op[list[Candidate]]:
        try:
            return (yield from self.leg.candidates(query, scope))
        except BackendUnavailable as exc:
            return self._failed(exc)
        except KGMemError:
            raise
        except Exception as exc:  # noqa: BLE001 - driver and chromadb errors of every type
            return self._failed(exc)

    def _failed(self, exc: Exception) -> list[Candidate]:
        self.failure = f"{type(exc).__name__}: {exc}"[:300]
        log.warning("%s leg failed; searching without it: %s", self.name, self.failure)
        return []


def build_legs(specs: Sequence[LegSpec], config: SearchConfig) -> list[GuardedLeg]:
    """The guarded legs ``config`` enables, in registry order."""
    return [GuardedLeg(spec.build(config)) for spec in specs if spec.enabled(config)]


def leg_weights(specs: Sequence[LegSpec], config: SearchConfig) -> dict[str, float]:
    """Every leg's RRF weight under ``config``, plus the traversal's (``graph``)."""
    return {**{spec.name: spec.weight(config) for spec in specs}, "graph": config.graph_weight}

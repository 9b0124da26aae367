"""Graph RAG retrieval (docs/retrieval.md): legs behind one protocol (vector, keyword — the
registry in :mod:`kgmem.retrieval.legs`), graph expansion, fusion, quality ranking, context
with citations, feedback."""

from kgmem.retrieval.config import PRESETS, SearchConfig, preset
from kgmem.retrieval.context import Context
from kgmem.retrieval.legs import DEFAULT_LEGS, LegSpec, RetrievalLeg
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.service import Retrieval, UnknownQuery
from kgmem.retrieval.types import Judgement, Provenance, SearchHit, SearchResult

__all__ = [
    "DEFAULT_LEGS",
    "PRESETS",
    "Context",
    "Judgement",
    "LegSpec",
    "Provenance",
    "Retrieval",
    "RetrievalLeg",
    "Scope",
    "SearchConfig",
    "SearchHit",
    "SearchResult",
    "UnknownQuery",
    "preset",
]

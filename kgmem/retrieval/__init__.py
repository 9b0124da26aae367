"""Graph RAG retrieval (docs/design.md §6): vector + keyword legs, graph expansion, fusion,
quality ranking, context with citations, feedback."""

from kgmem.retrieval.config import PRESETS, SearchConfig, preset
from kgmem.retrieval.context import Context
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.service import Retrieval, UnknownQuery
from kgmem.retrieval.types import Provenance, SearchHit, SearchResult

__all__ = ["PRESETS", "Context", "Provenance", "Retrieval", "Scope", "SearchConfig", "SearchHit",
           "SearchResult", "UnknownQuery", "preset"]

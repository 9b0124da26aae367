"""The concept graph: the entities and key phrases each memory MENTIONS (docs/concept-graph.md).

Public API (the write side and the query side use the same one, so keys match):

- :class:`ConceptExtractor` — ``extract(text)`` / ``extract_many(texts)`` -> ``ConceptMention`` s;
  ``concept_for(phrase)`` for an LLM triple's subject or object;
- :func:`normalise_key` — the deterministic key of a surface form;
- :func:`resolve_aliases` — short first names to the batch's full name ("Mel" -> "Melanie");
- :func:`concept_id` / :func:`concept_rows` / :func:`mention_links` — the ``Concept`` node id and the
  Cypher rows (per memory; per batch).
"""

from kgmem.concepts.aliases import alias_map, resolve_aliases
from kgmem.concepts.extractor import ConceptExtractor
from kgmem.concepts.normalise import normalise_key, usable_key
from kgmem.concepts.types import (
    ENTITY,
    PHRASE,
    ConceptKind,
    ConceptMention,
    concept_id,
    concept_rows,
    mention_links,
    merge_mentions,
)
from kgmem.config import ConceptSettings

__all__ = [
    "ENTITY",
    "PHRASE",
    "ConceptExtractor",
    "ConceptKind",
    "ConceptMention",
    "ConceptSettings",
    "alias_map",
    "concept_id",
    "concept_rows",
    "mention_links",
    "merge_mentions",
    "normalise_key",
    "resolve_aliases",
    "usable_key",
]

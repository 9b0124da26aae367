"""The concept graph's data: what a memory mentions, and the rows the writers send to Cypher."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kgmem.ids import node_id

ConceptKind = Literal["entity", "phrase"]
ENTITY: ConceptKind = "entity"
PHRASE: ConceptKind = "phrase"
CONCEPT_KIND = "concept"  # the kind part of a Concept's node id (kgmem.ids.node_id)


@dataclass(frozen=True)
class ConceptMention:
    """One concept a text names.

    Attributes:
        key: the normalised form concepts are matched on (``Concept.key``; see
            :func:`kgmem.concepts.normalise.normalise_key`).
        name: how the text wrote it (the display form of a new ``Concept``).
        kind: ``"entity"`` (a named person, place, organisation, product, ...) or ``"phrase"``
            (a key phrase or noun concept).
    """

    key: str
    name: str
    kind: ConceptKind


def concept_id(ns: str, key: str) -> str:
    """The deterministic id of the Concept ``key`` in namespace ``ns`` (``Concept.id``)."""
    return node_id(ns, CONCEPT_KIND, key)


def concept_rows(ns: str, mentions: Iterable[ConceptMention]) -> list[dict[str, str]]:
    """``mentions`` as the ``concepts`` list a writer's Cypher row carries (one per key)."""
    rows: dict[str, dict[str, str]] = {}
    for m in mentions:
        row = rows.get(m.key)
        if row is None:
            rows[m.key] = {"id": concept_id(ns, m.key), "key": m.key, "name": m.name, "kind": m.kind}
        elif m.kind == ENTITY:
            row["kind"] = ENTITY
    return list(rows.values())


def mention_links(ids: Sequence[str], concepts: Sequence[list[dict[str, str]] | None]) -> list[dict[str, Any]]:
    """The ``links`` a batch writer's Cypher takes (``concepts/fragments/link_mentions_batch``):
    one ``{id, concepts}`` per memory id of ``ids``, with that memory's concept rows ``concepts[i]``.

    A memory written twice in one batch keeps the concepts of its last row, as writing the rows one
    after the other would; a row whose concepts were not extracted (None) changes nothing."""
    links: dict[str, list[dict[str, str]]] = {}
    for memory_id, rows in zip(ids, concepts, strict=True):
        if rows is not None:
            links[memory_id] = rows
    return [{"id": memory_id, "concepts": rows} for memory_id, rows in links.items()]


def merge_mentions(*groups: Sequence[ConceptMention], cap: int | None = None) -> list[ConceptMention]:
    """The mentions of ``groups`` in order, one per key (an entity reading of a key wins), at most ``cap``."""
    out: dict[str, ConceptMention] = {}
    for group in groups:
        for m in group:
            old = out.get(m.key)
            if old is None:
                out[m.key] = m
            elif m.kind == ENTITY and old.kind != ENTITY:
                out[m.key] = ConceptMention(m.key, old.name, ENTITY)
    merged = list(out.values())
    return merged if cap is None else merged[:cap]

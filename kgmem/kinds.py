"""The one registry of kgmem's searchable kinds: Neo4j label, text property, what is embedded,
and the Chroma metadata stored with the vector.

Every writer (learning engine, turn store, knowledge store), ``kgmem reindex``, retrieval
(kind ⇄ label for the legs and the graph expansion) and export/import read this table, so
a new kind — or a change to what a kind embeds — is made here once, and reindex rebuilds
exactly what the writers wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Metadata = dict[str, str | int | float | bool]


def _clean(meta: Mapping[str, Any]) -> Metadata:
    return {k: v for k, v in meta.items() if v is not None}  # Chroma accepts scalars only, no None


def _error_meta(row: Mapping[str, Any]) -> Metadata:
    # The tool filters the neighbour search; keys gate SIMILAR_TO and the template scores a candidate
    # (kgmem/learning/similarity.py, matching.py).
    return _clean(
        {
            "tool": row.get("tool"),
            "category": row.get("category"),
            "keys": row.get("keys") or "",
            "template": row.get("template") or "",
        }
    )


def _fix_meta(row: Mapping[str, Any]) -> Metadata:
    return _clean({"source": row.get("source") or "", "error_id": row.get("error_id")})


def _knowledge_meta(row: Mapping[str, Any]) -> Metadata:
    return _clean({"type": "knowledge", "knowledge_type": row.get("type"), "source": row.get("source")})


def _message_meta(row: Mapping[str, Any]) -> Metadata:
    # What a search hit needs from Chroma without a graph lookup.
    return _clean(
        {
            "type": "message",
            "session": row["session"],
            "role": row["role"],
            "ts": row.get("ts"),
            "ref": row.get("ref"),
            "seq": row.get("seq"),
        }
    )


def _entity_meta(row: Mapping[str, Any]) -> Metadata:
    return {"type": "entity"}


def _message_text(row: Mapping[str, Any]) -> str:
    # The speaker goes into the vector ("Caroline: I went ..."): questions often name the speaker
    # (docs/retrieval.md has the measurement). The stored document stays the bare text.
    return f"{row.get('role') or ''}: {row['text']}"


def _plain_text(row: Mapping[str, Any]) -> str:
    return row["text"]


@dataclass(frozen=True)
class Kind:
    """One searchable kind.

    Attributes:
        name: the Chroma kind (collection ``kg_<name>_…``) and the retrieval ``kinds`` value.
        label: the Neo4j label of its nodes.
        text_property: the node property holding the text (the Chroma document).
        embedding_text: what is embedded, from a row with ``text`` (and the kind's other fields).
        metadata: the Chroma metadata of a row.
    """

    name: str
    label: str
    text_property: str
    embedding_text: Callable[[Mapping[str, Any]], str]
    metadata: Callable[[Mapping[str, Any]], Metadata]


MESSAGE = Kind("message", "Message", "text", _message_text, _message_meta)
KNOWLEDGE = Kind("knowledge", "Knowledge", "content", _plain_text, _knowledge_meta)
ERROR = Kind("error", "ErrorPattern", "signature", _plain_text, _error_meta)  # the normalised short form
FIX = Kind("fix", "Fix", "description", _plain_text, _fix_meta)
ENTITY = Kind("entity", "Entity", "name", _plain_text, _entity_meta)

#: Every searchable kind, in retrieval's default order.
KINDS: tuple[Kind, ...] = (MESSAGE, KNOWLEDGE, ERROR, FIX, ENTITY)
BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}
BY_LABEL: dict[str, Kind] = {k.label: k for k in KINDS}
#: kind name → Neo4j label, and back.
KIND_LABELS: dict[str, str] = {k.name: k.label for k in KINDS}
LABEL_KINDS: dict[str, str] = {k.label: k.name for k in KINDS}


def kind(name: str) -> Kind:
    """The registered kind ``name`` (KeyError names the known ones)."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown kind {name!r}; known: {', '.join(BY_NAME)}") from None

"""The labels and relationship types export/import may touch (docs/concepts.md lists them).

Import never splices a label or type from the file into Cypher: each allowed
label and (start)-[type]->(end) triple has its own Cypher file under
``cypher/maintenance/import/``; anything else in a file is rejected.
"""

from __future__ import annotations

from kgmem import kinds

NODE_LABELS: tuple[str, ...] = (
    "Tool",
    "Session",
    "ErrorPattern",
    "Fix",
    "Knowledge",
    "Entity",
    "Message",
    "Function",
    "IngestedEvent",  # `kgmem ingest` idempotency markers: without them a re-ingest would redo work
    "Concept",  # the concept graph (docs/concept-graph.md); its df travels with it
)

# The memories that MENTION concepts (cypher/concepts/fragments/link_mentions*.cypher).
MEMORY_LABELS: tuple[str, ...] = ("Message", "Knowledge", "ErrorPattern", "Fix")

# type -> (start labels, end labels): the labels its two ends may have
RELATIONSHIPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "CAUSED_BY": (("ErrorPattern",), ("Tool",)),
    "IN_SESSION": (("ErrorPattern",), ("Session",)),
    "SIMILAR_TO": (("ErrorPattern",), ("ErrorPattern",)),
    "RESOLVED_BY": (("ErrorPattern",), ("Fix",)),
    "ABOUT": (("Knowledge",), ("Entity",)),
    "FROM_SESSION": (("Knowledge",), ("Session",)),
    "CONTRADICTS": (("Knowledge",), ("Knowledge",)),
    "SUPERSEDED_BY": (("Knowledge",), ("Knowledge",)),
    "RELATES_TO": (("Entity",), ("Entity",)),
    "PART_OF": (("Message",), ("Session",)),
    "NEXT": (("Message",), ("Message",)),
    # every memory -> Concept; Message -> Entity is the older form, still read from old exports
    "MENTIONS": (MEMORY_LABELS, ("Concept", "Entity")),
    "CALLS": (("Function",), ("Function",)),
}

# Retrieval session state of a namespace (docs/retrieval.md § Feedback, BQAR): the query log (so old
# query ids still accept feedback, once), the sessions' overlays of unmerged feedback and their
# shift-detection state. Exported as ``{"state": Label, "props"}`` lines; label -> the properties that
# identify one (checked on import).
STATE_LABELS: dict[str, tuple[str, ...]] = {
    "KgmemQuery": ("id",),
    "KgmemOverlay": ("session", "item_id"),
    "KgmemSessionState": ("session",),
    # forget (docs/forgetting.md): the audit trail and the tombstones, content-free, travel with the namespace
    "KgmemForget": ("id",),
    "KgmemTombstone": ("id",),
}

# Chroma kind -> (label, text property): what `reindex` embeds (from the registry, kgmem/kinds.py).
VECTOR_KINDS: dict[str, tuple[str, str]] = {k.name: (k.label, k.text_property) for k in kinds.KINDS}


def node_cypher(label: str) -> str:
    """Name of the import file for ``label`` (caller has checked the allow-list)."""
    return f"maintenance/import/node_{label.lower()}"


def rel_cypher(rel_type: str) -> str:
    """Name of the import file for ``rel_type`` (caller has checked the allow-list)."""
    return f"maintenance/import/rel_{rel_type.lower()}"


def state_cypher(label: str) -> str:
    """Name of the import file for session-state ``label`` (caller has checked :data:`STATE_LABELS`)."""
    return f"maintenance/import/state_{label.lower()}"


def state_label(labels: list[str]) -> str | None:
    """The session-state label among a node's labels (None if it has none)."""
    return next((label for label in labels if label in STATE_LABELS), None)


def allowed_label(labels: list[str]) -> str | None:
    """The allow-listed label among a node's labels (None if it has none)."""
    return next((label for label in labels if label in NODE_LABELS), None)

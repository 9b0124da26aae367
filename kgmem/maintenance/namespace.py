"""Deleting a whole namespace: its graph in bounded transactions, then its Chroma collections."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from kgmem.errors import ValidationError
from kgmem.graph import GraphStore
from kgmem.graph.keys import check_namespace
from kgmem.maintenance.allowlist import VECTOR_KINDS
from kgmem.vectors import VectorStore

log = logging.getLogger(__name__)

DELETE_BATCH = 10_000  # nodes per transaction: bounded memory on the server at any namespace size


@dataclass(frozen=True)
class DeletedNamespace:
    """What :func:`delete_namespace` removed: the namespace and how many graph nodes it held."""

    ns: str
    nodes: int


def delete_namespace(
    graph: GraphStore, vectors: VectorStore | None, ns: str, batch: int = DELETE_BATCH
) -> DeletedNamespace:
    """Delete every node and relationship of ``ns`` and its vector collections.

    The graph goes first, ``batch`` nodes per committed transaction (the least connected first, so no
    transaction carries a hub's edges), so the server's transaction memory stays bounded however
    large the namespace; then the Chroma collections are dropped. Not atomic: an interrupted delete
    leaves part of the namespace, and running it again finishes it.
    """
    ns = check_namespace(ns)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValidationError(f"batch: must be a positive integer, got {batch!r}")
    nodes = 0
    while True:  # one bounded transaction per round: a single statement would hold every node at once
        deleted = graph.write("maintenance/delete_namespace_batched", ns=ns, batch=batch)[0]["deleted"]
        nodes += deleted
        if deleted < batch:
            break
    if vectors is not None:
        vectors.drop_namespace(ns, list(VECTOR_KINDS))
    log.info("deleted namespace %s: %d nodes", ns, nodes)
    return DeletedNamespace(ns=ns, nodes=nodes)

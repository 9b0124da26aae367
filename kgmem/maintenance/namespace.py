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

DELETE_BATCH = 10_000  # relationships, then nodes, per transaction: bounded server memory at any size


@dataclass(frozen=True)
class DeletedNamespace:
    """What :func:`delete_namespace` removed: the namespace and how many graph nodes it held."""

    ns: str
    nodes: int


def delete_namespace(
    graph: GraphStore, vectors: VectorStore | None, ns: str, batch: int = DELETE_BATCH
) -> DeletedNamespace:
    """Delete every node and relationship of ``ns`` and its vector collections.

    The graph goes first in committed transactions of at most ``batch`` relationships, then ``batch``
    nodes, so the server's transaction memory stays bounded however large the namespace (a batch of
    nodes deleted with their edges could carry hundreds of thousands of them); then the Chroma
    collections are dropped. Not atomic: an interrupted delete leaves part of the namespace, and
    running it again finishes it.
    """
    ns = check_namespace(ns)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValidationError(f"batch: must be a positive integer, got {batch!r}")
    _delete_in_batches(graph, "maintenance/delete_namespace_relationships", ns, batch)
    nodes = _delete_in_batches(graph, "maintenance/delete_namespace_nodes", ns, batch)
    if vectors is not None:
        vectors.drop_namespace(ns, list(VECTOR_KINDS))
    log.info("deleted namespace %s: %d nodes", ns, nodes)
    return DeletedNamespace(ns=ns, nodes=nodes)


def _delete_in_batches(graph: GraphStore, statement: str, ns: str, batch: int) -> int:
    """Run ``statement`` (one bounded transaction each) until a round deletes fewer than ``batch``."""
    total = 0
    while True:
        deleted = int(graph.write(statement, ns=ns, batch=batch)[0]["deleted"])
        total += deleted
        if deleted < batch:
            return total

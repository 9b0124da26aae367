"""Hits a search may return at its time scope, for the strategies without the traversal.

The keyword leg and the Graph RAG expansion apply the time scope in their own Cypher (superseded
knowledge is not current; ``as_of``: what was valid then, no turn said after it). Without the traversal
(the ``fast`` preset, a single leg) the vector leg's Chroma hits would reach the caller unchecked: Chroma
holds no validity (the graph is the truth; a supersession changes the graph only). This checks them:
the knowledge among the hits in one Neo4j read, turns by their ``ts`` (no read).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import neo4j

from kgmem import kinds
from kgmem.errors import BackendUnavailable
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.types import SearchHit
from kgmem.runner import Op, Read

log = logging.getLogger(__name__)


def valid_hits(hits: list[SearchHit], scope: Scope) -> Op[list[SearchHit]]:
    """``hits`` less knowledge not valid at the scope's time (now, or ``scope.as_of``) and, with ``as_of``,
    turns said after it; knowledge hits carry ``valid_from`` / ``valid_until``. If the graph does not
    answer, the knowledge hits are kept as they are (the search is degraded, not failed)."""
    if scope.as_of is not None:
        hits = [h for h in hits if h.kind != kinds.MESSAGE.name or not h.ts or h.ts <= scope.as_of]
    ids = [h.id for h in hits if h.kind == kinds.KNOWLEDGE.name]
    if not ids:
        return hits
    try:
        rows = yield Read("retrieval/valid_knowledge", dict(ns=scope.ns, ids=ids, as_of=scope.as_of))
    except (BackendUnavailable, neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
        log.warning("knowledge validity not checked (the graph did not answer): %s", exc)
        return hits
    valid: dict[str, dict[str, Any]] = {r["id"]: r for r in (rows[0]["rows"] if rows else [])}
    out = []
    for hit in hits:
        if hit.kind != kinds.KNOWLEDGE.name:
            out.append(hit)
        elif hit.id in valid:
            times = {k: valid[hit.id][k] for k in ("valid_from", "valid_until") if valid[hit.id][k] is not None}
            out.append(replace(hit, metadata={**hit.metadata, **times}))
    return out

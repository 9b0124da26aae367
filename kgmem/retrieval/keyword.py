"""The keyword leg: BM25 over Neo4j's full-text index, one round trip."""

from __future__ import annotations

import logging

import neo4j

from kgmem import kinds
from kgmem.errors import KGMemError
from kgmem.ids import ns_key
from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.text import keyword_query
from kgmem.retrieval.timing import lap, start
from kgmem.retrieval.types import Candidate
from kgmem.runner import Op, Read

log = logging.getLogger(__name__)


class SearchIndexMissing(KGMemError):
    """The full-text index the keyword leg queries does not exist (schema not applied)."""


LABEL_KINDS = kinds.LABEL_KINDS  # Neo4j label → kind (kgmem/kinds.py)
_NOT_PROPS = frozenset(("id", "label", "score", "text"))  # a row's fields that are not the item's properties


class KeywordRetriever:
    """The keyword leg (a :class:`~kgmem.retrieval.legs.RetrievalLeg`): full-text (Lucene BM25)
    retrieval; the query's stop words are dropped first."""

    name = "keyword"

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def candidates(self, query: str, scope: Scope) -> Op[list[Candidate]]:
        """Up to ``k × overfetch`` candidates, best BM25 first (an operation: see kgmem.runner).
        A missing full-text index raises :class:`SearchIndexMissing`; other Neo4j errors propagate
        (under :class:`~kgmem.retrieval.legs.GuardedLeg` they only remove this leg from the search)."""
        t0 = start(scope)
        parts = keyword_query(query, self.config.keyword_role_boost, self.config.keyword_speaker_text_weight)
        if parts is None:
            return []
        # The namespace is required inside Lucene as one exact token (ns_key, see kgmem.ids), so rows of
        # look-alike namespaces ("team" for "Team-A") never take the fetch limit; Cypher re-checks ns.
        key = ns_key(scope.ns)
        n = scope.k * self.config.overfetch
        # Other kinds/sessions may share the namespace: let Lucene return more than we keep.
        fetch = n * (4 if scope.session or len(scope.kinds) < 5 else 2)
        try:
            result = yield Read(
                "retrieval/keyword",
                dict(
                    index=self.config.keyword_index,
                    head=f"+ns_key:{key} +(",
                    body=parts.body,
                    names=[
                        {"probe": f"+ns_key:{key} +role:({c.probe})", "as_word": c.as_word, "as_speaker": c.as_speaker}
                        for c in parts.names
                    ],
                    ns=scope.ns,
                    labels=scope.labels,
                    session=scope.session,
                    fetch=fetch,
                    n=n,
                    payload=scope.payload,
                    as_of=scope.as_of,
                ),
            )
        except neo4j.exceptions.ClientError as exc:
            if _index_missing(exc):  # a broken install, not a bad query: say how to fix it
                raise SearchIndexMissing(
                    f"keyword_index: full-text index {self.config.keyword_index!r} is missing or not online — "
                    "run `kgmem init` to apply the schema"
                ) from exc
            raise
        cands = [
            Candidate(
                id=r["id"],
                kind=LABEL_KINDS[r["label"]],
                rank=i,
                score=float(r["score"]),
                text=r.get("text") or "",
                props={k: v for k, v in r.items() if k not in _NOT_PROPS},
                explain={"bm25": float(r["score"])},
            )
            for i, r in enumerate(result[0]["rows"], start=1)
        ]
        lap(scope, "keyword", t0)
        return cands


def _index_missing(exc: neo4j.exceptions.ClientError) -> bool:
    text = str(exc).lower()
    return "no such fulltext" in text or ("fulltext" in text and "does not exist" in text)

"""Deterministic identifiers: the same namespace, kind and content always give the same id,
so a retried write MERGEs onto the node it already created instead of duplicating it."""

import hashlib

_SEP = "\x1f"  # unit separator: cannot appear in normal text, so parts never run together


def node_id(ns: str, kind: str, *parts: str) -> str:
    """Return a 32-hex-char id for (namespace, kind, parts)."""
    digest = hashlib.sha256(_SEP.join((ns, kind, *parts)).encode("utf-8")).hexdigest()
    return digest[:32]


def ns_key(ns: str) -> str:
    """The namespace as one exact full-text token (``Node.ns_key``, indexed in ``kgmem_fulltext``).

    The english analyzer splits and stems ``ns`` itself (``Team-A`` -> ``team``), so a Lucene clause
    on it also matches look-alike namespaces, whose rows then crowd the fetch limit. Twenty
    decimal digits pass every analyzer unchanged as one token; GraphStore passes it as ``$ns_key``
    to every statement that has an ``ns`` parameter.
    """
    digest = hashlib.sha256(("ns-key" + _SEP + ns).encode("utf-8")).hexdigest()
    return str(int(digest[:16], 16)).zfill(20)

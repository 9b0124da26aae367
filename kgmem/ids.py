"""Deterministic identifiers: the same namespace, kind and content always give the same id,
so a retried write MERGEs onto the node it already created instead of duplicating it."""

import hashlib

_SEP = "\x1f"  # unit separator: cannot appear in normal text, so parts never run together


def node_id(ns: str, kind: str, *parts: str) -> str:
    """Return a 32-hex-char id for (namespace, kind, parts)."""
    digest = hashlib.sha256(_SEP.join((ns, kind, *parts)).encode("utf-8")).hexdigest()
    return digest[:32]

"""Bounded identifiers: what a caller names a tool, session or turn (``ref``) can be any length,
but Neo4j cannot index a property value over ~8 KB (``Property value is too large to index``).

An identifier up to :data:`MAX_KEY_BYTES` (UTF-8) is stored as given. A longer one becomes a
stable short key: a readable prefix, then ``…#`` and 16 hex digits of the SHA-256 of the whole
value — the same long value always gives the same key, and two long values that share the
prefix still get different keys. Namespaces are not shortened (they scope every query and
name Chroma collections): one over :data:`MAX_NS_CHARS` is rejected with a clear error.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kgmem.errors import IdentifierTooLong, ValidationError

MAX_KEY_BYTES = 1024
MAX_NS_CHARS = 200  # the same bound as the `namespace` setting
_MARK = "…#"
_DIGEST_CHARS = 16


def bounded_key(value: str, limit: int = MAX_KEY_BYTES) -> str:
    """``value`` itself when it fits in ``limit`` UTF-8 bytes, else a stable shortened key."""
    raw = value.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return value
    digest = hashlib.sha256(raw).hexdigest()[:_DIGEST_CHARS]
    room = limit - len(_MARK.encode()) - _DIGEST_CHARS
    prefix = raw[:room].decode("utf-8", "ignore")  # never split a multi-byte character
    return f"{prefix}{_MARK}{digest}"


def bounded_optional(value: Any) -> Any:
    """:func:`bounded_key` for strings; anything else (None, a wrong type left for validation) unchanged."""
    return bounded_key(value) if isinstance(value, str) else value


def check_namespace(ns: Any, where: str = "ns") -> str:
    """Return ``ns`` or raise :class:`ValidationError` naming what is wrong with it."""
    if not isinstance(ns, str) or not ns:
        raise ValidationError(f"{where}: must be a non-empty string")
    if len(ns) > MAX_NS_CHARS:
        raise IdentifierTooLong(f"{where}: longer than {MAX_NS_CHARS} characters ({len(ns)})")
    return ns

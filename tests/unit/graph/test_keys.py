"""Bounded identifiers and the namespace check (no Neo4j involved)."""

from __future__ import annotations

import pytest

from kgmem.errors import IdentifierTooLong, ValidationError
from kgmem.graph.keys import MAX_KEY_BYTES, MAX_NS_CHARS, bounded_key, bounded_optional, check_namespace


def test_short_identifiers_are_kept_as_given() -> None:
    assert bounded_key("run-42") == "run-42"
    assert bounded_key("é" * (MAX_KEY_BYTES // 2)) == "é" * (MAX_KEY_BYTES // 2)  # exactly at the limit
    assert bounded_optional(None) is None and bounded_optional(7) == 7


def test_long_identifiers_become_stable_distinct_keys_under_the_limit() -> None:
    a, b = "x" * 9000 + "a", "x" * 9000 + "b"  # the same readable prefix
    ka, kb = bounded_key(a), bounded_key(b)
    assert ka == bounded_key(a) and ka != kb
    assert ka.startswith("x" * 100) and "…#" in ka
    assert len(ka.encode()) <= MAX_KEY_BYTES
    assert bounded_key(ka) == ka  # bounding a bounded key changes nothing


def test_multibyte_text_is_never_split_inside_a_character() -> None:
    key = bounded_key("日本語" * 2000)
    key.encode("utf-8")  # would raise on a broken character
    assert len(key.encode()) <= MAX_KEY_BYTES and key.startswith("日本語")


def test_namespaces_are_checked_not_shortened() -> None:
    assert check_namespace("team_a") == "team_a"
    with pytest.raises(IdentifierTooLong, match=f"longer than {MAX_NS_CHARS}"):
        check_namespace("n" * (MAX_NS_CHARS + 1))
    with pytest.raises(ValidationError, match="non-empty"):
        check_namespace("")

"""Turn validation and deterministic message ids (no backends)."""

from __future__ import annotations

import pytest

from kgmem.conversation import Turn, message_id
from kgmem.conversation.store import TurnStore, validate_turn
from kgmem.errors import ValidationError


def test_message_id_uses_ref_when_given():
    a = message_id("ns", Turn("s", "user", "hello", ref="r1"))
    assert a == message_id("ns", Turn("s", "assistant", "changed text", ref="r1"))
    assert a != message_id("other", Turn("s", "user", "hello", ref="r1"))
    assert a != message_id("ns", Turn("s2", "user", "hello", ref="r1"))


def test_message_id_without_ref_hashes_role_ts_and_text():
    base = Turn("s", "user", "ok")
    assert message_id("ns", base) == message_id("ns", Turn("s", "user", "ok"))
    assert message_id("ns", base) != message_id("ns", Turn("s", "assistant", "ok"))
    assert message_id("ns", base) != message_id("ns", Turn("s", "user", "ok", ts="2024-01-01T00:00:00+00:00"))


def test_naive_timestamps_become_utc():
    assert validate_turn(Turn("s", "u", "t", ts="2024-01-01T10:00:00")).ts == "2024-01-01T10:00:00+00:00"


def test_dict_turns_are_accepted_and_checked():
    assert validate_turn({"session": "s", "role": "u", "text": "t"}) == Turn("s", "u", "t")
    with pytest.raises(ValidationError, match=r"turn\.role"):
        validate_turn({"session": "s", "role": "", "text": "t"})
    with pytest.raises(ValidationError, match=r"turn\.ref"):
        validate_turn(Turn("s", "u", "t", ref="  "))


def test_embedding_text_carries_the_speaker():
    assert TurnStore.embedding_text("Caroline", "I went hiking") == "Caroline: I went hiking"

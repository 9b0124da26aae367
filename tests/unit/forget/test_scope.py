"""Forget's scope: exactly one per call, each checked before anything is read."""

import pytest

from kgmem.analysis.store import entity_id
from kgmem.errors import ValidationError
from kgmem.forget import Scope, parse_scope
from kgmem.forget.scope import ForgetTargetNotFound
from kgmem.tombstones import EVERYTHING, session_node_id


@pytest.mark.parametrize(
    ("kwargs", "scope"),
    [
        ({"id": " 0123abcd "}, Scope("id", "0123abcd")),
        ({"session": "s1"}, Scope("session", "s1")),
        ({"entity": "Ada Lovelace"}, Scope("entity", "Ada Lovelace")),
        ({"everything": True}, Scope("everything")),
    ],
)
def test_one_scope_is_parsed(kwargs, scope):
    assert parse_scope(**kwargs) == scope


def test_no_scope_is_refused_naming_the_choices():
    with pytest.raises(ValidationError, match="id=, session=, entity= or everything=True"):
        parse_scope()


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"id": "a", "session": "s"}, "id and session"),
        ({"session": "s", "entity": "e"}, "session and entity"),
        ({"entity": "e", "everything": True}, "entity and everything"),
        ({"id": "a", "session": "s", "entity": "e", "everything": True}, "id and session and entity and everything"),
    ],
)
def test_two_scopes_are_refused(kwargs, named):
    with pytest.raises(ValidationError, match=f"one scope per call, got {named}"):
        parse_scope(**kwargs)


@pytest.mark.parametrize("value", ["", "   ", 3, ["s"]])
def test_an_empty_or_non_string_value_is_refused(value):
    with pytest.raises(ValidationError, match="session: must be a non-empty string"):
        parse_scope(session=value)


def test_everything_must_be_a_boolean():
    with pytest.raises(ValidationError, match="everything: must be true or false"):
        parse_scope(everything="yes")  # type: ignore[arg-type]


def test_targets_are_hashes_never_names():
    assert Scope("session", "alice's chat").target("ns") == session_node_id("ns", "alice's chat")
    assert Scope("entity", "Ada Lovelace").target("ns") == entity_id("ns", "ada lovelace")
    assert "Ada" not in Scope("entity", "Ada Lovelace").target("ns")
    assert Scope("everything").target("ns") == EVERYTHING
    assert Scope("id", "abc").target("ns") == "abc"


def test_not_found_is_a_validation_error():
    assert issubclass(ForgetTargetNotFound, ValidationError)

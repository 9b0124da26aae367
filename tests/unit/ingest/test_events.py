"""JSONL event parsing and validation."""

from __future__ import annotations

import pytest

from kgmem.conversation import Turn
from kgmem.errors import ValidationError
from kgmem.ingest.events import KnowledgeEvent, SessionEndEvent, ToolResultEvent, parse_line


def test_turn_line():
    ev = parse_line('{"type": "turn", "session": "s", "role": "user", "text": "hi", "ref": "1"}')
    assert ev == Turn("s", "user", "hi", "1", None)


def test_blank_and_comment_lines_are_skipped():
    assert parse_line("   \n") is None
    assert parse_line("// a comment") is None


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"type": "turn", "session": "s", "role": "user"', "not valid JSON"),
        ('["turn"]', "event: must be a JSON object"),
        ('{"type": "tweet"}', "type: must be one of"),
        ('{"type": "turn", "session": "s", "role": "user", "text": ""}', "turn.text"),
        ('{"type": "turn", "session": "s", "role": "u", "text": "t", "colour": 1}', "unknown field"),
        ('{"type": "tool_result", "tool": "x", "params": [1]}', "tool_result.params"),
        ('{"type": "knowledge", "content": "abc", "confidence": 3}', "knowledge.confidence"),
        ('{"type": "knowledge", "content": "abc", "subject": "a"}', "subject/predicate/object"),
        ('{"type": "session_end"}', "session_end.session"),
    ],
)
def test_bad_events_name_the_problem(line, message):
    with pytest.raises(ValidationError, match=message):
        parse_line(line)


def test_tool_result_key_is_stable_and_content_based():
    a = parse_line('{"type": "tool_result", "tool": "git", "error": "boom", "session": "s"}')
    b = parse_line('{"session": "s", "error": "boom", "tool": "git", "type": "tool_result"}')
    c = parse_line('{"type": "tool_result", "tool": "git", "error": "bang", "session": "s"}')
    assert isinstance(a, ToolResultEvent) and a.key == b.key != c.key


def test_knowledge_and_session_end():
    k = parse_line('{"type": "knowledge", "content": "Use uv", "knowledge_type": "Preference", "confidence": 0.9}')
    assert isinstance(k, KnowledgeEvent) and len(k.key) == 32
    assert (k.content, k.knowledge_type, k.confidence, k.session, k.manual, k.triple) == (
        "Use uv",
        "preference",
        0.9,
        None,
        False,
        None,
    )
    assert parse_line('{"type": "session_end", "session": "s"}') == SessionEndEvent("s")

"""Strict validation of extractor output."""

import pytest

from kgmem.analysis.schema import ExtractedItem, normalise_text, parse_items


def test_valid_array_parsed():
    res = parse_items(
        '[{"type": "preference", "content": "The user prefers tabs", "confidence": 0.9,'
        ' "subject": "user", "predicate": "Prefers", "object": "tabs"}]'
    )
    assert not res.malformed and res.invalid == 0
    item = res.items[0]
    assert (item.type, item.subject, item.predicate, item.object) == ("preference", "user", "Prefers", "tabs")
    assert item.contradicts is None and item.has_triple


def test_code_fence_tolerated_but_prose_is_malformed():
    assert len(parse_items('```json\n[{"type": "fact", "content": "Port is 8080", "confidence": 0.5}]\n```').items) == 1
    res = parse_items('Here you go: [{"type": "fact"}]')
    assert res.malformed and res.items == [] and "not JSON" in res.errors[0]


@pytest.mark.parametrize("text", ["", "{", "null", '{"a": 1}', "42", '"text"'])
def test_malformed_outputs_never_raise(text):
    res = parse_items(text)
    assert res.malformed and res.items == []


def test_items_object_wrapper_accepted():
    res = parse_items('{"items": [{"type": "fact", "content": "Port is 8080", "confidence": 0.5}]}')
    assert len(res.items) == 1


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"type": "opinion", "content": "x y z", "confidence": 0.5}, "type"),
        ({"type": "fact", "content": "", "confidence": 0.5}, "content"),
        ({"type": "fact", "content": "abc def", "confidence": 1.5}, "confidence"),
        ({"type": "fact", "content": "abc def", "confidence": "high"}, "confidence"),
        ({"type": "fact", "content": "abc def", "confidence": True}, "confidence"),
        ({"type": "fact", "content": "abc def"}, "confidence"),
        ({"type": "fact", "content": "abc def", "confidence": 0.5, "subject": "a", "predicate": "b"}, "item"),
        ("just a string", "item"),
    ],
)
def test_invalid_items_skipped_and_counted_with_field(bad, field):
    good = {"type": "fact", "content": "The API runs on port 8080", "confidence": 0.7}
    import json

    res = parse_items(json.dumps([good, bad, good]))
    assert not res.malformed
    assert len(res.items) == 2 and res.invalid == 1
    assert res.errors[0].startswith("items[1]")
    if field != "item":
        assert field in res.errors[0]


def test_blank_triple_parts_and_contradicts_become_none():
    item = ExtractedItem(
        type="fact", content="Something true", confidence=0.5, subject=" ", predicate="", object=None, contradicts="  "
    )
    assert not item.has_triple and item.contradicts is None


def test_normalise_text_is_the_exact_dedup_key():
    assert normalise_text("  The user  prefers TABS. ") == normalise_text("the user prefers tabs")
    assert normalise_text("tabs") != normalise_text("spaces")

"""Concept keys and alias resolution: pure logic, no model."""

from __future__ import annotations

import pytest

from kgmem.concepts import (
    ENTITY,
    PHRASE,
    ConceptMention,
    alias_map,
    concept_id,
    concept_rows,
    mention_links,
    merge_mentions,
    normalise_key,
    resolve_aliases,
    usable_key,
)


@pytest.mark.parametrize(
    "surface, key",
    [
        ("Melanie", "melanie"),
        ("Melanie's", "melanie"),
        ("MELANIE’S", "melanie"),
        ("the Grand  Canyon", "grand canyon"),
        ("My support group!", "support group"),
        ("Hey Caroline", "caroline"),
        ("ＬＧＢＴＱ", "lgbtq"),  # full-width forms fold (NFKC)
        ("db.internal", "db internal"),
        ("😀🎉", ""),
        ("the", ""),
        ("Straße", "strasse"),  # case folding, not just lower()
    ],
)
def test_normalise_key(surface, key):
    assert normalise_key(surface) == key


def test_normalise_key_is_idempotent():
    for text in ["Melanie's kids", "The LGBTQ+ support-group", "北京 烤鸭", "Ünïcödé Names"]:
        once = normalise_key(text)
        assert normalise_key(once) == once


@pytest.mark.parametrize(
    "key, ok",
    [
        ("", False),
        ("x", False),
        ("42", False),
        ("北", True),
        ("ab", True),
        ("a" * 81, False),
        ("a" * 80, True),
    ],
)
def test_usable_key(key, ok):
    assert usable_key(key, 80) is ok


def test_alias_map_first_names_and_prefixes():
    assert alias_map(["mel", "melanie", "caroline", "caroline smith", "jon", "jonathan"]) == {
        "mel": "melanie",
        "caroline": "caroline smith",
        "jon": "jonathan",
    }


def test_alias_map_leaves_ambiguous_names_and_typos():
    assert alias_map(["sam", "samantha", "samuel"]) == {}  # two candidates: left alone
    assert alias_map(["mel", "mell"]) == {}  # one letter longer: a variant, not a longer name
    assert alias_map(["al", "alice"]) == {}  # two letters are too short a prefix


def test_alias_map_prefers_a_speaker_when_ambiguous():
    assert alias_map(["sam", "samantha", "samuel"], preferred=["samuel"]) == {"sam": "samuel"}


def test_resolve_aliases_uses_speakers_and_only_touches_entities():
    batch = [
        [ConceptMention("mel", "Mel", ENTITY), ConceptMention("painting", "painting", PHRASE)],
        [ConceptMention("melon", "melon", PHRASE)],
    ]
    out = resolve_aliases(batch, names=["Melanie", "Caroline"])
    assert out[0] == [ConceptMention("melanie", "Melanie", ENTITY), ConceptMention("painting", "painting", PHRASE)]
    assert out[1] == [ConceptMention("melon", "melon", PHRASE)]  # a phrase is never an alias


def test_resolve_aliases_merges_a_short_and_a_full_name_in_one_memory():
    out = resolve_aliases([[ConceptMention("mel", "Mel", ENTITY), ConceptMention("melanie", "Melanie", ENTITY)]])
    assert out == [[ConceptMention("melanie", "Melanie", ENTITY)]]


def test_concept_rows_one_per_key_entity_wins():
    rows = concept_rows("ns", [ConceptMention("paris", "paris", PHRASE), ConceptMention("paris", "Paris", ENTITY)])
    assert rows == [{"id": concept_id("ns", "paris"), "key": "paris", "name": "paris", "kind": "entity"}]
    assert concept_id("ns", "paris") != concept_id("other", "paris")


def test_merge_mentions_caps_in_order():
    a = [ConceptMention(f"k{i}", f"k{i}", PHRASE) for i in range(5)]
    assert [m.key for m in merge_mentions(a[:3], a, cap=4)] == ["k0", "k1", "k2", "k3"]
    assert merge_mentions(a, cap=0) == []


def test_mention_links_one_per_memory_last_extracted_row_wins():
    a, b = [{"id": "c1"}], [{"id": "c2"}]
    links = mention_links(["m1", "m2", "m1", "m3", "m1"], [a, None, b, [], None])
    assert links == [{"id": "m1", "concepts": b}, {"id": "m3", "concepts": []}]
    assert mention_links([], []) == []
    with pytest.raises(ValueError):
        mention_links(["m1"], [])

"""ConceptExtractor on the packaged spaCy pipeline (loaded once for the module): what it finds,
caps and hostile input. Small texts only; LoCoMo figures are in benchmarks/concepts.py."""

from __future__ import annotations

import pytest

from kgmem.concepts import ENTITY, PHRASE, ConceptExtractor, normalise_key
from kgmem.config import ConceptSettings


@pytest.fixture(scope="module")
def extractor() -> ConceptExtractor:
    return ConceptExtractor(ConceptSettings(max_per_memory=12))


def keys(mentions):
    return {m.key: m.kind for m in mentions}


def test_entities_phrases_and_lemmas(extractor):
    found = keys(extractor.extract("Melanie's kids loved the Grand Canyon trip and the adoption agencies."))
    assert found["melanie"] == ENTITY and found["grand canyon"] == ENTITY
    assert found["kid"] == PHRASE  # plural -> lemma, possessive dropped
    assert found["adoption agency"] == PHRASE and "agency" in found


def test_dates_numbers_and_fillers_are_not_concepts(extractor):
    found = keys(extractor.extract("Wow, thanks! Last weekend I bought 3 books on Monday at 5pm."))
    assert "book" in found
    assert not {"weekend", "thanks", "wow", "3", "5pm"} & set(found)


def test_keys_are_normalised_and_deterministic(extractor):
    text = "Caroline's LGBTQ support groups meet in Boston."
    first, again = extractor.extract(text), ConceptExtractor(extractor.settings).extract(text)
    assert first == again
    assert all(m.key == normalise_key(m.key) for m in first)


def test_cap_bounds_concepts_and_keeps_entities_first(extractor):
    names = ", ".join(f"Person{i} Name{i}" for i in range(300))
    text = f"Alice met {names} in Paris and bought apples, pears, plums, figs, dates and melons."
    found = extractor.extract(text)
    assert len(found) == 12 and found[0].kind == ENTITY


@pytest.mark.parametrize("text", ["", "   \n\t", "😀🎉👍🏽", "!!! ??? ...", "12345 67 8"])
def test_texts_without_words_have_no_concepts(extractor, text):
    assert extractor.extract(text) == []


@pytest.mark.parametrize("text", ["我喜欢北京的烤鸭。", "Привет, Мария из Москвы!", "مرحبا بالعالم", "שלום עולם"])
def test_other_scripts_give_bounded_normalised_concepts(extractor, text):
    found = extractor.extract(text)
    assert len(found) <= 12 and all(m.key and m.key == normalise_key(m.key) for m in found)


def test_huge_text_reads_only_max_chars():
    small = ConceptExtractor(ConceptSettings(max_chars=40))
    found = keys(small.extract("The violin teacher arrived. " + "filler words here " * 10_000 + " Zanzibar trumpet"))
    assert "violin teacher" in found and "trumpet" not in found


def test_ten_thousand_entities_stay_under_the_cap():
    big = ConceptExtractor(ConceptSettings(max_per_memory=24))  # default max_chars bounds the work
    text = " ".join(f"Company{i} Corp hired Dr. Smith{i}." for i in range(10_000))
    found = big.extract(text)
    assert 0 < len(found) <= 24


def test_extract_many_matches_extract(extractor):
    texts = ["Caroline painted a sunset.", "", "Mel went camping with her kids."]
    assert extractor.extract_many(texts) == [extractor.extract(t) for t in texts]


def test_disabled_extractor_extracts_nothing_and_loads_nothing():
    off = ConceptExtractor(ConceptSettings(enabled=False))
    assert off.extract("Caroline painted a sunset.") == [] and off.concept_for("Caroline") is None
    assert off._nlp is None
    assert ConceptExtractor(ConceptSettings(max_per_memory=0)).enabled is False


def test_concept_for_a_triple_end_matches_the_text_keys(extractor):
    assert extractor.concept_for("Caroline").kind == ENTITY
    assert extractor.concept_for("Caroline").key == "caroline"
    assert extractor.concept_for("LGBTQ support groups").key == "lgbtq support group"
    assert extractor.concept_for("the adoption agencies").key == "adoption agency"
    assert extractor.concept_for("   ") is None and extractor.concept_for("😀") is None


def test_a_missing_model_is_a_config_error_naming_the_key():
    from kgmem.errors import ConfigError

    with pytest.raises(ConfigError, match="concepts.model"):
        ConceptExtractor(ConceptSettings(model="no_such_spacy_pipeline")).extract("Caroline painted a sunset.")

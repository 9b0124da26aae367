"""The [concepts] settings and the composition root's extractor."""

from __future__ import annotations

import pytest

from kgmem.app import Engines
from kgmem.concepts import ConceptExtractor
from kgmem.config import load_settings
from kgmem.errors import ConfigError


def test_defaults_and_overrides():
    s = load_settings()
    assert s.concepts.enabled and s.concepts.max_per_memory == 24 and s.concepts.max_chars == 10_000
    assert load_settings(concepts={"max_per_memory": 5}).concepts.max_per_memory == 5


@pytest.mark.parametrize("bad", [{"max_per_memory": -1}, {"max_chars": 0}, {"max_key_chars": 2}, {"colour": 1}])
def test_bad_values_name_the_key(bad):
    with pytest.raises(ConfigError, match="concepts"):
        load_settings(concepts=bad)


def test_engines_build_one_lazy_extractor():
    engines = Engines(load_settings(concepts={"max_per_memory": 7}))
    extractor = engines.concepts
    assert isinstance(extractor, ConceptExtractor) and extractor is engines.concepts
    assert extractor.settings.max_per_memory == 7 and extractor._nlp is None  # nothing loaded yet
    given = ConceptExtractor()
    assert Engines(load_settings(), concepts=given).concepts is given

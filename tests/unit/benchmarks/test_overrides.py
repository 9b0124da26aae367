"""The benchmarks' ``key=value`` config overrides (``--set``, ``--system``, ``--grid``)."""

from __future__ import annotations

from benchmarks.locomo import parse_overrides


def test_values_that_read_as_json_are_json_and_other_words_are_strings():
    parsed = parse_overrides(["a=0.5", "b=true", "c=[1,2]", "d=null", "e=names", "f=thompson", "g=nlp"])
    assert parsed == {"a": 0.5, "b": True, "c": [1, 2], "d": None, "e": "names", "f": "thompson", "g": "nlp"}

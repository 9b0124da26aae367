"""The benchmark scripts' ``key=value`` config overrides (``--set``, ``--system``, ``--grid``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))

from eval_locomo import parse_overrides  # noqa: E402


def test_values_that_read_as_json_are_json_and_other_words_are_strings():
    parsed = parse_overrides(["a=0.5", "b=true", "c=[1,2]", "d=null", "e=names", "f=thompson", "g=nlp"])
    assert parsed == {"a": 0.5, "b": True, "c": [1, 2], "d": None, "e": "names", "f": "thompson", "g": "nlp"}

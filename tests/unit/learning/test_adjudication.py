"""Adjudication of close matches: the band, the answer's parsing, falling back (pure; the real SDK
with a scripted transport is in tests/integration/learning/test_adjudication.py)."""

from __future__ import annotations

import pytest

from kgmem.config import LearningSettings
from kgmem.errors import GeneratorError
from kgmem.learning.adjudication import (
    MAX_CANDIDATES,
    Borderline,
    MatchAdjudicator,
    adjudicator_for,
    asks_about,
    in_band,
    parse_answer,
)


class Answers:
    """A TextGenerator that answers from a list (or raises GeneratorError when the item is one)."""

    name = "answers"

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        self.prompts.append(prompt)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


CANDIDATES = [
    Borderline("p1", "Your default credentials were not found.", 0.24),
    Borderline("p2", "Permission denied on resource project <*>.", 0.30),
]


def test_only_close_calls_are_in_the_band() -> None:
    assert in_band(0.30, 0.36, 0.15) and in_band(0.50, 0.36, 0.15)
    assert not in_band(0.20, 0.36, 0.15) and not in_band(0.52, 0.36, 0.15)
    assert not in_band(None, 0.36, 0.15)  # a vetoed pair is never asked about
    assert not in_band(0.36, 0.36, 0.0)


@pytest.mark.parametrize(
    "score, fuzzy, close",
    [
        (0.30, True, True),  # a close miss: both scopes ask
        (0.50, True, True),  # a close link: both ask
        (0.95, True, False),  # a confident fuzzy link (where near-twins sit): only "fuzzy" asks
        (0.20, False, False),  # too far below the threshold: neither
        (1.0, False, False),  # the same template: the same pattern, never asked
        (None, False, False),  # vetoed by the identity guard or a near-twin rule: never asked
    ],
)
def test_the_scope_decides_which_pairs_are_asked(score: float | None, fuzzy: bool, close: bool) -> None:
    assert asks_about(score, 0.36, 0.15, "fuzzy") is fuzzy
    assert asks_about(score, 0.36, 0.15, "close") is close
    assert not asks_about(score, 0.36, 0.0, "fuzzy")  # band 0: off
    assert MatchAdjudicator(Answers(), 0.15).asks_about(score, 0.36) is fuzzy  # fuzzy is the default


@pytest.mark.parametrize(
    "answer, expected",
    [
        ('{"same": [1]}', frozenset({1})),
        ('Here you go:\n```json\n{"same": [2, 1]}\n```', frozenset({1, 2})),
        ('{"same": []}', frozenset()),
        ('{"same": [3]}', None),  # no such candidate
        ('{"same": [true]}', None),
        ('{"same": "1"}', None),
        ("[1]", None),
        ("not json {", None),
        ("", None),
    ],
)
def test_answers_are_read_strictly(answer: str, expected: frozenset[int] | None) -> None:
    assert parse_answer(answer, 2) == expected


def test_verdicts_name_the_candidates_given() -> None:
    llm = Answers('{"same": [1]}')
    verdict = MatchAdjudicator(llm, 0.15).decide("Could not automatically determine credentials.", CANDIDATES, 0.38)
    assert verdict == {"p1": True, "p2": False}
    assert "Could not automatically determine credentials." in llm.prompts[0]
    assert '<known number="2">' in llm.prompts[0]


def test_a_failed_or_unreadable_answer_leaves_the_decision_to_the_model() -> None:
    judge = MatchAdjudicator(Answers(GeneratorError("429"), "maybe?"), 0.15)
    assert judge.decide("x", CANDIDATES, 0.38) is None
    assert judge.decide("x", CANDIDATES, 0.38) is None
    assert judge.failures == 2 and judge.calls == 2


def test_one_call_per_new_error() -> None:
    llm = Answers('{"same": [2]}', '{"same": []}')
    verdicts = MatchAdjudicator(llm, 0.15).decide_all({"a": ("x", CANDIDATES), "b": ("y", CANDIDATES[:1])}, 0.38)
    assert verdicts == {("a", "p1"): False, ("a", "p2"): True, ("b", "p1"): False}
    assert len(llm.prompts) == 2


def test_no_llm_or_no_band_means_no_adjudicator() -> None:
    assert adjudicator_for(None, LearningSettings(adjudicate_band=0.15)) is None
    assert adjudicator_for(Answers(), LearningSettings(adjudicate_band=0.0)) is None
    assert adjudicator_for(Answers(), LearningSettings(adjudicate_band=0.15)) is not None
    with pytest.raises(ValueError, match="adjudicate_band"):
        MatchAdjudicator(Answers(), 1.5)
    with pytest.raises(ValueError, match="adjudicate_scope"):
        MatchAdjudicator(Answers(), 0.2, "everything")  # type: ignore[arg-type]
    assert adjudicator_for(Answers(), LearningSettings(adjudicate_band=0.15, adjudicate_scope="close")).scope == "close"


MANY = [Borderline(f"p{n}", f"error text {n}", 0.38 + (n - 10) / 40) for n in range(20)]  # 0.13 … 0.855


def test_one_close_prompt_holds_at_most_the_closest_calls() -> None:
    llm = Answers('{"same": []}')
    verdict = MatchAdjudicator(llm, 0.5, "close").decide("x", MANY, 0.38)
    assert verdict is not None and len(verdict) == MAX_CANDIDATES
    assert set(verdict) == {c.candidate for c in sorted(MANY, key=lambda c: abs(c.score - 0.38))[:MAX_CANDIDATES]}
    assert llm.prompts[0].count("<known number=") == MAX_CANDIDATES


def test_one_fuzzy_prompt_holds_the_strongest_links() -> None:
    llm = Answers('{"same": [1]}')
    verdict = MatchAdjudicator(llm, 0.5, "fuzzy").decide("x", MANY, 0.38)
    assert verdict is not None and len(verdict) == MAX_CANDIDATES
    strongest = sorted(MANY, key=lambda c: -c.score)[:MAX_CANDIDATES]
    assert set(verdict) == {c.candidate for c in strongest}
    assert verdict[strongest[0].candidate] is True  # number 1 in the prompt is the highest score

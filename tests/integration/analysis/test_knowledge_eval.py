"""The offline knowledge path measured on the HELD-BACK halves of the labelled sets in tests/data
(README there): the judge with the real embedding model on the pairs, the offline extractor on
the turns. The tuning halves were used to choose the rules and thresholds; the held-back pairs
were committed before the judge ran on them and measured once, with the rules frozen (aggregate
figures only). ``scripts/eval_knowledge.py`` prints both halves (docs/analysis.md)."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from kgmem.config import AnalysisSettings

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "eval_knowledge.py"


@pytest.fixture(scope="module")
def evaluation():
    spec = importlib.util.spec_from_file_location("eval_knowledge", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_labelled_sets_are_split_and_big_enough(evaluation):
    pairs = evaluation.load(evaluation.PAIRS, "all")
    assert len(pairs) >= 150 and {p["label"] for p in pairs} == {"paraphrase", "contradiction", "unrelated"}
    # the held-back half is one batch written and committed before the rules were tuned against it,
    # big enough that one pair is under 2 % of the paraphrases
    test = evaluation.load(evaluation.PAIRS, "test")
    assert {p.get("batch") for p in test} == {13}, "the held-back half is the thirteenth batch alone"
    labels = Counter(p["label"] for p in test)
    assert labels["paraphrase"] >= 90 and labels["contradiction"] >= 70 and labels["unrelated"] >= 30, labels
    # the pairs held back before it were looked at: they are tuning data now
    assert all(p["split"] == "tune" for p in pairs if p.get("formerly") == "test")
    # one real statement and the pairs written from it stay in one half
    halves = {}
    for p in pairs:
        halves.setdefault(p["a"].lower().strip(" .!"), set()).add(p["split"])
    assert all(len(h) == 1 for h in halves.values())
    turns = evaluation.load(evaluation.TURNS, "all")
    assert {t["split"] for t in turns} == {"tune", "test"}


@pytest.fixture(scope="module")
def held_back(evaluation, embedder):
    return evaluation.eval_pairs(
        evaluation.load(evaluation.PAIRS, "test"), embedder, False, evaluation.thresholds(_Settings())
    )


def test_the_held_back_pairs_hold_todays_level(held_back):
    """What the rules reach on pairs they were not tuned on, as measured at the one look at the
    held-back batch (84/100 paraphrases merged, 63/92 contradictions found, 5/100 paraphrases and
    1/42 unrelated pairs called a contradiction, 1/42 unrelated pairs merged): a change that does
    worse fails here."""
    assert held_back["paraphrase_merged"] >= 84 / 100 - 1e-9, held_back
    assert held_back["contradiction_detected"] >= 63 / 92 - 1e-9, held_back
    assert held_back["paraphrase_called_contradiction"] <= 5 / 100 + 1e-9, held_back
    assert held_back["unrelated_merged"] <= 1 / 42 + 1e-9, held_back
    assert held_back["unrelated_called_contradiction"] <= 1 / 42 + 1e-9, held_back


@pytest.mark.xfail(
    strict=True,
    reason="held-back half: 84/100 = 0.840 paraphrases merged (goal 0.95) — "
    "docs/analysis.md, 'Knowledge you can trust'",
)
def test_paraphrases_are_merged_on_the_held_back_pairs(held_back):
    assert held_back["paraphrase_merged"] >= 0.95, held_back


@pytest.mark.xfail(
    strict=True,
    reason="held-back half: 63/92 = 0.685 contradictions found (goal 0.80) — "
    "docs/analysis.md, 'Knowledge you can trust'",
)
def test_contradictions_are_found_on_the_held_back_pairs(held_back):
    assert held_back["contradiction_detected"] >= 0.80, held_back


@pytest.mark.xfail(
    strict=True,
    reason="held-back half: 5/100 = 0.050 paraphrases called a contradiction (goal "
    "0.02) — docs/analysis.md, 'Knowledge you can trust'",
)
def test_paraphrases_are_not_called_contradictions_on_the_held_back_pairs(held_back):
    assert held_back["paraphrase_called_contradiction"] <= 0.02, held_back


def test_the_offline_extractor_on_the_held_back_turns(evaluation):
    got = evaluation.eval_extraction(evaluation.load(evaluation.TURNS, "test"), False)
    # 0.964 / 0.750 when the rules were frozen (27 of 28 extracted items right, 27 of 36 expected found)
    assert got["precision"] >= 0.90, got
    assert got["recall"] >= 0.70, got


class _Settings:
    """The shipped [analysis] defaults, whatever the environment of the test run says."""

    analysis = AnalysisSettings()

"""The offline knowledge path measured on the HELD-BACK halves of the labelled sets in tests/data
(README there): the judge with the real embedding model on the pairs, the offline extractor on
the turns. The tuning halves were used to choose the rules and thresholds; these figures were not.
``scripts/eval_knowledge.py`` prints both halves (docs/analysis.md)."""

from __future__ import annotations

import importlib.util
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
    test = evaluation.load(evaluation.PAIRS, "test")
    assert 0.4 < len(test) / len(pairs) < 0.6
    # one real statement and the pairs written from it stay in one half
    halves = {}
    for p in pairs:
        halves.setdefault(p["a"].lower().strip(" .!"), set()).add(p["split"])
    assert all(len(h) == 1 for h in halves.values())
    turns = evaluation.load(evaluation.TURNS, "all")
    assert {t["split"] for t in turns} == {"tune", "test"}


@pytest.fixture(scope="module")
def held_back(evaluation, embedder):
    return evaluation.eval_pairs(evaluation.load(evaluation.PAIRS, "test"), embedder, False,
                                 evaluation.thresholds(_Settings()))


def test_contradictions_are_found_on_the_held_back_pairs(held_back):
    assert held_back["contradiction_detected"] >= 0.80, held_back


def test_the_held_back_pairs_hold_todays_level(held_back):
    """What the rules reach on data they were not tuned on (36/38 paraphrases merged, 1/38 called a
    contradiction, 0/25 unrelated pairs merged): a change that does worse fails here."""
    assert held_back["paraphrase_merged"] >= 36 / 38 - 1e-9, held_back
    assert held_back["paraphrase_called_contradiction"] <= 1 / 38 + 1e-9, held_back
    assert held_back["unrelated_merged"] <= 0.04, held_back


@pytest.mark.xfail(strict=True, reason="held-back half: 36/38 paraphrases merged (0.947 < 0.95) and 1/38 called "
                                       "a contradiction (0.026 > 0.02) — docs/analysis.md, 'Knowledge you can trust'")
def test_paraphrase_goals_on_the_held_back_pairs(held_back):
    assert held_back["paraphrase_merged"] >= 0.95, held_back
    assert held_back["paraphrase_called_contradiction"] <= 0.02, held_back


def test_the_offline_extractor_on_the_held_back_turns(evaluation):
    got = evaluation.eval_extraction(evaluation.load(evaluation.TURNS, "test"), False)
    # 0.964 / 0.750 when the rules were frozen (27 of 28 extracted items right, 27 of 36 expected found)
    assert got["precision"] >= 0.90, got
    assert got["recall"] >= 0.70, got


class _Settings:
    """The shipped [analysis] defaults, whatever the environment of the test run says."""

    analysis = AnalysisSettings()

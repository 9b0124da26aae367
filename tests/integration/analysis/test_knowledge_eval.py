"""A smoke test of the knowledge-pair benchmark (benchmarks/knowledge_pairs.py): a few labelled pairs of
each kind through the offline extractor, the real embedding model and the offline judge. It fails when
the judge or the benchmark is broken; the quality figures are the benchmark's (docs/judging.md)."""

from __future__ import annotations

from collections import Counter

from benchmarks import knowledge_pairs as kp
from kgmem.analysis.offline_judge import ALL_RULES, OfflineJudge, Thresholds


def test_the_labelled_pairs_are_split_into_tuning_and_held_back() -> None:
    rows = kp.load("all")
    assert {r["split"] for r in rows} == {"tune", "test"}
    assert {r["label"] for r in rows} == {"paraphrase", "contradiction", "unrelated"}
    # one real statement and the pairs written from it stay in one half
    halves: dict[str, set[str]] = {}
    for r in rows:
        halves.setdefault(r["a"].lower().strip(" .!"), set()).add(r["split"])
    assert all(len(h) == 1 for h in halves.values())


def test_a_few_pairs_through_the_real_model(embedder) -> None:
    tune = kp.load("tune")
    by_label = Counter[str]()
    rows = []
    for r in tune:
        if by_label[r["label"]] < 4:
            by_label[r["label"]] += 1
            rows.append(r)
    found = kp.cases(rows, embedder)
    assert len(found) == 12 and all(c.pairs for c in found)
    assert all(-1.0 <= p.similarity <= 1.0001 for c in found for p in c.pairs)
    result = kp.evaluate(found, OfflineJudge())
    assert result["pairs"] == 12
    for key in ("paraphrase_merged", "contradiction_detected", "paraphrase_called_contradiction"):
        assert 0.0 <= result[key] <= 1.0
    # the figures name every rule for both splits
    figures = kp.figures({"tune": found}, Thresholds())
    assert figures["rules"] == " ".join(OfflineJudge().rules)
    assert all(f"tune.rule.{rule}.decided" in figures for rule in ALL_RULES)
    # the threshold sweep: a higher paraphrase cosine never merges more
    merged = [figures[f"tune.sweep.{c:.2f}.paraphrase_merged"] for c in kp.SWEEP]
    assert merged == sorted(merged, reverse=True)
    assert (
        figures[f"tune.sweep.{Thresholds().paraphrase_cosine:.2f}.paraphrase_merged"]
        == figures["tune.paraphrase_merged"]
    )


def test_a_pair_said_twice_is_merged_through_the_real_model(embedder) -> None:
    """What the judge must never get wrong, whatever its thresholds: the same statement twice."""
    rows = [
        {"id": "x", "label": "paraphrase", "a": "The API listens on port 8080.", "b": "the API listens on port 8080"}
    ]
    (case,) = kp.cases(rows, embedder)
    verdict = kp.decide(OfflineJudge().verdicts(case.pairs))
    assert verdict.merges and verdict.evidence in ("exact", "normalised"), verdict


def test_the_extraction_figures_are_computed_on_labelled_turns() -> None:
    turns = kp.load("tune", kp.TURNS)[:5]
    got = kp.extraction(turns)
    assert got["turns"] == 5 and 0.0 <= got["precision"] <= 1.0 and 0.0 <= got["recall"] <= 1.0

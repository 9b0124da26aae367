"""The offline judge on the labelled statement pairs of tests/data/knowledge_pairs.jsonl (README there).

Statement ``a`` is said in one session, ``b`` in a later one. Each goes through the offline extractor
(a statement it finds nothing in is kept as a plain fact, as an LLM would state it), each item of
``b`` is paired with each item of ``a`` (the cosine from the real embedding model), and the offline
judge (:class:`kgmem.analysis.offline_judge.OfflineJudge`) decides: a contradiction on any item pair
wins over a merge, a merge over ``distinct``.

Figures, per split (``tune``: the batches the thresholds were chosen on; ``held_back``: the batch
held back from them):

* ``<split>.paraphrase_merged``, ``<split>.contradiction_detected``,
  ``<split>.paraphrase_called_contradiction`` (the shipped rules), and the unrelated pairs merged or
  called a contradiction;
* ``<split>.rule.<name>.precision`` / ``.decided`` — every rule run in order, shipped or not: of the
  pairs a rule decided, the share whose label is what it said (a duplicate or paraphrase is right on a
  ``paraphrase`` pair, a contradiction on a ``contradiction`` pair). A rule below 0.95 on the held-back
  split is not shipped (:data:`kgmem.analysis.offline_judge.RULES`);
* ``<split>.sweep.<cosine>.paraphrase_merged`` / ``.embedding_precision`` / ``.contradiction_merged`` —
  the shipped rules with ``paraphrase_cosine`` at each of :data:`SWEEP`: how the ``embedding`` rule's
  precision trades against the paraphrases it merges (reported, not a threshold chosen on the held-back
  split);
* ``extraction.<split>.precision`` / ``.recall`` — the offline extractor on
  tests/data/extraction_turns.jsonl: an extracted item is right when an expected item of its turn has
  its type and all its terms are in its content.

    python -m benchmarks.knowledge_pairs [--errors]   # --errors: the tuning half's misjudged pairs
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kgmem.analysis.judge import Pair, Statement, Verdict
from kgmem.analysis.offline_judge import ALL_RULES, OfflineJudge, Thresholds
from kgmem.config import Settings

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "tests" / "data" / "knowledge_pairs.jsonl"
TURNS = ROOT / "tests" / "data" / "extraction_turns.jsonl"
SPLITS = {"tune": "tune", "held_back": "test"}  # figure prefix -> the file's split
_RIGHT = {"duplicate": "paraphrase", "paraphrase": "paraphrase", "contradiction": "contradiction"}
# The ``paraphrase_cosine`` values of the trade-off sweep (the shipped default among them).
SWEEP = (0.75, 0.80, 0.85, 0.90, 0.95)


@dataclass(frozen=True)
class Case:
    """One labelled pair: its row and the item pairs (each item of ``b`` against each of ``a``)."""

    row: dict[str, Any]
    pairs: tuple[Pair, ...]


def load(split: str = "all", path: Path = PAIRS) -> list[dict[str, Any]]:
    """The labelled pairs of one split of the file (``tune``, ``test``) or ``all``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def statements(text: str) -> list[Statement]:
    """The items the offline extractor finds in ``text`` said by the user, else the text as a plain fact."""
    from kgmem.analysis import OfflineExtractor

    items = OfflineExtractor().extract([{"role": "user", "text": text}])
    if not items:
        return [Statement(text, kind="fact")]
    return [Statement(i.content, i.subject, i.predicate, i.object, i.type) for i in items]


def cases(rows: Sequence[dict[str, Any]], embedder: Any) -> list[Case]:
    """Every row's item pairs, the cosines from one batched embedding."""
    sides = [(statements(r["a"]), statements(r["b"])) for r in rows]
    texts = [s.content for old, new in sides for s in (*old, *new)]
    vecs = iter(embedder.embed(texts)) if texts else iter(())
    out = []
    for row, (old, new) in zip(rows, sides):
        old_v = [next(vecs) for _ in old]
        new_v = [next(vecs) for _ in new]
        pairs = tuple(Pair(n, o, float(nv @ ov)) for n, nv in zip(new, new_v) for o, ov in zip(old, old_v))
        out.append(Case(row, pairs))
    return out


def decide(verdicts: Sequence[Verdict]) -> Verdict:
    """A pair's verdict from its item pairs': a contradiction wins over a merge, a merge over distinct."""
    for wanted in ("contradiction", "duplicate", "paraphrase"):
        for v in verdicts:
            if v.relation == wanted:
                return v
    return max(verdicts, key=lambda v: v.similarity)


def evaluate(found: Sequence[Case], judge: OfflineJudge) -> dict[str, Any]:
    """Rates and per-rule (decided, right) counts of ``judge`` on ``found``."""
    got: Counter[tuple[str, str]] = Counter()
    decided: Counter[str] = Counter()
    right: Counter[str] = Counter()
    labels: Counter[tuple[str, str]] = Counter()
    errors = []
    for case in found:
        verdict = decide(judge.verdicts(case.pairs))
        label = case.row["label"]
        relation = "paraphrase" if verdict.merges else verdict.relation
        got[(label, relation)] += 1
        if verdict.relation != "distinct":
            decided[verdict.evidence] += 1
            labels[(verdict.evidence, label)] += 1
            right[verdict.evidence] += _RIGHT[verdict.relation] == label
        if relation != {"unrelated": "distinct"}.get(label, label):
            errors.append(
                f"  {case.row['id']} {label:>13} -> {verdict.relation:<13} {verdict.evidence:<12} "
                f"{verdict.similarity:.2f} {case.row['a']!r} / {case.row['b']!r}"
            )
    n = Counter(c.row["label"] for c in found)

    def rate(label: str, relation: str) -> float:
        return got[(label, relation)] / n[label] if n[label] else float("nan")

    return {
        "pairs": len(found),
        "paraphrase_merged": rate("paraphrase", "paraphrase"),
        "contradiction_detected": rate("contradiction", "contradiction"),
        "paraphrase_called_contradiction": rate("paraphrase", "contradiction"),
        "unrelated_merged": rate("unrelated", "paraphrase"),
        "unrelated_called_contradiction": rate("unrelated", "contradiction"),
        "contradiction_merged": rate("contradiction", "paraphrase"),
        "decided": dict(decided),
        "labels": dict(labels),
        "right": dict(right),
        "errors": errors,
    }


def figures(by_split: dict[str, list[Case]], thresholds: Thresholds) -> dict[str, float | int | str]:
    """The flat figures: the shipped judge's rates and every rule's precision, per split."""
    shipped, every = OfflineJudge(thresholds), OfflineJudge(thresholds, ALL_RULES)
    out: dict[str, float | int | str] = {"rules": " ".join(shipped.rules)}
    for prefix, found in by_split.items():
        rates = evaluate(found, shipped)
        out[f"{prefix}.pairs"] = rates["pairs"]
        for key in (
            "paraphrase_merged",
            "contradiction_detected",
            "paraphrase_called_contradiction",
            "unrelated_merged",
            "unrelated_called_contradiction",
            "contradiction_merged",
        ):
            out[f"{prefix}.{key}"] = round(rates[key], 4)
        per_rule = evaluate(found, every)
        for rule in ALL_RULES:
            out[f"{prefix}.rule.{rule}.decided"] = per_rule["decided"].get(rule, 0)
            if (precision := rule_precision(per_rule, rule)) is not None:
                out[f"{prefix}.rule.{rule}.precision"] = precision
            for label in ("paraphrase", "contradiction", "unrelated"):
                out[f"{prefix}.rule.{rule}.on_{label}"] = per_rule["labels"].get((rule, label), 0)
        out.update(sweep(prefix, found, thresholds))
    return out


def sweep(prefix: str, found: Sequence[Case], thresholds: Thresholds) -> dict[str, float]:
    """The shipped rules at each ``paraphrase_cosine`` of :data:`SWEEP`, the other thresholds as given."""
    out: dict[str, float] = {}
    for cosine in SWEEP:
        rates = evaluate(found, OfflineJudge(replace(thresholds, paraphrase_cosine=cosine)))
        key = f"{prefix}.sweep.{cosine:.2f}"
        out[f"{key}.paraphrase_merged"] = round(rates["paraphrase_merged"], 4)
        out[f"{key}.contradiction_merged"] = round(rates["contradiction_merged"], 4)
        if (precision := rule_precision(rates, "embedding")) is not None:
            out[f"{key}.embedding_precision"] = precision
    return out


def rule_precision(rates: dict[str, Any], rule: str) -> float | None:
    """Of the pairs ``rule`` decided in ``rates`` (:func:`evaluate`), the share it got right; None if none."""
    decided = rates["decided"].get(rule, 0)
    return round(rates["right"].get(rule, 0) / decided, 4) if decided else None


def extraction(rows: Sequence[dict[str, Any]]) -> dict[str, float | int]:
    """The offline extractor's precision and recall on labelled turns."""
    from kgmem.analysis import OfflineExtractor

    extracted = correct = expected = found = 0
    for row in rows:
        items = OfflineExtractor().extract([{"role": row["role"], "text": row["text"]}])

        def match(item: Any, want: dict[str, Any]) -> bool:
            return item.type == want["type"] and all(t.lower() in item.content.lower() for t in want["terms"])

        extracted += len(items)
        expected += len(row["expected"])
        correct += sum(any(match(i, e) for e in row["expected"]) for i in items)
        found += sum(any(match(i, e) for i in items) for e in row["expected"])
    return {
        "turns": len(rows),
        "precision": round(correct / extracted, 4) if extracted else 0.0,
        "recall": round(found / expected, 4) if expected else 0.0,
    }


def thresholds(settings: Settings) -> Thresholds:
    """The offline judge's thresholds as the knowledge store builds them from ``[analysis]``."""
    return Thresholds(paraphrase_cosine=settings.analysis.dedup_cosine)


def run(settings: Settings, quick: bool = False) -> dict[str, float | int | str]:
    """Both splits (``quick``: the first 300 tuning pairs and the whole held-back batch)."""
    from kgmem.vectors import Embedder

    embedder = Embedder(settings.embedding, settings.models_dir)
    tune = load("tune")
    by_split = {"tune": cases(tune[:300] if quick else tune, embedder), "held_back": cases(load("test"), embedder)}
    out = figures(by_split, thresholds(settings))
    for prefix, split in SPLITS.items():
        for key, value in extraction(load(split, TURNS)).items():
            out[f"extraction.{prefix}.{key}"] = value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a part of the tuning half")
    parser.add_argument("--errors", action="store_true", help="list the tuning half's misjudged pairs")
    args = parser.parse_args(argv)
    settings = Settings()
    for key, value in run(settings, args.quick).items():
        print(f"{key}: {value}")
    if args.errors:
        from kgmem.vectors import Embedder

        found = cases(load("tune"), Embedder(settings.embedding, settings.models_dir))
        print("\n".join(evaluate(found, OfflineJudge(thresholds(settings)))["errors"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

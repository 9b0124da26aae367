#!/usr/bin/env python
"""Measure the offline knowledge path on the labelled sets in tests/data (README there).

* ``pairs`` — tests/data/knowledge_pairs.jsonl: statement ``a`` is said in one session,
  ``b`` in a later one. Each goes through the offline extractor (a statement it finds nothing in
  is kept as a plain fact, as an LLM would state it) and the knowledge store's judge
  (kgmem.analysis.judge, with the real embedding model) decides what ``b`` is to ``a``:
  merged (paraphrase), contradiction, or a new item (unrelated). Reported per split:
  paraphrase merged, contradiction detected, paraphrase called contradiction, unrelated merged,
  unrelated called contradiction.
* ``extraction`` — tests/data/extraction_turns.jsonl: each turn through the offline extractor;
  an extracted item is correct when an expected item of the turn has its type and all its terms
  are in its content. Precision = correct / extracted, recall = found / expected.

    .venv/bin/python scripts/eval_knowledge.py [pairs|extraction|all] [--split tune|test|all] [--errors]

``--errors`` lists the misjudged pairs / turns — use it on the tuning half only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "tests" / "data" / "knowledge_pairs.jsonl"
TURNS = ROOT / "tests" / "data" / "extraction_turns.jsonl"


def load(path: Path, split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def statements(text: str) -> list[Any]:
    """The items the offline extractor finds in ``text`` said by the user, else the text as a plain fact."""
    from kgmem.analysis import ExtractedItem, OfflineExtractor

    items = OfflineExtractor().extract([{"role": "user", "text": text}])
    return items or [ExtractedItem(type="fact", content=text, confidence=0.8)]


def thresholds(settings: Any) -> Any:
    """The judge's thresholds as the knowledge store builds them from ``[analysis]``."""
    from kgmem.analysis.judge import Thresholds

    a = settings.analysis
    return Thresholds(related_cosine=a.related_cosine, detail_cosine=a.detail_cosine, paraphrase_cosine=a.dedup_cosine)


def decide_pair(a: str, b: str, embedder: Any, limits: Any = None) -> tuple[str, str]:
    """What the store does with ``b`` after ``a``: (relation, reason) — contradiction wins over merge."""
    from kgmem.analysis.judge import DEFAULT, Statement, judge

    old, new = statements(a), statements(b)
    vecs = embedder.embed([i.content for i in old] + [i.content for i in new])
    verdicts = []
    for j, item in enumerate(new):
        for i, prev in enumerate(old):
            sim = float(vecs[i] @ vecs[len(old) + j])
            verdicts.append(
                judge(
                    Statement(item.content, item.subject, item.predicate, item.object, item.type),
                    Statement(prev.content, prev.subject, prev.predicate, prev.object, prev.type),
                    sim,
                    limits or DEFAULT,
                )
            )
    for relation in ("contradiction", "paraphrase"):
        for v in verdicts:
            if v.relation == relation:
                return relation, f"{v.reason} ({v.similarity:.2f})"
    best = max(verdicts, key=lambda v: v.similarity)
    return "unrelated", f"{best.reason} ({best.similarity:.2f})"


def eval_pairs(rows: list[dict[str, Any]], embedder: Any, show_errors: bool, limits: Any = None) -> dict[str, Any]:
    got: Counter[tuple[str, str]] = Counter()
    errors = []
    for row in rows:
        relation, reason = decide_pair(row["a"], row["b"], embedder, limits)
        got[(row["label"], relation)] += 1
        if relation != row["label"]:
            errors.append(
                f"  {row['id']} {row['label']:>13} -> {relation:<13} {reason:<22} {row['a']!r} / {row['b']!r}"
            )
    n = Counter(r["label"] for r in rows)

    def rate(label: str, relation: str) -> float:
        return got[(label, relation)] / n[label] if n[label] else float("nan")

    result = {
        "pairs": len(rows),
        "by_label": dict(n),
        "paraphrase_merged": rate("paraphrase", "paraphrase"),
        "contradiction_detected": rate("contradiction", "contradiction"),
        "paraphrase_called_contradiction": rate("paraphrase", "contradiction"),
        "unrelated_merged": rate("unrelated", "paraphrase"),
        "unrelated_called_contradiction": rate("unrelated", "contradiction"),
    }
    if show_errors:
        result["errors"] = errors
    return result


def match(item: Any, expected: dict[str, Any]) -> bool:
    return item.type == expected["type"] and all(t.lower() in item.content.lower() for t in expected["terms"])


def eval_extraction(rows: list[dict[str, Any]], show_errors: bool) -> dict[str, Any]:
    from kgmem.analysis import OfflineExtractor

    extracted = correct = expected = found = 0
    errors = []
    for row in rows:
        items = OfflineExtractor().extract([{"role": row["role"], "text": row["text"]}])
        extracted += len(items)
        expected += len(row["expected"])
        ok = [i for i in items if any(match(i, e) for e in row["expected"])]
        correct += len(ok)
        hit = [e for e in row["expected"] if any(match(i, e) for i in items)]
        found += len(hit)
        if len(ok) != len(items) or len(hit) != len(row["expected"]):
            errors.append(
                f"  {row['id']} {row['text']!r}: expected {row['expected']}, got {[(i.type, i.content) for i in items]}"
            )
    result = {
        "turns": len(rows),
        "expected_items": expected,
        "extracted_items": extracted,
        "precision": correct / extracted if extracted else float("nan"),
        "recall": found / expected if expected else float("nan"),
    }
    if show_errors:
        result["errors"] = errors
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="?", default="all", choices=("pairs", "extraction", "all"))
    parser.add_argument(
        "--split", default="all", choices=("tune", "test", "all"), help="which half (all: both, reported separately)"
    )
    parser.add_argument("--errors", action="store_true", help="list the misjudged items (tuning half only!)")
    args = parser.parse_args(argv)
    splits = ("tune", "test") if args.split == "all" else (args.split,)
    out: dict[str, Any] = {}
    if args.what in ("pairs", "all"):
        from kgmem.config import Settings
        from kgmem.vectors import Embedder

        settings = Settings()
        embedder = Embedder(settings.embedding, settings.models_dir)
        limits = thresholds(settings)
        out["pairs"] = {s: eval_pairs(load(PAIRS, s), embedder, args.errors, limits) for s in splits}
    if args.what in ("extraction", "all"):
        out["extraction"] = {s: eval_extraction(load(TURNS, s), args.errors) for s in splits}
    for what, by_split in out.items():
        for split, result in by_split.items():
            errors = result.pop("errors", [])
            print(
                f"{what} [{split}]: "
                + ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items())
            )
            for line in errors:
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Measure a pair classifier fine-tuned from the shipped MiniLM as a second opinion beside the knowledge judge.

A measurement, not a feature (docs/reliability.md "Knowledge the store gets right"): all-MiniLM-L6-v2 (the
embedding model kgmem ships, Apache-2.0) is fine-tuned as a three-way cross-encoder (paraphrase /
contradiction / unrelated) on the labelled pairs of batches up to ``--train-through`` (both orders of each
pair), then scored on two later batches it never saw: ``--pick-on`` chooses the threshold of "the rules, or
the model's P(contradiction) >= tau" (the most contradictions with no more paraphrases called one than the
rules alone), and ``--report-on`` is scored once with that threshold.

    PYTHONPATH=$PWD .venv/bin/python scripts/eval_pair_classifier.py --train-through 11 --pick-on 12 --report-on 13

Training takes ~10 minutes per epoch on two cores (torch, already installed with sentence-transformers).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT / "tests" / "data" / "knowledge_pairs.jsonl"
LABELS = ("paraphrase", "contradiction", "unrelated")


def batches(rows: list[dict[str, Any]], pick: Any) -> list[dict[str, Any]]:
    """Rows whose batch passes ``pick`` (the first, unnumbered set counts as batch 0)."""
    return [r for r in rows if pick(r.get("batch") or 0)]


def train(rows: list[dict[str, Any]], epochs: int, seed: int) -> Any:
    """The shipped MiniLM fine-tuned as a three-way pair classifier on ``rows`` (both orders)."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    from kgmem.vectors.embedder import bundled_model_path

    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = CrossEncoder(str(bundled_model_path()), num_labels=len(LABELS), max_length=128)
    pairs = [(a, b, LABELS.index(r["label"])) for r in rows for a, b in ((r["a"], r["b"]), (r["b"], r["a"]))]
    net, tok = model.model, model.tokenizer
    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-5, weight_decay=0.01)
    steps = epochs * ((len(pairs) + 31) // 32)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: min(1.0, (i + 1) / 100) * max(0.0, 1 - i / steps))
    started = time.time()
    for epoch in range(epochs):
        rng.shuffle(pairs)
        for i in range(0, len(pairs), 32):
            chunk = pairs[i : i + 32]
            enc = tok(
                [p[0] for p in chunk],
                [p[1] for p in chunk],
                padding=True,
                truncation=True,
                max_length=128,
                return_tensors="pt",
            )
            loss = torch.nn.functional.cross_entropy(net(**enc).logits, torch.tensor([p[2] for p in chunk]))
            loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad()
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.3f}, {time.time() - started:.0f} s", flush=True)
    net.eval()
    return model


def probabilities(model: Any, rows: list[dict[str, Any]]) -> np.ndarray:
    """The model's probability of each label (columns in ``LABELS`` order) per pair, the mean of both orders."""
    one = model.predict([[r["a"], r["b"]] for r in rows], apply_softmax=True)
    two = model.predict([[r["b"], r["a"]] for r in rows], apply_softmax=True)
    return (np.asarray(one) + np.asarray(two)) / 2


def figures(rows: list[dict[str, Any]], verdicts: list[str]) -> dict[str, float]:
    """The issue's figures (and the unrelated pairs') of ``verdicts`` against the labels."""

    def rate(label: str, verdict: str) -> float:
        n = sum(r["label"] == label for r in rows)
        return sum(r["label"] == label and v == verdict for r, v in zip(rows, verdicts)) / n

    return {
        "paraphrase_merged": rate("paraphrase", "paraphrase"),
        "contradiction_detected": rate("contradiction", "contradiction"),
        "paraphrase_called_contradiction": rate("paraphrase", "contradiction"),
        "unrelated_called_contradiction": rate("unrelated", "contradiction"),
    }


def combined(rules: list[str], p: np.ndarray, tau: float) -> list[str]:
    """The rules' verdicts, with a pair the model gives P(contradiction) >= ``tau`` called a contradiction."""
    return ["contradiction" if q >= tau else v for v, q in zip(rules, p)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-through", type=int, required=True, help="train on batches up to this one")
    parser.add_argument("--pick-on", type=int, required=True, help="choose the threshold on this batch")
    parser.add_argument("--report-on", type=int, required=True, help="report on this batch, once")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.epochs < 1:
        parser.error("--epochs must be at least 1")
    if min(args.pick_on, args.report_on) <= args.train_through:
        parser.error("--pick-on and --report-on must be later batches than --train-through")

    spec = importlib.util.spec_from_file_location("eval_knowledge", ROOT / "scripts" / "eval_knowledge.py")
    knowledge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(knowledge)  # type: ignore[union-attr]
    from kgmem.config import Settings
    from kgmem.vectors import Embedder

    rows = [json.loads(line) for line in PAIRS.open(encoding="utf-8")]
    model = train(batches(rows, lambda b: b <= args.train_through), args.epochs, args.seed)
    settings = Settings()
    embedder = Embedder(settings.embedding, settings.models_dir)
    limits = knowledge.thresholds(settings)
    scored = {}
    for batch in (args.pick_on, args.report_on):
        subset = batches(rows, lambda b, batch=batch: b == batch)
        rules = [knowledge.decide_pair(r["a"], r["b"], embedder, limits)[0] for r in subset]
        probs = probabilities(model, subset)
        scored[batch] = (subset, rules, probs[:, LABELS.index("contradiction")])
        model_alone = [LABELS[i] for i in probs.argmax(axis=1)]
        print(
            f"batch {batch}: rules {figures(subset, rules)}; model alone (most likely label) "
            f"{figures(subset, model_alone)}"
        )
    subset, rules, p = scored[args.pick_on]
    allowed = figures(subset, rules)["paraphrase_called_contradiction"]
    candidates = [
        t
        for t in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
        if figures(subset, combined(rules, p, t))["paraphrase_called_contradiction"] <= allowed
    ]
    tau = min(candidates, default=1.01)
    print(f"tau {tau} (chosen on batch {args.pick_on}): {figures(subset, combined(rules, p, tau))}")
    subset, rules, p = scored[args.report_on]
    print(f"batch {args.report_on}, rules + model at tau {tau}: {figures(subset, combined(rules, p, tau))}")


if __name__ == "__main__":
    main()

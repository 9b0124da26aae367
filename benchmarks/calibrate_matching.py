#!/usr/bin/env python
"""Fit the error-matching model (kgmem/learning/matching.py: DEFAULT_MODEL) on the TRAINING half.

A standalone study (listed by ``python -m benchmarks list``): the runner does not run it and its
figures are not recorded in benchmarks/results.json; no registered benchmark imports it.

    python -m benchmarks.calibrate_matching            # fit on train, print constants + offline figures
    python -m benchmarks.calibrate_matching --json
    python -m benchmarks.calibrate_matching --eval     # no fit: DEFAULT_MODEL on the training half only,
                                                    # embeddings cached in /tmp (seconds per run)
    python -m benchmarks.calibrate_matching --train-only   # fit, but never score (or embed) the held-out half
    python -m benchmarks.calibrate_matching --eval --band 0.2   # ... and the pairs an LLM would judge
    python -m benchmarks.calibrate_matching --eval --scope close   # ... only the close calls
    python -m benchmarks.calibrate_matching --eval --corrections   # user corrections: auto-applied by confidence
                                                    # alone (the rule before identity links) vs identity
    python -m benchmarks.calibrate_matching --eval --corrections --looser lines-added   # looser evidence

Pairs (offline, pairwise, no Neo4j; cosine from the real embedding model):
  positive = two variants of one group; negative = a hard negative and a variant of the group it
  imitates, and variants of different groups that look alike (cosine ≥ 0.5 or trigram Jaccard ≥ 0.3).
Pairs the identity guard rejects are left out (they are never linked whatever the score).
The threshold is chosen on the training half by the issue's measure (each later variant against
the group's first; each hard negative against the first variant of its look-alike group): among
the thresholds reaching the issue's recall goal (0.90 of variants) the one with the fewest hard
negatives matched, then the most variants, then the middle of that plateau. The
held-out half is scored with the fitted constants and printed for reference only — never used
to choose anything. The real-stack measure is `benchmarks/learning.py corpus`.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
import tempfile
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import numpy as np

from benchmarks.error_corpus import CorpusRow, groups, load_corpus, split_corpus
from kgmem.config import load_settings
from kgmem.learning.adjudication import SCOPES, asks_about
from kgmem.learning.identity import same_error
from kgmem.learning.matching import (
    DEFAULT_MODEL,
    ErrorText,
    MatchModel,
    features,
    fit_logistic,
    match_score,
    near_twins,
)
from kgmem.learning.plan import describe_error
from kgmem.learning.similarity import decode_keys, keys_compatible
from kgmem.vectors import Embedder

ROOT = Path(__file__).resolve().parent.parent

CACHE = Path(tempfile.gettempdir()) / "kgmem-calibrate-embeddings.pkl"


def _prepare(rows: list[CorpusRow], emb: Embedder | None):
    """Templates + keys of every row and the cosine matrix of their core signatures. Embeddings
    are cached by signature text (same model ⇒ same vector), so ``--eval`` after a rule change only
    embeds the signatures that changed."""
    infos = [describe_error("cal", "agent", r.text) for r in rows]
    texts = [ErrorText(i.template, decode_keys(i.keys)) for i in infos]
    cache: dict[str, np.ndarray] = pickle.loads(CACHE.read_bytes()) if CACHE.exists() else {}
    missing = sorted({i.signature for i in infos} - cache.keys())
    if missing:
        emb = emb or _embedder()
        cache.update(zip(missing, (np.asarray(v) for v in emb.embed(missing))))
        CACHE.write_bytes(pickle.dumps(cache))
    vecs = np.array([cache[i.signature] for i in infos])
    return texts, vecs @ vecs.T


def _embedder() -> Embedder:
    settings = load_settings()
    return Embedder(settings.embedding, settings.models_dir)


def _pairs(rows: list[CorpusRow], texts, sim):
    """(i, j, label, hard) for the pairs of one half; guard-rejected pairs are dropped."""
    out = []
    idx = {id(r): n for n, r in enumerate(rows)}
    by_group = groups(rows)
    for vs in by_group.values():
        for a, b in combinations(vs, 2):
            out.append((idx[id(a)], idx[id(b)], 1, False))
    for n, r in enumerate(rows):
        if r.kind == "n":
            out.extend((n, idx[id(v)], 0, True) for v in by_group.get(r.confusable_with or "", []))
    variants = [n for n, r in enumerate(rows) if r.kind == "v"]
    for i, j in combinations(variants, 2):
        if rows[i].group != rows[j].group:
            f = features(texts[i], texts[j], float(sim[i, j]))
            if f.cosine >= 0.5 or f.char_jaccard >= 0.3:
                out.append((i, j, 0, False))
    # The model decides only the pairs the rules leave open: the guards reject some (never linked), an
    # identical template links others (score 1) — fitting on those would tune weights for no decision.
    return [
        (i, j, y, h)
        for i, j, y, h in out
        if keys_compatible(texts[i].keys, texts[j].keys)
        and texts[i].template != texts[j].template
        and not near_twins(texts[i], texts[j])
    ]


def _measure(rows: list[CorpusRow], texts, sim, model: MatchModel, band: float = 0.0, scope: str = "fuzzy") -> dict:
    """The issue's measure, pairwise: does each later variant match the group's first variant;
    does a hard negative match the first variant of the group it imitates. With ``band``: how many
    of those pairs an LLM adjudicator would be asked about (``learning.adjudicate_band`` and
    ``adjudicate_scope``), and the figures if it judged every one of them right (its ceiling; its
    real accuracy needs a key)."""
    idx = {id(r): n for n, r in enumerate(rows)}
    by_group = groups(rows)
    got, total, wrong, negs = 0, 0, [], 0
    asked = {"variants": 0, "variants_missed": 0, "negatives": 0, "negatives_matched": 0}

    def linked(i: int, j: int, kind: str) -> bool:
        s = match_score(texts[i], texts[j], float(sim[i, j]), model)
        hit = s is not None and s >= model.threshold
        if asks_about(s, model.threshold, band, scope):
            asked[kind] += 1
            if kind == "variants" and not hit:
                asked["variants_missed"] += 1
            if kind == "negatives" and hit:
                asked["negatives_matched"] += 1
        return hit

    for vs in by_group.values():
        first = idx[id(vs[0])]
        for v in vs[1:]:
            total += 1
            got += linked(idx[id(v)], first, "variants")
    for n, r in enumerate(rows):
        if r.kind == "n" and r.confusable_with in by_group:
            negs += 1
            if linked(n, idx[id(by_group[r.confusable_with][0])], "negatives"):
                wrong.append(r.group)
    out = {
        "variants": total,
        "variants_matched": round(got / max(1, total), 3),
        "hard_negatives": negs,
        "hard_negatives_matched": len(wrong),
        "wrong": wrong,
    }
    if band > 0:
        out["adjudication"] = {
            "band": band,
            "scope": scope,
            "asked": asked,
            "ceiling_variants_matched": round((got + asked["variants_missed"]) / max(1, total), 3),
            "ceiling_hard_negatives_matched": len(wrong) - asked["negatives_matched"],
        }
    return out


def _identical_templates(rows: list[CorpusRow], texts) -> float:
    """Share of later variants whose core template is the group's first variant's (score 1 without a model)."""
    idx = {id(r): n for n, r in enumerate(rows)}
    same = total = 0
    for vs in groups(rows).values():
        first = texts[idx[id(vs[0])]].template
        for v in vs[1:]:
            total += 1
            same += texts[idx[id(v)]].template == first
    return round(same / max(1, total), 3)


RECALL_GOAL = 0.90  # share of later variants that must get their fix


def _choose_threshold(rows, texts, sim, bias: float, weights: tuple[float, ...]) -> float:
    """Among thresholds whose training variants-matched rate reaches RECALL_GOAL, the one with the
    fewest training hard negatives matched (then the most variants; then the middle of that
    plateau). If none reaches the goal, the one with the most variants matched."""
    grid = [round(0.05 + 0.01 * n, 2) for n in range(95)]
    results = [(t, _measure(rows, texts, sim, MatchModel(bias, weights, t))) for t in grid]
    ok = [(t, r) for t, r in results if r["variants_matched"] >= RECALL_GOAL] or results
    best = min((r["hard_negatives_matched"], -r["variants_matched"]) for _, r in ok)
    plateau = [t for t, r in ok if (r["hard_negatives_matched"], -r["variants_matched"]) == best]
    return plateau[len(plateau) // 2]


_WORD = re.compile(r"[A-Za-z]{2,}")


def _statement_lines(t: ErrorText) -> list[str]:
    """The core lines that say something: a line of values only (a path or a location such as
    ``node:internal/modules/cjs/loader:<*>``) is left out."""

    def value(line: str) -> bool:
        s = line.strip()
        return not _WORD.search(s.replace("<*>", "")) or (" " not in s and (any(c in s for c in "/\\") or ":<*>" in s))

    return [ln for ln in t.lines if not value(ln)]


def _in_order(short: tuple[str, ...] | list[str], long: tuple[str, ...] | list[str]) -> bool:
    rest = iter(long)
    return all(line in rest for line in short) and any(_WORD.search(line) for line in short)


# Looser evidence measured against the identity rule and not adopted (docs/learning.md, "Borrowed fixes: when
# they auto-apply"): each proves a pair when same_error does or when it holds with equal keys. a = the new
# error, b = the pattern the correction was learnt on.
LOOSER: dict[str, Callable[[ErrorText, ErrorText], bool]] = {
    "value-lines": lambda a, b: bool(_statement_lines(a)) and _statement_lines(a) == _statement_lines(b),
    "lines-added-or-dropped": lambda a, b: _in_order(a.lines, b.lines) or _in_order(b.lines, a.lines),
    "lines-added": lambda a, b: _in_order(b.lines, a.lines),
    "lines-dropped": lambda a, b: _in_order(a.lines, b.lines),
    "first-line": lambda a, b: a.lines[:1] == b.lines[:1] and bool(_WORD.search(a.lines[0] if a.lines else "")),
}


def _corrections(rows: list[CorpusRow], texts, sim, model: MatchModel, looser: str | None = None) -> dict:
    """A user correction (confidence 1.0) on each group's first variant; each later variant and each hard
    negative against it: linked, auto-applied by confidence alone (score ≥ 0.7, the rule before identity
    links) and now (the same pattern, or a link between errors proven the same:
    :func:`kgmem.learning.identity.same_error`)."""
    threshold = load_settings().learning.auto_apply_threshold
    pats = [describe_error("cal", "agent", r.text).pattern for r in rows]
    at = {id(r): i for i, r in enumerate(rows)}
    by_group = groups(rows)
    first = {g: at[id(vs[0])] for g, vs in by_group.items()}

    def judge(i: int, j: int) -> tuple[bool, bool, bool]:
        if pats[i] == pats[j]:  # one node: the correction is the error's own fix
            return True, True, True
        score = match_score(texts[i], texts[j], float(sim[i, j]), model)
        linked = score is not None and score >= model.threshold
        return linked, linked and score + 1e-9 >= threshold, linked and proven(texts[i], texts[j])

    def proven(a: ErrorText, b: ErrorText) -> bool:
        if same_error(a, b):
            return True
        return looser is not None and dict(a.keys) == dict(b.keys) and LOOSER[looser](a, b)

    later = [judge(at[id(v)], first[g]) for g, vs in by_group.items() for v in vs[1:]]
    negatives = [
        judge(at[id(r)], first[r.confusable_with]) for r in rows if r.kind == "n" and r.confusable_with in by_group
    ]

    def count(rows_: list[tuple[bool, bool, bool]], k: int) -> int:
        return sum(r[k] for r in rows_)

    named = [
        r.group for r, n in zip((r for r in rows if r.kind == "n" and r.confusable_with in by_group), negatives) if n[2]
    ]
    return {
        "rule": f"identity + {looser}" if looser else "identity",
        "variants": len(later),
        "variants_linked": count(later, 0),
        "variants_auto_by_confidence": count(later, 1),
        "variants_auto_identity": count(later, 2),
        "hard_negatives": len(negatives),
        "negatives_linked": count(negatives, 0),
        "negatives_auto_by_confidence": count(negatives, 1),
        "negatives_auto_identity": count(negatives, 2),
        "negatives_auto_identity_groups": named,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--eval", action="store_true", help="no fit: DEFAULT_MODEL on the training half only")
    parser.add_argument(
        "--train-only",
        action="store_true",
        help="fit and print the training figures only; the held-out half is not scored",
    )
    parser.add_argument(
        "--band",
        type=float,
        default=None,
        help="with --eval: count the pairs an LLM judge would be asked about with this band and "
        "the ceiling if each were judged right (default: learning.adjudicate_band)",
    )
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        default=None,
        help="with --eval: which pairs the LLM is asked about (default: learning.adjudicate_scope)",
    )
    parser.add_argument(
        "--corrections",
        action="store_true",
        help="with --eval: user corrections auto-applied to later variants and hard negatives, "
        "by confidence alone vs over identity links only",
    )
    parser.add_argument(
        "--looser",
        choices=sorted(LOOSER),
        default=None,
        help="with --corrections: also prove pairs by this looser evidence (measured, not adopted)",
    )
    parser.add_argument(
        "--half",
        choices=("train", "test"),
        default="train",
        help="with --eval: the half scored (test = held-out: the lead's single measurement)",
    )
    parser.add_argument(
        "--i-am-the-lead",
        action="store_true",
        help="allow --eval --half test (held-out): the lead measures it once after a change",
    )
    args = parser.parse_args(argv)
    if args.half == "test" and not args.i_am_the_lead:
        parser.error("--half test is the held-out half: refused without --i-am-the-lead (tune on train only)")
    rows = load_corpus()
    train, test = split_corpus(rows, "train"), split_corpus(rows, "test")
    if args.eval:  # the fast loop for rule changes on the training half (--half test: the lead's measurement)
        learning = load_settings().learning
        band = learning.adjudicate_band if args.band is None else args.band
        scope = learning.adjudicate_scope if args.scope is None else args.scope
        half = train if args.half == "train" else test
        texts, sim = _prepare(half, None)
        if args.corrections:
            print(json.dumps({args.half: _corrections(half, texts, sim, DEFAULT_MODEL, args.looser)}, indent=2))
            return 0
        measured = _measure(half, texts, sim, DEFAULT_MODEL, band, scope)
        measured["identical_templates"] = _identical_templates(half, texts)
        print(json.dumps({args.half: measured}, indent=2))
        return 0
    t_texts, t_sim = _prepare(train, None)
    emb = None if args.train_only else _embedder()
    pairs = _pairs(train, t_texts, t_sim)
    x = [features(t_texts[i], t_texts[j], float(t_sim[i, j])).vector() for i, j, _, _ in pairs]
    y = [lab for _, _, lab, _ in pairs]
    bias, weights = fit_logistic(x, y)
    threshold = _choose_threshold(train, t_texts, t_sim, bias, weights)
    model = MatchModel(round(bias, 4), tuple(round(w, 4) for w in weights), threshold)
    out = {
        "train_pairs": len(pairs),
        "positives": sum(y),
        "negatives": len(y) - sum(y),
        "model": {"bias": model.bias, "weights": list(model.weights), "threshold": model.threshold},
        "train": _measure(train, t_texts, t_sim, model),
    }
    out["train_curve"] = [
        {
            "threshold": t,
            **{
                k: v
                for k, v in _measure(train, t_texts, t_sim, MatchModel(model.bias, model.weights, t)).items()
                if k != "wrong"
            },
        }
        for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
    ]
    out["train"]["identical_templates"] = _identical_templates(train, t_texts)
    if not args.train_only:
        h_texts, h_sim = _prepare(test, emb)
        out["held_out_reference_only"] = _measure(test, h_texts, h_sim, model)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"pairs {out['train_pairs']} ({out['positives']} positive, {out['negatives']} negative)")
        print(f"DEFAULT_MODEL = MatchModel(bias={model.bias}, weights={model.weights}, threshold={model.threshold})")
        print("train   ", out["train"])
        for row in out["train_curve"]:
            print(
                f"  train, threshold {row['threshold']:.2f}: variants matched {row['variants_matched']:.3f}, "
                f"hard negatives matched {row['hard_negatives_matched']}/{row['hard_negatives']}"
            )
        if "held_out_reference_only" in out:
            print("held-out", out["held_out_reference_only"], "(reference only; not used to choose anything)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Is a new error the same as a known one? A ranked decision over several signals (pure).

One cosine with one global threshold cannot tell a re-wrapped variant of an error
(``time=… level=error msg="…"`` around the same text) from a near-twin that needs another
fix (``invalid start byte`` vs ``invalid continuation byte``). So every candidate pair is
scored on the *core* of both errors (:mod:`kgmem.learning.core`), on several signals:

- template equality (:func:`kgmem.learning.templates.template` of the core): same template
  ⇒ same error, score 1;
- lexical overlap of the templates: token Jaccard, token containment, character-trigram
  Jaccard (wrappers and reworded tails change few tokens; a twin changes the key word);
- embedding cosine of the core signatures (the vector leg);

combined by a logistic model whose weights and threshold were fitted on the *training*
half of the error corpus only (:mod:`kgmem.learning.corpus`; the command is in
:data:`DEFAULT_MODEL`'s comment). Before any score, the *identity guard*: two errors whose
errno / HTTP status / database code / exception class / service code differ (both carry
one of a kind and they share none) are never the same (:func:`keys_compatible`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgmem.learning.similarity import keys_compatible

__all__ = ["ErrorText", "Features", "MatchModel", "DEFAULT_MODEL", "features", "match_score", "fit_logistic"]

_TOKEN = re.compile(r"<\*>|<[a-z]+>|[A-Za-z_][A-Za-z0-9_]*|\d+")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ErrorText:
    """What matching knows of one error: its core template and its identity keys."""

    template: str
    keys: Mapping[str, frozenset[str]]

    def tokens(self) -> frozenset[str]:
        return frozenset(t.lower() for t in _TOKEN.findall(self.template) if t != "<*>")

    def trigrams(self) -> frozenset[str]:
        text = _SPACES.sub(" ", self.template.lower())
        return frozenset(text[i:i + 3] for i in range(max(1, len(text) - 2)))


@dataclass(frozen=True)
class Features:
    """The signals of one candidate pair, each in [0, 1]."""

    template_equal: float
    token_jaccard: float
    token_containment: float
    char_jaccard: float
    cosine: float

    def vector(self) -> tuple[float, ...]:
        return (self.template_equal, self.token_jaccard, self.token_containment, self.char_jaccard, self.cosine)


@dataclass(frozen=True)
class MatchModel:
    """Logistic weights over :meth:`Features.vector` plus the decision threshold on its output."""

    bias: float
    weights: tuple[float, ...]
    threshold: float

    def probability(self, f: Features) -> float:
        z = self.bias + sum(w * x for w, x in zip(self.weights, f.vector()))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


# Fitted on the TRAINING half of tests/data/errors_corpus*.jsonl by
#   python scripts/calibrate_matching.py
# (logistic regression on same-group vs hard-negative / nearest cross-group pairs, then the
# threshold with the most variants joined and no hard negative linked on the training half).
DEFAULT_MODEL = MatchModel(bias=-9.0, weights=(4.0, 3.0, 2.0, 3.0, 6.0), threshold=0.5)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _containment(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def features(a: ErrorText, b: ErrorText, cosine: float) -> Features:
    """The signals of the pair (a, b); ``cosine`` is the embedding cosine of their core signatures."""
    ta, tb = a.tokens(), b.tokens()
    same = bool(a.template) and a.template == b.template
    return Features(template_equal=1.0 if same else 0.0, token_jaccard=_jaccard(ta, tb),
                    token_containment=_containment(ta, tb), char_jaccard=_jaccard(a.trigrams(), b.trigrams()),
                    cosine=max(0.0, min(1.0, cosine)))


def match_score(a: ErrorText, b: ErrorText, cosine: float, model: MatchModel = DEFAULT_MODEL) -> float | None:
    """The match score of (a, b) in [0, 1], or None when the identity guard forbids the link.

    Same template (and compatible keys) scores 1.0; otherwise the model's probability. A pair
    is the same error when the score is ≥ ``model.threshold``.
    """
    if not keys_compatible(a.keys, b.keys):
        return None
    f = features(a, b, cosine)
    if f.template_equal:
        return 1.0
    return model.probability(f)


def fit_logistic(x: Sequence[Sequence[float]], y: Sequence[int], l2: float = 1e-3,
                 steps: int = 50) -> tuple[float, tuple[float, ...]]:
    """L2-regularised logistic regression by Newton's method (a few hundred pairs, five features: no
    dependency needed). Classes are weighted to equal total weight. Returns (bias, weights)."""
    import numpy as np

    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    if xs.ndim != 2 or len(xs) != len(ys) or not 0 < ys.sum() < len(ys):
        raise ValueError("fit_logistic: need a 2-D x, one label per row and both classes present")
    pos = ys.sum()
    sample_w = np.where(ys == 1, 0.5 / pos, 0.5 / (len(ys) - pos))
    design = np.hstack([np.ones((len(xs), 1)), xs])
    theta = np.zeros(design.shape[1])
    ridge = l2 * np.eye(design.shape[1])
    ridge[0, 0] = 0.0  # the bias is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -60, 60)))
        grad = design.T @ ((p - ys) * sample_w) + ridge @ theta
        hess = (design * (sample_w * p * (1 - p))[:, None]).T @ design + ridge
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return float(theta[0]), tuple(float(v) for v in theta[1:])

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
half of the error corpus only (benchmarks/error_corpus.py; the command is in
:data:`DEFAULT_MODEL`'s comment). Before any score, the *identity guard*: two errors whose
errno / HTTP status / database code / exception class / service code differ (both carry
one of a kind and they share none) are never the same (:func:`keys_compatible`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from kgmem.learning.similarity import keys_compatible
from kgmem.learning.templates import has_zero_duration

__all__ = [
    "ErrorText",
    "Features",
    "MatchModel",
    "DEFAULT_MODEL",
    "features",
    "match_score",
    "near_twins",
    "fit_logistic",
]

# "<ROOT>/package.json", "<redacted-address>": a name in angle brackets is a value a tool or a user put in.
_PLACEHOLDER = re.compile(r"<[A-Za-z][\w-]*>")
_TOKEN = re.compile(rf"<\*>|{_PLACEHOLDER.pattern}|[A-Za-z_][A-Za-z0-9_]*|\d+")
_SPACES = re.compile(r"\s+")
# Error chains ("install failed: pre-install: timed out waiting for the condition"), dash and
# semicolon joins: each piece is a clause that may be the whole error elsewhere.
_CLAUSE = re.compile(r":\s+|\s+-\s+|;\s+|\.\s+")
_MIN_CLAUSE_WORDS = 3
# Words that are a level or wrapper, not the subject of the error ("(error) NOAUTH …" vs
# "[ErrorReply: NOAUTH …]"): swapping one of them does not make another error.
_WRAPPER_WORD = re.compile(r"err|fatal|warn|exception|info|debug|panic|fail", re.IGNORECASE)


def _words(text: str) -> tuple[str, ...]:
    return tuple(t.lower() for t in _TOKEN.findall(text) if t != "<*>")


def _slots(text: str) -> tuple[str, ...]:
    """The words of ``text`` with every variable (``<*>``, a placeholder) kept as ``<*>``: aligned against
    the other side, a word standing where it has a variable is that variable's value, not a word more."""
    return tuple("<*>" if t == "<*>" or _PLACEHOLDER.fullmatch(t) else t.lower() for t in _TOKEN.findall(text))


@dataclass(frozen=True)
class ErrorText:
    """What matching knows of one error: the template of each core line, and its identity keys."""

    template: str  # the core's line templates joined by newlines
    keys: Mapping[str, frozenset[str]]

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(ln for ln in self.template.split("\n") if ln.strip())

    def tokens(self) -> frozenset[str]:
        return frozenset(_words(self.template))

    def trigrams(self) -> frozenset[str]:
        text = _SPACES.sub(" ", self.template.lower())
        return frozenset(text[i : i + 3] for i in range(max(1, len(text) - 2)))

    def clauses(self) -> frozenset[tuple[str, ...]]:
        """Word sequences of the clauses with at least three words (wildcards left out)."""
        out = set()
        for line in self.lines:
            for part in _CLAUSE.split(line):
                words = _words(part)
                if len(words) >= _MIN_CLAUSE_WORDS:
                    out.add(words)
        return frozenset(out)


@dataclass(frozen=True)
class Features:
    """The signals of one candidate pair, each in [0, 1]."""

    template_equal: float
    token_jaccard: float
    token_containment: float
    char_jaccard: float
    cosine: float
    clause_equal: float  # some clause (≥ 3 words) is the same in both
    line_jaccard: float  # each line of the shorter core vs its best line in the other: the worst Jaccard
    # On the best-aligned line pair: 1 / (1 + words *substituted* inside the alignment). A wrapper
    # adds words before or after (insertions); a near-twin swaps one ("role" for "database").
    no_substitution: float
    # Asymmetric line alignment (a = the new error, b = the known pattern): the share of a's lines
    # that no line of b aligns with (token Jaccard < 0.3), and of b's lines none of a's aligns with.
    # An added line in the new error is more often another diagnosis than a dropped one is.
    novel_lines: float
    missing_lines: float
    # A line of one is the tail of an error chain in the other ("ENOSPC: System limit …" inside "Internal watch
    # failed: ENOSPC: System limit …"): a wrapper prefixed a step.
    chain_tail: float = 0.0

    def vector(self) -> tuple[float, ...]:
        return (
            self.template_equal,
            self.token_jaccard,
            self.token_containment,
            self.char_jaccard,
            self.cosine,
            self.clause_equal,
            self.line_jaccard,
            self.no_substitution,
            self.novel_lines,
            self.missing_lines,
            self.chain_tail,
        )


@dataclass(frozen=True)
class MatchModel:
    """Logistic weights over :meth:`Features.vector` plus the decision threshold on its output."""

    bias: float
    weights: tuple[float, ...]
    threshold: float

    def probability(self, f: Features) -> float:
        z = self.bias + sum(w * x for w, x in zip(self.weights, f.vector()))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


# Fitted on the TRAINING half of tests/data/errors_corpus*.jsonl (669 later variants, 191 hard
# negatives, with errors_corpus_train_1/2.jsonl; 4106 pairs the model decides: guard-rejected and
# template-equal pairs left out) by
#   python -m benchmarks.calibrate_matching --train-only
# (logistic regression on same-group vs hard-negative / look-alike cross-group pairs; threshold:
# among those reaching 0.90 of training variants matched, the fewest training hard negatives).
# Weights in Features.vector() order (fitted on the training half, command above).
DEFAULT_MODEL = MatchModel(
    bias=-2.2793,
    weights=(0.0, 1.6246, 1.2948, 1.1394, 0.3315, 0.4103, 0.8663, 0.9032, 0.0098, -0.88, 0.4047),
    threshold=0.38,
)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _containment(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


# Words too common to tell two root causes apart.
_STOP = frozenset(
    "the a an and or of to in on at for from by with is are was were be been not no it this that "
    "as if but can could cannot may might should would will has have had do does did its".split()
)


def _unaligned(a: Sequence[str], b: Sequence[str], floor: float = 0.3) -> float:
    """Share of a's lines whose best token Jaccard against b's lines is below ``floor``."""
    if not a:
        return 0.0
    bw = [frozenset(_words(y)) for y in b]
    n = sum(1 for x in a if max((_jaccard(frozenset(_words(x)), y) for y in bw), default=0.0) < floor)
    return n / len(a)


def features(a: ErrorText, b: ErrorText, cosine: float) -> Features:
    """The signals of the pair (a, b); ``cosine`` is the embedding cosine of their core signatures."""
    ta, tb = a.tokens(), b.tokens()
    same = bool(a.template) and a.template == b.template
    line_cover, subs = _line_cover(a.lines, b.lines)
    return Features(
        template_equal=1.0 if same else 0.0,
        token_jaccard=_jaccard(ta, tb),
        token_containment=_containment(ta, tb),
        char_jaccard=_jaccard(a.trigrams(), b.trigrams()),
        cosine=max(0.0, min(1.0, cosine)),
        clause_equal=1.0 if a.clauses() & b.clauses() else 0.0,
        line_jaccard=line_cover,
        no_substitution=1.0 / (1.0 + subs),
        novel_lines=_unaligned(a.lines, b.lines),
        missing_lines=_unaligned(b.lines, a.lines),
        chain_tail=1.0 if _chain_tail(a.lines, b.lines) or _chain_tail(b.lines, a.lines) else 0.0,
    )


def _chain_tail(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether a line of ``a`` (≥ 3 words) is what follows a ``: `` in a line of ``b``."""
    tails = {y[m.end() :].strip() for y in b for m in re.finditer(r":\s+", y)}
    return any(x.strip() in tails and len(_words(x)) >= _MIN_CLAUSE_WORDS for x in a)


def _line_cover(a: Sequence[str], b: Sequence[str]) -> tuple[float, int]:
    """Every line of the shorter core must find its match in the other (extra lines are context a
    wrapper added): the worst best-match token Jaccard over those lines, and the words substituted
    in their alignments."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    long_words = [_words(y) for y in long_]
    worst, subs = 1.0, 0
    for x in short:
        wx = _words(x)
        best, best_subs = 0.0, 0
        for wy in long_words:
            jac = _jaccard(frozenset(wx), frozenset(wy))
            if jac > best:
                best, best_subs = jac, _substitutions(wx, wy)
        worst, subs = min(worst, best), subs + best_subs
    return (worst if short else 0.0), subs


def _substitutions(a: Sequence[str], b: Sequence[str]) -> int:
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(min(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag == "replace")


def near_twins(a: ErrorText, b: ErrorText) -> bool:
    """Whether two different templates are near-twins that need different fixes, by two rules
    chosen on the training half's hard negatives (general, not per message):

    - a zero duration on one side only (``timeout of 0ms`` = no timeout set vs ``5000ms``);
    - the *subject* swapped: the best-aligned lines are the same but for their first word
      (``role "x" does not exist`` vs ``database "x" …``; ``password authentication failed`` vs
      ``Peer authentication failed``), that word not being a level/wrapper word;
    - the same command with other long options (:func:`_options_differ`);
    - an error chain with a shared step but another root cause (:func:`_cause_differs`).
    """
    if has_zero_duration(a.template) != has_zero_duration(b.template):
        return True
    return (
        _reworded_line(a, b)
        or _options_differ(a.lines, b.lines)
        or _cause_differs(a.lines, b.lines)
        or _detail_differs(a, b)
    )


def _reworded_line(a: ErrorText, b: ErrorText) -> bool:
    """On the best-aligned lines: the subject swapped, or words inserted inside (see near_twins)."""
    pair = _best_pair(a.lines, b.lines)
    if pair is None:
        return False
    wx, wy = _slots(pair[0]), _slots(pair[1])
    ops = SequenceMatcher(None, wx, wy, autojunk=False).get_opcodes()
    subject_swapped = (
        len(ops) == 2
        and ops[0] == ("replace", 0, 1, 0, 1)
        and ops[1][0] == "equal"
        and ops[1][2] - ops[1][1] >= 2
        and "<*>" not in (wx[0], wy[0])
        and not _WRAPPER_WORD.search(wx[0])
        and not _WRAPPER_WORD.search(wy[0])
    )
    # ... and the inserted words say something: "dial tcp IP:<*>" vs "dial tcp <*>" is a value's label
    inserted = wx[ops[1][1] : ops[1][2]] + wy[ops[1][3] : ops[1][4]] if len(ops) == 3 else ()  # _content drops <*>
    inserted_inside = (
        len(ops) == 3
        and ops[0][0] == "equal"
        and ops[2][0] == "equal"
        and ops[1][0] in ("insert", "delete")
        and ops[0][2] - ops[0][1] >= 2
        and any(w != "<*>" for w in wx[ops[2][1] : ops[2][2]])  # inside: words on both sides
        and bool(_content(" ".join(inserted)))
    )
    return subject_swapped or inserted_inside


# "--from=builder": a command's long option. The word right before the options is the command.
_OPTIONED = re.compile(r"([A-Za-z][\w.-]*)((?:\s+--[a-z][\w-]*(?:=\S*)?)+)")
_OPTION = re.compile(r"--([a-z][\w-]*)")
# A failure predicate: what a root-cause clause states ("invalid status response", "not found").
_FAILURE = re.compile(
    r"\b(?:invalid|fail\w*|cannot|can't|could not|unable|denied|refused|not|no|missing|unknown|"
    r"unsupported|unexpected|error|timed? ?out|exceeded|expired)\b",
    re.IGNORECASE,
)


def _command_options(lines: Sequence[str]) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for line in lines:
        for cmd, opts in _OPTIONED.findall(line):
            out[cmd.lower()] = out.get(cmd.lower(), frozenset()) | frozenset(_OPTION.findall(opts))
    return out


def _options_differ(a: Sequence[str], b: Sequence[str]) -> bool:
    """The same command with other long options does something else (``COPY --from=builder x``
    reads another build stage than ``COPY x``): a command word that carries options on one side
    appears on the other with different ones (or none)."""
    oa, ob = _command_options(a), _command_options(b)
    words_a = {w for x in a for w in _words(x)}
    words_b = {w for y in b for w in _words(y)}
    for cmd in set(oa) | set(ob):
        if cmd in words_a and cmd in words_b and oa.get(cmd, frozenset()) != ob.get(cmd, frozenset()):
            return True
    return False


def _content(text: str) -> frozenset[str]:
    """The words of ``text`` that can tell two causes apart (3+ letters, not a stop word)."""
    return frozenset(w for w in _words(text) if len(w) >= 3 and w not in _STOP)


def _steps(clauses: Sequence[str]) -> set[tuple[str, ...]]:
    """The clauses of an error chain with at least three words, as word sequences."""
    return {w for w in map(_words, clauses) if len(w) >= 3}


def _chain(line: str) -> list[str]:
    return [p for p in re.split(r":\s+", line) if _words(p)]


def _best_pair(a: Sequence[str], b: Sequence[str]) -> tuple[str, str] | None:
    """The line of a and the line of b with the highest token Jaccard."""
    best, pair = 0.0, None
    for x in a:
        wx = frozenset(_words(x))
        for y in b:
            jac = _jaccard(wx, frozenset(_words(y)))
            if jac > best:
                best, pair = jac, (x, y)
    return pair


def _detail_differs(a: ErrorText, b: ErrorText) -> bool:
    """The same exception class with another detail (``OutOfMemoryError: Metaspace`` vs
    ``OutOfMemoryError: Java heap space``): on the best-aligned lines, the last clauses share no word."""
    if not a.keys.get("exc", frozenset()) & b.keys.get("exc", frozenset()):
        return False
    pair = _best_pair(a.lines, b.lines) if len(a.lines) * len(b.lines) > 1 else (a.lines + b.lines)[:2]
    if not pair or len(pair) < 2:
        return False
    da, db = _chain(pair[0]), _chain(pair[1])
    if not da or not db:
        return False
    wa, wb = _content(da[-1]), _content(db[-1])
    return bool(wa and wb and not wa & wb)


def _cause_differs(a: Sequence[str], b: Sequence[str]) -> bool:
    """Error chains (``failed to solve: failed to compute cache key: <cause>``) that share a step
    but end in different root causes: the last clauses share no informative word and one of
    them states a failure (a name or a URL at the end is a value, not a cause)."""
    for x in a:
        ca = _chain(x)
        for y in b:
            cb = _chain(y)
            if len(ca) < 2 or len(cb) < 2:
                continue
            shared = _steps(ca[:-1]) & _steps(cb[:-1])
            wa, wb = _content(ca[-1]), _content(cb[-1])
            if shared and wa and wb and not wa & wb and (_FAILURE.search(ca[-1]) or _FAILURE.search(cb[-1])):
                return True
    return False


def match_score(a: ErrorText, b: ErrorText, cosine: float, model: MatchModel = DEFAULT_MODEL) -> float | None:
    """The match score of (a, b) in [0, 1], or None when the identity guard or :func:`near_twins`
    forbids the link.

    Same template (and compatible keys) scores 1.0; otherwise the model's probability. A pair
    is the same error when the score is ≥ ``model.threshold``.
    """
    if not keys_compatible(a.keys, b.keys):
        return None
    f = features(a, b, cosine)
    if f.template_equal:
        return 1.0
    if near_twins(a, b):
        return None
    return model.probability(f)


def fit_logistic(
    x: Sequence[Sequence[float]], y: Sequence[int], l2: float = 1e-3, steps: int = 50
) -> tuple[float, tuple[float, ...]]:
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

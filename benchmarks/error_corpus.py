"""The error corpus (``tests/data/errors_corpus*.jsonl``) and its fixed train / held-out split.

Every file ``errors_corpus.jsonl``, ``errors_corpus_more_*.jsonl``, ``errors_corpus_train_*.jsonl``
and ``errors_corpus_test_*.jsonl`` in the data directory is read (format:
``tests/data/errors_corpus.README.md``). The split is decided before any tuning, so it never
depends on results:

- rows of ``errors_corpus_train_*.jsonl`` are all training rows and rows of
  ``errors_corpus_test_*.jsonl`` all held-out rows (files collected after the matching model
  existed: a test file is declared held-out before anyone tuning looks at it);
- every other row is split by a hash: the key is the ``group`` of a variant and the
  ``confusable_with`` of a hard negative (a negative always lands in the same half as the group
  it imitates), and a key is held out when ``int(sha1(key).hexdigest(), 16) % 2 == 1``.

A group must lie in one half, and a hard negative in the half of the group it imitates
(:func:`load_corpus` checks both). Weights and thresholds are calibrated on ``train`` only;
tests assert on ``test``.

This is the evaluation harness of the learning engine, not part of the kgmem package: it reads
the repository's ``tests/data``. Benchmarks and tests import it as ``benchmarks.error_corpus``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "CorpusRow",
    "Split",
    "load_corpus",
    "split_of",
    "split_corpus",
    "corpus_files",
    "DATA_DIR",
    "measure_fix_recall",
    "measure_with_feedback",
    "measure_with_use",
    "measure_corrections",
]

DATA_DIR = Path(__file__).resolve().parents[1] / "tests" / "data"  # a source checkout: not shipped in the wheel
Split = Literal["train", "test"]


class CorpusError(ValueError):
    """A corpus line is malformed (names file and line)."""


@dataclass(frozen=True)
class CorpusRow:
    """One message of the corpus."""

    kind: str  # "v" variant | "n" hard negative
    group: str
    category: str
    text: str
    source: str
    confusable_with: str | None = None
    file: str = ""

    @property
    def routed_split(self) -> Split | None:
        """The half the row's file puts it in (``errors_corpus_train_*`` / ``_test_*``), or None."""
        for half in ("train", "test"):
            if self.file.startswith(f"errors_corpus_{half}_"):
                return half  # type: ignore[return-value]
        return None

    @property
    def split_key(self) -> str:
        """What decides the half: the group, or for a hard negative the group it imitates."""
        return self.confusable_with if self.kind == "n" and self.confusable_with else self.group

    @property
    def split(self) -> Split:
        return self.routed_split or split_of(self.split_key)


def split_of(key: str) -> Split:
    """``test`` (held out) when the SHA-1 of ``key`` is odd, else ``train``."""
    return "test" if int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 2 == 1 else "train"


def corpus_files(data_dir: Path = DATA_DIR) -> list[Path]:
    """The base corpus file, every ``errors_corpus_more_*.jsonl``, then the routed
    ``errors_corpus_train_*.jsonl`` and ``errors_corpus_test_*.jsonl``, in a stable order."""
    base = data_dir / "errors_corpus.jsonl"
    others = [p for kind in ("more", "train", "test") for p in sorted(data_dir.glob(f"errors_corpus_{kind}_*.jsonl"))]
    return [p for p in [base, *others] if p.exists()]


def load_corpus(files: Iterable[Path] | None = None) -> list[CorpusRow]:
    """All rows of ``files`` (default: :func:`corpus_files`); raises :class:`CorpusError` on a bad line."""
    rows: list[CorpusRow] = []
    for path in files if files is not None else corpus_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                row = CorpusRow(
                    kind=raw["kind"],
                    group=raw["group"],
                    category=raw["category"],
                    text=raw["text"],
                    source=raw.get("source", ""),
                    confusable_with=raw.get("confusable_with"),
                    file=path.name,
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise CorpusError(f"{path.name}:{n}: not a corpus row ({exc})") from exc
            if row.kind not in ("v", "n"):
                raise CorpusError(f"{path.name}:{n}: kind must be 'v' or 'n', got {row.kind!r}")
            rows.append(row)
    _check_halves(rows)
    return rows


def _check_halves(rows: Sequence[CorpusRow]) -> None:
    """A group lies in one half, and a hard negative in the half of the group it imitates:
    otherwise a training pair would carry held-out text."""
    half_of: dict[str, tuple[Split, str]] = {}
    for r in rows:
        if r.kind == "v":
            seen = half_of.setdefault(r.group, (r.split, r.file))
            if seen[0] != r.split:
                raise CorpusError(
                    f"{r.file}: group {r.group!r} is in the {r.split} half here but in the {seen[0]} "
                    f"half in {seen[1]}; give it another name"
                )
    for r in rows:
        target = half_of.get(r.confusable_with or "")
        if r.kind == "n" and target is not None and target[0] != r.split:
            raise CorpusError(
                f"{r.file}: hard negative {r.group!r} ({r.split} half) imitates "
                f"{r.confusable_with!r} of the {target[0]} half; imitate a group of its own half"
            )


def split_corpus(rows: Sequence[CorpusRow], split: Split) -> list[CorpusRow]:
    """The rows of one half."""
    return [r for r in rows if r.split == split]


def groups(rows: Sequence[CorpusRow]) -> dict[str, list[CorpusRow]]:
    """Variants by group, in file order (the first variant is the one resolved first)."""
    out: dict[str, list[CorpusRow]] = {}
    for r in rows:
        if r.kind == "v":
            out.setdefault(r.group, []).append(r)
    return out


@dataclass(frozen=True)
class FileRecall:
    """The measure restricted to the rows of one corpus file (e.g. a fresh held-out file)."""

    variants: int = 0
    variants_fixed: int = 0
    hard_negatives: int = 0
    negatives_fixed: int = 0
    category_correct: int = 0
    messages: int = 0


@dataclass(frozen=True)
class FixRecall:
    """The issue-9 measure on one half, through the real engine."""

    split: str
    groups: int
    variants: int  # later variants (not the first of their group)
    variants_fixed: int  # got their group's fix in obs.fixes
    hard_negatives: int
    negatives_fixed: list[str]  # hard negatives that got the fix of the group they imitate
    wrong_fixes: int  # later variants that also got another group's fix
    category_correct: int
    messages: int
    missed: list[str]
    by_file: dict[str, FileRecall] = field(default_factory=dict)

    @property
    def variant_rate(self) -> float:
        return self.variants_fixed / self.variants if self.variants else 0.0

    @property
    def category_accuracy(self) -> float:
        return self.category_correct / self.messages if self.messages else 0.0

    def summary(self) -> str:
        return (
            f"{self.split}: {self.groups} groups, variants fixed {self.variants_fixed}/{self.variants} = "
            f"{self.variant_rate:.3f}, hard negatives fixed {len(self.negatives_fixed)}/{self.hard_negatives}"
            f" {self.negatives_fixed}, variants also given another group's fix {self.wrong_fixes}, "
            f"four-class category accuracy {self.category_accuracy:.3f} ({self.messages} messages)"
        )


def four_class(category: str) -> str:
    """The four classes categories are judged on: timeout, permission, provider_error, rest."""
    return category if category in ("timeout", "permission", "provider_error") else "rest"


def measure_fix_recall(mem: Any, ns: str, rows: Sequence[CorpusRow], split: str, tool: str = "agent") -> FixRecall:
    """Record and resolve the first variant of every group (fix "fix: <group>"), then report every
    later variant and every hard negative as a new ``tool_result`` of the same tool, in one
    namespace: does the group's fix come back in ``obs.fixes``?"""
    return _first_pass(mem, ns, rows, split, tool)[0]


def _first_pass(
    mem: Any, ns: str, rows: Sequence[CorpusRow], split: str, tool: str
) -> tuple[FixRecall, list[tuple[CorpusRow, Any]], list[tuple[CorpusRow, Any]]]:
    """:func:`measure_fix_recall` plus the observations of the later variants and hard negatives."""
    by_group = groups(rows)
    fix_of = _fix_names(by_group)
    tally = _Tally()
    for g, variants in by_group.items():
        obs = mem.tool_result(tool, {}, error=variants[0].text, ns=ns)
        mem.resolve(obs, fix_of[g], ns=ns)
        tally.category(variants[0], obs)
    fixed, wrong, missed = 0, 0, []
    later = [(v, mem.tool_result(tool, {}, error=v.text, ns=ns)) for vs in by_group.values() for v in vs[1:]]
    for v, obs in later:
        got = {f.description for f in obs.fixes}
        tally.category(v, obs)
        hit = fix_of[v.group] in got
        tally.add(v.file, variants=1, variants_fixed=int(hit))
        if hit:
            fixed += 1
        else:
            missed.append(v.group)
        wrong += bool(got - {fix_of[v.group]})
    negatives = [
        (n, mem.tool_result(tool, {}, error=n.text, ns=ns))
        for n in rows
        if n.kind == "n" and n.confusable_with in by_group
    ]
    bad = []
    for n, obs in negatives:
        tally.category(n, obs)
        hit = fix_of[n.confusable_with or ""] in {f.description for f in obs.fixes}
        tally.add(n.file, hard_negatives=1, negatives_fixed=int(hit))
        if hit:
            bad.append(n.group)
    files = tally.files
    result = FixRecall(
        split,
        len(by_group),
        len(later),
        fixed,
        len(negatives),
        bad,
        wrong,
        sum(f.category_correct for f in files.values()),
        sum(f.messages for f in files.values()),
        missed,
        dict(files),
    )
    return result, later, negatives


class _Tally:
    """Every count per corpus file (the category totals are their sums)."""

    def __init__(self) -> None:
        self.files: dict[str, FileRecall] = {}

    def add(self, file: str, **counts: int) -> None:
        now = self.files.get(file, FileRecall())
        self.files[file] = replace(now, **{k: getattr(now, k) + v for k, v in counts.items()})

    def category(self, row: CorpusRow, obs: Any) -> None:
        ok = four_class(obs.category) == four_class(row.category)
        self.add(row.file, category_correct=int(ok), messages=1)


def _fix_names(by_group: dict[str, list[CorpusRow]]) -> dict[str, str]:
    return {g: f"fix: {g}" for g in by_group}


@dataclass(frozen=True)
class FeedbackRecall:
    """The measure with feedback: after the first pass every wrong fix a later variant or hard
    negative received is reported failed (``fix_applied(..., success=False)``), then each of them
    occurs a second time."""

    first: FixRecall
    failures_reported: int  # fix_applied(success=False) calls: one per wrong fix received
    variants_fixed: int  # later variants that got their own fix on the second occurrence
    negatives_fixed: list[str]  # hard negatives still given the imitated group's fix
    wrong_fixes: int  # later variants still given another group's fix
    negatives_listed: int  # hard negatives whose wrong fix is in obs.failed_fixes
    # Third occurrence, after every group's first variant learnt a second fix ("fix 2: <group>"):
    new_fix_variants: int  # later variants given their group's new fix (links that still lend)
    new_fix_negatives: list[str]  # hard negatives given the imitated group's new fix
    new_fix_wrong: int  # later variants given another group's new fix

    def summary(self) -> str:
        f = self.first
        return (
            f"{f.split} with feedback ({self.failures_reported} wrong fixes reported failed), second occurrence: "
            f"variants fixed {self.variants_fixed}/{f.variants} (first {f.variants_fixed}), hard negatives "
            f"fixed {len(self.negatives_fixed)}/{f.hard_negatives} (first {len(f.negatives_fixed)}) "
            f"{self.negatives_fixed}, variants also given another group's fix {self.wrong_fixes} "
            f"(first {f.wrong_fixes}), failed fix listed for {self.negatives_listed} negatives; "
            f"a new fix of each group, third occurrence: variants given theirs {self.new_fix_variants}/"
            f"{f.variants}, hard negatives given the imitated group's {len(self.new_fix_negatives)}"
            f"/{f.hard_negatives} {self.new_fix_negatives}, variants given another group's {self.new_fix_wrong}"
        )


def measure_with_feedback(
    mem: Any, ns: str, rows: Sequence[CorpusRow], split: str, tool: str = "agent"
) -> FeedbackRecall:
    """:func:`measure_fix_recall`, then the agent's feedback: every fix a later variant received
    that is not its group's, and every fix a hard negative received that is not its own group's
    (the imitated group's fix first of all), is reported failed on that occurrence; then every
    later variant and hard negative is reported again (a second occurrence). Last, every group's
    first variant learns a second fix and all of them occur a third time: does the new fix reach
    the group's variants, and does it stay off the links that lent a failed fix?"""
    first, later, negatives = _first_pass(mem, ns, rows, split, tool)
    by_group = groups(rows)
    fix_of = _fix_names(by_group)
    reported = 0
    for row, obs in [*later, *negatives]:
        for wrong in sorted({f.description for f in obs.fixes} - {fix_of.get(row.group)}):
            mem.fix_applied(obs, wrong, success=False, ns=ns)
            reported += 1
    fixed = wrong_after = 0
    for v, _ in later:
        got = {f.description for f in mem.tool_result(tool, {}, error=v.text, ns=ns).fixes}
        fixed += fix_of[v.group] in got
        wrong_after += bool(got - {fix_of[v.group]})
    bad, listed = [], 0
    for n, _ in negatives:
        obs = mem.tool_result(tool, {}, error=n.text, ns=ns)
        imitated = fix_of[n.confusable_with or ""]
        if imitated in {f.description for f in obs.fixes}:
            bad.append(n.group)
        listed += imitated in {f.description for f in obs.failed_fixes}
    new_of = {g: f"fix 2: {g}" for g in by_group}
    for g, variants in by_group.items():
        mem.resolve(mem.tool_result(tool, {}, error=variants[0].text, ns=ns), new_of[g], ns=ns)
    new_fixed = new_wrong = 0
    for v, _ in later:
        got = {f.description for f in mem.tool_result(tool, {}, error=v.text, ns=ns).fixes}
        new_fixed += new_of[v.group] in got
        new_wrong += bool(got & (set(new_of.values()) - {new_of[v.group]}))
    new_bad = [
        n.group
        for n, _ in negatives
        if new_of[n.confusable_with or ""]
        in {f.description for f in mem.tool_result(tool, {}, error=n.text, ns=ns).fixes}
    ]
    return FeedbackRecall(first, reported, fixed, bad, wrong_after, listed, new_fixed, new_bad, new_wrong)


@dataclass(frozen=True)
class UseRecall:
    """The measure as an agent uses kgmem: after the groups' first variants are resolved, each later
    variant arrives in turn; one that did not get its group's fix is resolved by the agent with that
    fix, so the variants after it can match it too. The hard negatives arrive last."""

    split: str
    variants: int
    variants_fixed: int  # got their group's fix on arrival
    hard_negatives: int
    negatives_fixed: list[str]  # hard negatives given the imitated group's fix, first occurrence
    by_file: dict[str, FileRecall] = field(default_factory=dict)

    @property
    def variant_rate(self) -> float:
        return self.variants_fixed / self.variants if self.variants else 0.0

    def summary(self) -> str:
        return (
            f"{self.split} with use (a missed variant is resolved by the agent): variants fixed on arrival "
            f"{self.variants_fixed}/{self.variants} = {self.variant_rate:.3f}, resolved by the agent "
            f"{self.variants - self.variants_fixed}, hard negatives fixed {len(self.negatives_fixed)}/"
            f"{self.hard_negatives} {self.negatives_fixed}"
        )


def measure_with_use(mem: Any, ns: str, rows: Sequence[CorpusRow], split: str, tool: str = "agent") -> UseRecall:
    """Knowledge that grows with use: :func:`measure_fix_recall`'s first variants, then every later
    variant in corpus order, resolved with its group's fix when kgmem did not offer it (as the agent
    that found the fix itself would report it); then every hard negative."""
    by_group = groups(rows)
    fix_of = _fix_names(by_group)
    for g, variants in by_group.items():
        mem.resolve(mem.tool_result(tool, {}, error=variants[0].text, ns=ns), fix_of[g], ns=ns)
    tally = _Tally()
    fixed = 0
    for g, variants in by_group.items():
        for v in variants[1:]:
            obs = mem.tool_result(tool, {}, error=v.text, ns=ns)
            hit = fix_of[g] in {f.description for f in obs.fixes}
            tally.add(v.file, variants=1, variants_fixed=int(hit))
            fixed += hit
            if not hit:
                mem.resolve(obs, fix_of[g], ns=ns)
    bad = []
    for n in rows:
        if n.kind == "n" and n.confusable_with in by_group:
            hit = fix_of[n.confusable_with] in {
                f.description for f in mem.tool_result(tool, {}, error=n.text, ns=ns).fixes
            }
            tally.add(n.file, hard_negatives=1, negatives_fixed=int(hit))
            if hit:
                bad.append(n.group)
    files = tally.files
    return UseRecall(
        split,
        sum(f.variants for f in files.values()),
        fixed,
        sum(f.hard_negatives for f in files.values()),
        bad,
        dict(files),
    )


@dataclass(frozen=True)
class CorrectionRecall:
    """User corrections across matched errors: every group's first variant gets a user correction
    (``source="user"``, confidence 1.0, as :meth:`KGMem.correction` records it); every later variant
    and every hard negative is then reported. A correction is meant to be auto-applied to the same
    error and never to a look-alike that needs another fix."""

    split: str
    variants: int
    variants_offered: int  # later variants given their group's correction at all
    variants_auto: int  # ... flagged auto_apply
    variants_direct: int  # ... as a direct fix (the same normalised pattern)
    variants_borrowed: int  # ... borrowed from a SIMILAR_TO neighbour
    hard_negatives: int
    negatives_offered: list[str]  # hard negatives given the imitated group's correction
    negatives_auto: list[str]  # ... flagged auto_apply (the defect: a look-alike's fix acted on)
    # What confidence alone would flag (the rule before identity links: confidence ≥ auto_apply_threshold,
    # borrowed or not), from the same observations: the before/after of the identity rule in one run.
    variants_by_confidence: int = 0
    negatives_by_confidence: list[str] = field(default_factory=list)

    @property
    def variant_auto_rate(self) -> float:
        return self.variants_auto / self.variants if self.variants else 0.0

    def summary(self) -> str:
        return (
            f"{self.split} user corrections: variants given their group's correction {self.variants_offered}/"
            f"{self.variants}, auto-applied {self.variants_auto}/{self.variants} = {self.variant_auto_rate:.3f} "
            f"({self.variants_direct} same pattern, {self.variants_borrowed} borrowed from a similar error); "
            f"hard negatives given the imitated correction {len(self.negatives_offered)}/{self.hard_negatives}, "
            f"auto-applied {len(self.negatives_auto)}/{len(self.negatives_offered)} {self.negatives_auto}; "
            f"by confidence alone (the rule before identity links): variants {self.variants_by_confidence}/"
            f"{self.variants}, hard negatives {len(self.negatives_by_confidence)}/{len(self.negatives_offered)} "
            f"{self.negatives_by_confidence}"
        )


def measure_corrections(
    mem: Any, ns: str, rows: Sequence[CorpusRow], split: str, tool: str = "agent"
) -> CorrectionRecall:
    """The first variant of every group gets a user correction ("fix: <group>"); then every later
    variant and every hard negative occurs once: is the correction offered, and is it auto-applied?"""
    from kgmem.learning.confidence import is_auto_apply

    threshold = mem.settings.learning.auto_apply_threshold
    by_group = groups(rows)
    fix_of = _correct_first_variants(mem, ns, by_group, tool)
    n = offered = auto = direct = borrowed = confident = 0
    for g, variants in by_group.items():
        for v in variants[1:]:
            n += 1
            fix = _offered(mem.tool_result(tool, {}, error=v.text, ns=ns), fix_of[g])
            if fix is None:
                continue
            offered += 1
            auto += fix.auto_apply
            direct += fix.auto_apply and fix.kind == "direct"
            borrowed += fix.auto_apply and fix.kind == "similar"
            confident += is_auto_apply(fix.confidence, threshold)
    negatives = [r for r in rows if r.kind == "n" and r.confusable_with in by_group]
    given, acted, sure = [], [], []
    for r in negatives:
        fix = _offered(mem.tool_result(tool, {}, error=r.text, ns=ns), fix_of[r.confusable_with or ""])
        if fix is not None:
            given.append(r.group)
            if fix.auto_apply:
                acted.append(r.group)
            if is_auto_apply(fix.confidence, threshold):
                sure.append(r.group)
    return CorrectionRecall(split, n, offered, auto, direct, borrowed, len(negatives), given, acted, confident, sure)


@dataclass(frozen=True)
class CorrectionReplay:
    """User corrections with use, a sequential replay: every group's first variant gets a user correction;
    then each group's later variants in order, then the hard negatives. Whenever the correction is offered
    (auto-applied or suggested) the agent applies it and reports the labelled outcome — success on a
    variant, failure on a look-alike (``fix_applied``). Then every variant and hard negative occurs once
    more: a success proves a link (``proof == "outcome"``), a failure refutes it."""

    split: str
    variants: int
    variants_auto_first: int  # auto-applied at the variant's first sight (an earlier variant's proof counts)
    variants_proven_by_outcome: int  # ... of these, over a link proven by an outcome
    variants_auto_again: int  # auto-applied at its next occurrence
    hard_negatives: int
    negatives_auto_first: list[str]
    negatives_auto_again: list[str]  # must be empty: their first failure refuted the link

    def summary(self) -> str:
        return (
            f"{self.split} user corrections with use: variants auto-applied at first sight "
            f"{self.variants_auto_first}/{self.variants} ({self.variants_proven_by_outcome} proven by an outcome), "
            f"at their next occurrence {self.variants_auto_again}/{self.variants}; hard negatives auto-applied "
            f"at first sight {len(self.negatives_auto_first)}/{self.hard_negatives} {self.negatives_auto_first}, "
            f"after their failure {len(self.negatives_auto_again)} {self.negatives_auto_again}"
        )


def measure_correction_replay(
    mem: Any, ns: str, rows: Sequence[CorpusRow], split: str, tool: str = "agent"
) -> CorrectionReplay:
    """:class:`CorrectionReplay` on the real stack (one namespace: every group competes)."""
    by_group = groups(rows)
    fix_of = _correct_first_variants(mem, ns, by_group, tool)
    later = [(g, v) for g, variants in by_group.items() for v in variants[1:]]
    negatives = [r for r in rows if r.kind == "n" and r.confusable_with in by_group]

    def occur(text: str, fix_name: str, success: bool | None) -> Any:
        obs = mem.tool_result(tool, {}, error=text, ns=ns)
        fix = _offered(obs, fix_name)
        if fix is not None and success is not None:
            mem.fix_applied(obs, fix_name, success=success, ns=ns)
        return fix

    first = [occur(v.text, fix_of[g], True) for g, v in later]
    neg_first = [occur(r.text, fix_of[r.confusable_with or ""], False) for r in negatives]
    again = [occur(v.text, fix_of[g], None) for g, v in later]
    neg_again = [occur(r.text, fix_of[r.confusable_with or ""], None) for r in negatives]
    return CorrectionReplay(
        split,
        len(later),
        sum(bool(f and f.auto_apply) for f in first),
        sum(bool(f and f.auto_apply and f.proof == "outcome") for f in first),
        sum(bool(f and f.auto_apply) for f in again),
        len(negatives),
        [r.group for r, f in zip(negatives, neg_first) if f is not None and f.auto_apply],
        [r.group for r, f in zip(negatives, neg_again) if f is not None and f.auto_apply],
    )


def _correct_first_variants(mem: Any, ns: str, by_group: dict[str, list[CorpusRow]], tool: str) -> dict[str, str]:
    """A user correction ("fix: <group>") on every group's first variant; returns the fix of each group."""
    fix_of = _fix_names(by_group)
    for g, variants in by_group.items():
        obs = mem.tool_result(tool, {}, error=variants[0].text, ns=ns)
        mem.learning.resolve(ns, obs, fix_of[g], True, source="user", recovery=False)  # what correction() records
    return fix_of


def _offered(obs: Any, description: str) -> Any:
    return next((f for f in obs.fixes if f.description == description), None)


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """The corpus measure of benchmarks/learning.py on the real stack: fix recall on each half
    (``train.variant_rate``, ``test.variant_rate``, ``test.negatives_fixed``, ...) and, in the full run,
    the second occurrence after the wrong fixes were reported failed (``<half>.feedback.*``). Quick: the
    held-out half, no feedback pass."""
    from benchmarks.learning import args_for, corpus

    argv = ["corpus", "--half", "test"] if quick else ["corpus", "--feedback"]
    out = corpus(args_for(settings, argv))
    for half in ("train", "test"):
        if half in out:
            out[half].pop("by_file", None)  # per-file tallies: diagnostics, not figures
            # Lists of ids (hard negatives that got a fix, groups missed) are figures by their length.
            for key in [k for k, v in out[half].items() if isinstance(v, list)]:
                out[half][f"{key}_count"] = len(out[half].pop(key))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.error_corpus [--quick]``: the figures as JSON (more options:
    ``python -m benchmarks.learning corpus --help``)."""
    import argparse
    import json

    from kgmem.config import load_settings

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--quick", action="store_true", help="the held-out half only, no feedback pass")
    args = ap.parse_args(argv)
    print(json.dumps(run(load_settings(), args.quick), indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The error corpus (``tests/data/errors_corpus*.jsonl``) and its fixed train / held-out split.

Every file ``errors_corpus.jsonl`` and ``errors_corpus_more_*.jsonl`` in the data directory
is read (format: ``tests/data/errors_corpus.README.md``). The split is decided by a hash,
before any tuning, so it never depends on results: the key is the ``group`` of a variant
and the ``confusable_with`` of a hard negative (a negative always lands in the same half
as the group it imitates), and a key is held out when
``int(sha1(key).hexdigest(), 16) % 2 == 1``. Weights and thresholds are calibrated on
``train`` only; tests assert on ``test``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["CorpusRow", "Split", "load_corpus", "split_of", "split_corpus", "corpus_files", "DATA_DIR"]

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data"
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
    def split_key(self) -> str:
        """What decides the half: the group, or for a hard negative the group it imitates."""
        return self.confusable_with if self.kind == "n" and self.confusable_with else self.group

    @property
    def split(self) -> Split:
        return split_of(self.split_key)


def split_of(key: str) -> Split:
    """``test`` (held out) when the SHA-1 of ``key`` is odd, else ``train``."""
    return "test" if int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 2 == 1 else "train"


def corpus_files(data_dir: Path = DATA_DIR) -> list[Path]:
    """The base corpus file and every ``errors_corpus_more_*.jsonl``, in a stable order."""
    base = data_dir / "errors_corpus.jsonl"
    more = sorted(data_dir.glob("errors_corpus_more_*.jsonl"))
    return [p for p in [base, *more] if p.exists()]


def load_corpus(files: Iterable[Path] | None = None) -> list[CorpusRow]:
    """All rows of ``files`` (default: :func:`corpus_files`); raises :class:`CorpusError` on a bad line."""
    rows: list[CorpusRow] = []
    for path in files if files is not None else corpus_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                row = CorpusRow(kind=raw["kind"], group=raw["group"], category=raw["category"], text=raw["text"],
                                source=raw.get("source", ""), confusable_with=raw.get("confusable_with"),
                                file=path.name)
            except (ValueError, KeyError, TypeError) as exc:
                raise CorpusError(f"{path.name}:{n}: not a corpus row ({exc})") from exc
            if row.kind not in ("v", "n"):
                raise CorpusError(f"{path.name}:{n}: kind must be 'v' or 'n', got {row.kind!r}")
            rows.append(row)
    return rows


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

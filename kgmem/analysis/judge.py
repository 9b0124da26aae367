"""Is a new statement a duplicate or paraphrase of a stored one, a contradiction of it, or distinct?

One interface, two implementations. The knowledge store (:mod:`kgmem.analysis.store`) hands a
:class:`Judge` every pair it needs decided in one batch — each new item against the stored items
near it — and gets one :class:`Verdict` per pair, with the class of evidence that decided it:

* :class:`~kgmem.analysis.llm_judge.LLMJudge` (an LLM is configured): one adjudication call for many
  pairs. Items the extraction call produced never reach it: that call saw the stored items and
  its own ``contradicts`` quote (or its silence) is final.
* :class:`~kgmem.analysis.offline_judge.OfflineJudge` (no key): a few conservative rules, each a
  named class of evidence measured on held-back labelled pairs (docs/judging.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Relation = Literal["duplicate", "paraphrase", "contradiction", "distinct"]
# A duplicate or a paraphrase is merged into the stored item (its confidence boosted).
MERGE: frozenset[str] = frozenset({"duplicate", "paraphrase"})


@dataclass(frozen=True)
class Statement:
    """What a judge compares: an item's text, its triple when the extractor gave one, and its type."""

    content: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class Pair:
    """A new statement, a stored (or earlier) one, and the cosine of their embeddings."""

    new: Statement
    old: Statement
    similarity: float


@dataclass(frozen=True)
class Verdict:
    """What ``new`` is to ``old``, the evidence that decided it (a rule's name, ``llm``, …), the cosine."""

    relation: Relation
    evidence: str
    similarity: float

    @property
    def merges(self) -> bool:
        """A duplicate or a paraphrase: the new item is merged into the old one."""
        return self.relation in MERGE


@runtime_checkable
class Judge(Protocol):
    """Decides many pairs at once (an LLM judge answers them in one call)."""

    name: str

    def verdicts(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """One verdict per pair, in order."""
        ...

"""A triple's slot, for the judge (kgmem.analysis.judge): which subject and predicate a statement fills.

When the extractor gives both statements a triple (subject, predicate, object), "another object of the
same subject and predicate" is the clearest evidence of a conflict a contradiction may rest on — if
the predicate holds one value at a time (:func:`multi_valued`) and the two objects are of one slot (a
participle and preposition opening the object belong to the predicate; a place said of each object is
part of the slot). :func:`other_subject` is the converse: the same predicate and object of another subject.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgmem.analysis.lexicon import COPULA, IRREGULAR, MULTI_VALUED_FORMS, POSITIVE, SLOT_WORDS, STOP
from kgmem.analysis.parsing import Parsed, stem_of, words_of

if TYPE_CHECKING:
    from kgmem.analysis.judge import Statement


def multi_valued(statement: Statement, parsed: Parsed) -> bool:
    """Can the subject hold many objects of this predicate at once? The triple's predicate decides when
    there is one ("The release manager is Sam": no), else any such verb in the sentence."""
    if statement.predicate:  # its verb comes first ("takes", "works on"); "online clothes store" is an attribute
        words = words_of(statement.predicate)
        if words and words[0] in COPULA:  # "is" + "a big Lakers fan": the object says it
            words = words_of(statement.object or "")
            return any(w in MULTI_VALUED_FORMS for w in words)
        return bool(words) and words[0] in MULTI_VALUED_FORMS
    return parsed.multi_valued


def slot(statement: Statement) -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
    """(subject, predicate, object) terms of a triple. A participle and preposition opening the
    object belong to the predicate: "is" + "written in Rust" is the slot "is written in" holding
    "Rust", another slot than "is deployed on" + "Fly.io"."""
    if not (statement.subject and statement.predicate):
        return None
    words = (statement.object or "").split()
    k = 0
    while (
        k < len(words)
        and words[k].isalpha()
        and words[k].islower()
        and (words[k] in SLOT_WORDS or words[k] in IRREGULAR or words[k].endswith(("ed", "en")))
    ):
        k += 1
    predicate = f"{statement.predicate} {' '.join(words[:k])}"
    return terms(statement.subject), exactterms(predicate), terms(" ".join(words[k:]))


_QUALIFIER = re.compile(r"\s+(?:on|in|at|for)\s+(?:my|our|the|his|her|their)\s+(.+)$", re.I)


def same_slot_other_object(new: Statement, old: Statement) -> bool:
    """The same subject and predicate, objects that share no word, and no place that tells the two apart."""
    a, b = slot(new), slot(old)
    if a is None or b is None or a[:2] != b[:2] or a[2] & b[2]:
        return False
    # a place said of each object is part of the slot: "runs NixOS on my work laptop" / "runs Debian on my home
    # server" are two machines, each with its system
    qa, qb = _QUALIFIER.search(new.object or ""), _QUALIFIER.search(old.object or "")
    return not (qa and qb and not terms(qa.group(1)) & terms(qb.group(1)))


def other_subject(new: Statement, old: Statement) -> bool:
    """The same predicate and object said of another subject ("the main / release branch is protected")."""
    if not (new.subject and old.subject and new.predicate and old.predicate):
        return False
    return (
        exactterms(new.predicate) == exactterms(old.predicate)
        and exactterms(new.object) == exactterms(old.object)
        and terms(new.subject) != terms(old.subject)
    )


def terms(text: str | None) -> frozenset[str]:
    """The content stems of a text (fillers and stance words left out)."""
    if not text:
        return frozenset()
    return frozenset(stem_of(w) for w in words_of(text) if w not in STOP and w not in POSITIVE)


def exactterms(text: str | None) -> frozenset[str]:
    """Every word's stem: predicates ("is", "loves") are compared whole."""
    return frozenset(stem_of(w) for w in words_of(text or ""))

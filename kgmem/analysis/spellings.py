"""One name said two ways, for the judge (kgmem.analysis.judge): an acronym and its words ("NLP" / "Natural Language
Processing"), a name and the same name run on with a word ("minSdk" / "minSdkVersion"). Both drop out of the words
that differ between two statements, so the judge does not read two values."""

from __future__ import annotations

import re

from kgmem.analysis.lexicon import ACRONYM_SKIP
from kgmem.analysis.parsing import ACRONYM_PLURAL, Parsed, stem_of

_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")


def spelled_out(
    new: str, old: str, only_new: frozenset[str], only_old: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """An acronym on one side and its words on the other are the same thing ("NLP" / "Natural
    Language Processing"): both drop out of the words that differ."""
    only_new, only_old = _drop_acronyms(new, old, only_new, only_old)
    only_old, only_new = _drop_acronyms(old, new, only_old, only_new)
    return only_new, only_old


def name_extended(
    n: Parsed, o: Parsed, only_new: frozenset[str], only_old: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """A name and the same name run on with a word ("minSdk" / "minSdkVersion", "Postgres" / "PostgreSQL") are one
    name: both drop out of the words that differ."""
    pairs = [
        (a, b)
        for a in only_new & n.values
        for b in only_old & o.values
        if min(len(a), len(b)) >= 5
        and a != b
        and (a.startswith(b) or b.startswith(a))
        and (a[len(b) :] if a.startswith(b) else b[len(a) :]).isalpha()
    ]
    return only_new - {a for a, _ in pairs}, only_old - {b for _, b in pairs}


def _drop_acronyms(
    text: str, other: str, mine: frozenset[str], theirs: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", other) if w.lower() not in ACRONYM_SKIP]
    for acronym in _ACRONYM.findall(text):
        letters, stem = acronym.rstrip("s").lower(), stem_of(ACRONYM_PLURAL.sub(r"\1", acronym).lower())
        for i in range(len(words) - len(letters) + 1):
            run = words[i : i + len(letters)]
            stems = frozenset(stem_of(w) for w in run)
            if "".join(w[0] for w in run) == letters and stem in mine and stems <= theirs:
                mine, theirs = mine - {stem}, theirs - stems
                break
    return mine, theirs

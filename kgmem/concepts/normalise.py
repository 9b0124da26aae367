"""Deterministic normalisation of concept surface forms into keys (pure; no model).

The same function runs on stored memories and on questions, so a question's concepts match the
stored ``Concept.key``. Plurals and other inflections are reduced by the extractor's lemmatizer
before a phrase reaches here (:class:`kgmem.concepts.ConceptExtractor`); this module does what
needs no language model: Unicode form, case, possessives, leading determiners, punctuation.
"""

from __future__ import annotations

import re
import unicodedata

# A leading word of these is dropped: "the support group" -> "support group", "Hey Caroline" -> "caroline".
LEADING_WORDS = frozenset(
    """
a an the this that these those my your his her its our their some any every each another such
mine yours ours theirs
hey hi hello bye ya yeah yes wow oh ok okay thanks thank congrats dear
""".split()
)

_POSSESSIVE = re.compile(r"(?<=\w)['’]s?\b", re.UNICODE)
_NOT_WORD = re.compile(r"[^\w]+", re.UNICODE)


def normalise_key(text: str) -> str:
    """The matching key of a surface form: ``"The Melanie's"`` -> ``"melanie"``.

    NFKC (full-width and compatibility forms fold), case-folded, possessive ``'s`` removed,
    every run of non-word characters (punctuation, symbols, emoji) turned into one space,
    leading determiners and possessive pronouns dropped. Returns ``""`` when nothing is left.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _POSSESSIVE.sub("", text)
    text = _NOT_WORD.sub(" ", text).replace("_", " ").strip()
    words = text.split()
    while words and words[0] in LEADING_WORDS:
        words.pop(0)
    return " ".join(words)


def usable_key(key: str, max_chars: int) -> bool:
    """Whether ``key`` can be a concept: not empty, not too long, not only digits or one letter."""
    if not key or len(key) > max_chars:
        return False
    letters = sum(ch.isalpha() for ch in key)
    if letters == 0:
        return False
    # One Latin letter ("i", "x") says nothing; a single CJK character often is a word.
    return not (len(key) == 1 and key.isascii())

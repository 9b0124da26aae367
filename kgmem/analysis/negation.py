"""How far a negation reaches, for the judge (kgmem.analysis.judge).

A paraphrase called a contradiction demotes a true memory and stores a duplicate, so the judge
reads a negation as a denial of the other statement only when it denies the same claim. Three
kinds of "not" deny nothing the other statement says:

* :data:`AFFIRMING` — idioms whose negation affirms: "I can't wait for the trip" (looking forward
  to it), "I don't mind working late", "I couldn't be happier with it", "not only X but also Y",
  "no matter the weather", "nobody else" (only). They are rewritten, in the lower-cased text with
  contractions spelled out ("can not"), into what they affirm.
* :data:`AVOIDING` — "stay away from", "keep X out of", "stays home from": "avoid", a negative stance like
  "don't want".
* :func:`main_clause` — a negation inside a relative clause speaks of that clause ("the demo is
  recorded for people who can't make it" denies nothing about the demo), and a purpose that lessens a thing
  speaks of the purpose ("thinking of carpooling to reduce the days I drive"): the polarity of a
  statement is read with both left out.
* :func:`negated_opposite` — "not X" of a two-valued set is its other value: "the repo isn't
  public" says "the repo is private", "the service doesn't run synchronously" says "asynchronously";
  :func:`negated_other` — "not X" of a larger set beside another of its values denies nothing of it ("not a
  morning person" / "a night person").
* :func:`denies_itself` — the statement without a grammatical negation says "no" in a word of its own:
  "Friday deploys are forbidden" / "we don't deploy on Fridays", "autoscaling is disabled" / "has no
  autoscaling", "I'm unsure" / "I'm not sure". Both deny the same claim: they agree. A negation contradicts
  only a statement that affirms the claim it denies.
* :func:`prefix_negated` — "un-X" / "non-X" against X is a negation ("unencrypted" / "encrypted");
  :func:`prefixes_dropped` — beside "not X" it is the same word.
* :func:`seeks_better` — a purpose of making a thing better ("resized to fit me better") says what "not good"
  says ("my loafers don't fit great"): the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kgmem.analysis.lexicon import CANON, STEMMER

AFFIRMING = [
    (re.compile(p), r)
    for p, r in (
        # "not only X but (also) Y" = "X and Y"; "not just" likewise
        (r"\bnot\s+(?:only|just)\b(.*?)\bbut(?:\s+also)?\b", r"\1 and"),
        (r"\bnot\s+(?:only|just)\b", ""),
        (r"\b(?:can|could)\s+not\s+wait\b", "look forward"),  # "I can't wait for the Japan trip"
        (r"\b(?:do|does|did|would)\s+not\s+mind\b", "fine with"),  # "I don't mind working late"
        # "the commute doesn't bother me" (not the imperative "don't bother with a testing section", a denial)
        (r"\b(?:does|did)\s+not\s+bother\s+(me|us)\b", r"fine with \1"),
        # a frequency, not a denial: "I hardly ever drink coffee" = "I rarely drink coffee"
        (r"\b(?:hardly|barely|scarcely|almost\s+never)\s+ever\b|\balmost\s+never\b", "rarely"),
        (r"\b(?:can|could)\s+not\s+be\s+(happier|better|more\s+\w+)\b", r"very \1"),
        (r"\b(?:can|could)\s+not\s+(?:live|do)\s+without\b", "love"),  # "I can't live without my espresso"
        (r"\b(?:can|could)\s+not\s+recommend\b((?:\s+[\w-]+){1,4}?)\s+enough\b", r"recommend \1"),
        (r"\bnever\s+fails?\s+to\b|\bwithout\s+fail\b", "always"),
        (r"\bno\s+matter\b", ""),  # "daily, no matter the weather"
        # "not great" of a graded quality is its low end: "my hearing isn't great" = "my hearing is poor" (against "great"
        # it is another value of the set, a contradiction; beside "hard of hearing" no denial)
        (r"\bnot\s+(?:very\s+|that\s+|so\s+|really\s+|all\s+that\s+)?(?:good|great|excellent)\b", "poor"),
        (
            r"\bnot\s+(?:been\s+)?([a-z]+\s+)?(?:very\s+|that\s+|so\s+|too\s+)?well\b",
            r"\1poorly",
        ),  # "not sleeping well"
        (r"\bno\s+(?:doubt|question)\b", ""),
        (r"\b(?:nobody|no\s+one|nothing|none)\s+else\b", "only"),  # "I'm on call this week, nobody else"
        # a list of denials is one denial: "black, no sugar, no cream" = "black, no sugar or cream" (the rule twice:
        # a list of three)
        (r"\b(no|not|never|without)\b([^,;.!?]{1,40}?),\s*(?:and\s+|or\s+|nor\s+)?\1\b", r"\1\2 or"),
        (r"\b(no|not|never|without)\b([^,;.!?]{1,40}?),\s*(?:and\s+|or\s+|nor\s+)?\1\b", r"\1\2 or"),
    )
]
# ways of saying "avoid" (a negative stance, like "avoid" itself): "stay away from the sugar", "keep emojis out of
# review comments" = "I don't want emojis in review comments"
AVOIDING = [
    (re.compile(p), r)
    for p, r in (
        (
            r"\b(?:stay|stays|stayed|staying|keep|keeps|kept|keeping|steer|steers|steered|steering)\s+"
            r"(?:(?:away|clear)\s+(?:from|of)|off)\b",
            "avoid",
        ),  # "I stay off social media"
        (r"\b(?:keep|keeps|kept|keeping|leave|leaves|left|leaving)\s+((?:[\w-]+\s+){1,3}?)out\s+of\b", r"avoid \1 in"),
        # staying home from a thing is not going to it ("Fridays my kid stays home from daycare")
        (r"\b(?:stay|stays|stayed|staying)\s+(?:at\s+)?home\s+from\b", "avoid"),
    )
]

# a relative clause on people: "for people who can't make it" (one with "that" is often the claim itself:
# "something that doesn't overwhelm the space")
_RELATIVE = re.compile(r"\b(?:who|whom)\b[^,;.!?]*", re.I)


# a purpose whose verb lessens a thing ("carpooling with coworkers to reduce the days I drive") speaks of the
# purpose, also when it opens the sentence ("To cut down on the days I drive, I'm considering a carpool"); after a verb
# of trying or wanting it is the claim itself ("I'm trying to cut back on sugar")
_PURPOSE = re.compile(
    r"(?:\b([\w']+)\s+|^\s*)(?:to|so\s+as\s+to|in\s+order\s+to)\s+(?:reduce|avoid|limit|cut|lower|lessen|"
    r"minimi[sz]e|prevent|save|skip)\b[^,;.!?]*",
    re.I,
)
_LESSENING = re.compile(r"\b(?:reduce|avoid|limit|cut|lower|lessen|minimi[sz]e|prevent|save|skip)\b")
_WANTING = frozenset(
    (
        "try tries tried trying want wants wanted wanting plan plans planned planning need needs needed "
        "hope hopes hoped hoping aim aims aimed aiming decide decided deciding start started starting "
        "begin began begun mean means meant used able going have has had like love prefer prefers "
        "tend tends i'd would will is am are was were be been goal attempt attempting "
        "managed manage trying"
    ).split()
)


def main_clause(text: str) -> str:
    """``text`` without its relative clauses and its purposes that lessen a thing: what its polarity is read from."""
    lower = text.lower()
    if "who" in lower:  # most texts have none: skip the pattern
        text = _RELATIVE.sub(" ", text)
    if "to " in lower and _LESSENING.search(lower):
        text = _PURPOSE.sub(lambda m: m.group(0) if (m.group(1) or "").lower() in _WANTING else m.group(1) or "", text)
    return text


def negated_opposite(
    negated_only: frozenset[str], other_only: frozenset[str], sets: Iterable[list[frozenset[str]]]
) -> bool:
    """The negated statement says "not X" of a two-valued set, and nothing else the other does not say,
    where the other says its other value ("isn't public" / "private"): the two agree. ``negated_only`` / ``other_only`` are the words only
    each side has; ``sets`` the exclusive sets of the judge as stems, one frozenset per class."""
    for classes in sets:
        if len(classes) != 2:
            continue
        for mine, theirs in (classes, classes[::-1]):
            # the negated side says nothing else of its own: its "not" is the value's ("won't overwhelm the
            # space" beside "low-maintenance" negates another word)
            if negated_only and negated_only <= mine and other_only & theirs and not other_only & mine:
                return True
    return False


def negated_other(
    negated_only: frozenset[str], other_only: frozenset[str], sets: Iterable[list[frozenset[str]]]
) -> bool:
    """The negated statement says "not X" of a set of more than two values, where the other says another value
    of it ("I'm not a morning person" / "I'm a night person"): both can be true, neither denies the other."""
    for classes in sets:
        if len(classes) < 3:
            continue
        mine = [c for c in classes if negated_only and negated_only <= c]
        if (
            mine
            and other_only
            and any(other_only <= c for c in classes if c is not mine[0])
            and not other_only & mine[0]
        ):
            return True
    return False


# Words that deny what they are said of (a state, a permission, a presence, a quality); "off" only as a state ("I'm off
# Twitter", "the flag is switched off"), not "show off" or "a day off".
# The low end of a graded quality says "not good" in one word ("I didn't enjoy the book" / "the book was a letdown").
_PRIVATIVE = re.compile(
    r"\b(?:disabled|forbidden|disallowed|unavailable|absent|inactive|offline|unsupported|"
    r"deactivated|unused|unwanted|excluded|broken|bad|badly|poor|poorly|terrible|awful|worst|"
    r"disappointing|disappointed|letdown)\b|"
    r"\b(?:is|are|am|was|were|be|been|'m|'re|'s|turned|switched|stays?|stayed)\s+(off|out(?=\s+of\b))\b",
    re.I,
)
_PREFIXES = ("un", "non", "dis", "in", "im")


def denies_itself(affirmed: str, negated: str, affirmed_only: frozenset[str], negated_only: frozenset[str]) -> bool:
    """The statement without a grammatical negation (``affirmed``) says "no" in a word the negated one does not
    say: a word that denies what it is said of ("forbidden", "disabled", "is off", "out of my diet", "a letdown"), or
    the negated side's own word with a negating prefix ("unsupported" beside "won't support"). ``affirmed_only`` /
    ``negated_only`` are the stems only each side has. The two then deny the same claim — a negation of it needs
    the other to affirm it."""
    if _privative(affirmed) - _privative(negated):
        return True
    return any(w.startswith(_PREFIXES) for w in affirmed_only) and bool(
        set(prefixed(affirmed, affirmed_only).values()) & negated_only
    )


_PREFIXED = re.compile(r"\b(un|non-?|dis|in|im)([a-z]{4,})\b", re.I)


def prefixed(text: str, only: frozenset[str], prefixes: tuple[str, ...] = _PREFIXES) -> dict[str, str]:
    """The words of ``text`` among the stems ``only`` that are another word with a negating prefix, each with the
    stem of that word: "unsure" -> "sure", "unsupported" -> "support"."""
    found = {}
    for m in _PREFIXED.finditer(text):
        stem, base = STEMMER.stemWord(m.group(0).lower()), STEMMER.stemWord(m.group(2).lower())
        if stem in only and m.group(1).lower().rstrip("-") in prefixes:
            found[stem] = CANON.get(base, base)
    return found


def _privative(text: str) -> set[str]:
    """The stems of the words of ``text`` that deny what they are said of."""
    return {
        CANON.get(s, s)
        for s in (STEMMER.stemWord((m.group(1) or m.group(0)).lower()) for m in _PRIVATIVE.finditer(text))
    }


def prefixes_dropped(
    new: str, old: str, only_new: frozenset[str], only_old: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """Beside a grammatical negation, "un-X" is "not X": the word and its negated form drop out of the words that
    differ ("I'm not sure how to pack" / "I'm unsure how to pack" say the same)."""
    if not any(w.startswith(_PREFIXES) for w in only_new | only_old):
        return only_new, only_old
    forward = {w: b for w, b in prefixed(new, only_new).items() if b in only_old}
    backward = {w: b for w, b in prefixed(old, only_old).items() if b in only_new}
    return (only_new - set(forward) - set(backward.values()), only_old - set(backward) - set(forward.values()))


def prefix_negated(new: str, old: str, only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """One side says "un-X" / "non-X" where the other says X ("unencrypted" / "encrypted", "unsure" / "sure")."""
    if not any(w.startswith(("un", "non")) for w in only_new | only_old):
        return False  # most pairs: no word with the prefix, no pattern to run
    return any(base in only_old for base in prefixed(new, only_new, ("un", "non")).values()) or any(
        base in only_new for base in prefixed(old, only_old, ("un", "non")).values()
    )


# a purpose of making a thing better ("getting my loafers resized to fit me better") says it is not good now
_IMPROVING = re.compile(r"\bto\s+(?:[\w']+\s+){1,3}?better\b", re.I)


def seeks_better(affirming: str, negated_content: frozenset[str]) -> bool:
    """The affirming statement seeks to make better what the negated one calls not good ("resized to fit me better" /
    "my loafers don't fit great"): the two agree."""
    return bool(negated_content & _GOOD) and _IMPROVING.search(affirming) is not None


_GOOD = frozenset(("good", "well"))  # stems ("great" is read as "good")

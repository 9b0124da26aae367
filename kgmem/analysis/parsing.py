"""Turning a statement's text into what the judge's rules compare (:class:`Parsed`).

:func:`words_of` lower-cases a text, applies the rewrites of :mod:`kgmem.analysis.lexicon`,
:mod:`kgmem.analysis.negation`, :mod:`kgmem.analysis.quantities` and :mod:`kgmem.analysis.updates`,
and gives its words with one spelling per number; :func:`stem_of` gives a word's stem (the class's
first word for a word of an exclusive set). :func:`parse` reads a whole statement: its content stems,
its polarity (negations counted in pairs within a stretch of the sentence), what it denies ("X, not
Y", "moved from Y to X"), an order ("A over B"), its values, its clauses, whether a thing is still
under way or done, and the other signals the rules of :mod:`kgmem.analysis.judge` use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kgmem.analysis.lexicon import (
    BELOW,
    CANON,
    CONTRACTIONS,
    DETERMINERS,
    DONE,
    IRREGULAR,
    MULTI_VALUED_FORMS,
    NEGATION,
    NEGATIVE,
    NUMBER_WORDS,
    PHRASES,
    POSITIVE,
    STEMMER,
    STOP,
)
from kgmem.analysis.negation import AFFIRMING, AVOIDING, main_clause
from kgmem.analysis.quantities import spell_quantities
from kgmem.analysis.updates import ENDED, REPLACED_WITH, REPLACES

_TOKEN = re.compile(r"\$?[a-z0-9]+(?:[.:/,_+#-][a-z0-9]+)*%?")
# a dot inside a token is no sentence end ("not .format()", "rather than str.format")
_PHRASE_END = r"(?:[^,.;!?]|\.(?=\w))+"
_DENIAL = re.compile(
    rf"(?:,|;|—|-|\(|\band\b)\s*(?:not|never)\s+(?P<y>{_PHRASE_END})|\b(?:instead of|rather than)\s+(?P<z>{_PHRASE_END})",
    re.I,
)
# Progress of one thing: still under way ("trying to decide", "thinking of"); done is lexicon.DONE ("already").
_PENDING = re.compile(
    r"\b(?:trying|meaning|planning|hoping|wanting|want|wanna|plan|hope|intend|intending)\s+to\b"
    r"|\bthinking\s+(?:of|about)\b|\bconsidering\b",
    re.I,
)
CLAUSE = re.compile(
    r";|,?\s+but\s+|,\s+(?:and|so|which|while|whereas|although|though|since)\s+"
    r"|\s+(?:because|although|though|whereas)\s+|\s+[-–—]\s+"  # a spaced dash: "decided against X - going with Y"
    # a comma before a new subject and its verb starts a clause of its own ("I returned the palette,
    # I didn't like it")
    r"|,\s+(?=(?:i|we|they|he|she)(?:'[a-z]+)?\s)",
    re.I,
)
# the stretches a negation's count is kept within: "returning the mixer, it just wasn't for me" says no twice,
# and the two do not cancel (they do within one stretch: "I never miss a game")
_OPENER = re.compile(r"^\s*(?:no|correction|update)\s*[,:]", re.I)
_SEGMENT = re.compile(r"[,;:]|\s+[-—]\s+|\s+but\s+", re.I)
# "moved / switched / migrated from X to Y" says "not X"
_SWITCH = re.compile(
    r"\b(?:mov|switch|migrat|chang|transition|shift|push|slip|postpon|delay|reschedul|bump)\w*\s+(?:\w+\s+){0,3}?(?:from|off(?:\s+of)?|out\s+of|away\s+from)\s+"
    r"(?P<x>[^,.;!?]+?)\s+(?:over\s+)?(?:to|onto|into|for)\s+",
    re.I,
)
# "moved X off / out of Y" with no new value named: Y no longer holds ("We moved SCIM provisioning off JumpCloud."; not
# "I've barely taken it off since" or "I take Friday afternoons off for my son's lessons", where no place follows)
_MOVED_OFF = re.compile(
    r"\b(?:mov|migrat|switch|took|taken|take|rip|pull)\w*\s+(?:[\w-]+\s+){0,3}?(?P<prep>off(?:\s+of)?|out\s+of"
    r"|away\s+from)\s+(?!(?:since|then|again|ever|now|later|already|yet|for|to|on|at|in|during|until|every|"
    r"because|when|while|so|and|but|with)\b)(?P<x>[^,.;!?]+?)\s*(?:[,.;!?]|$)",
    re.I,
)
_PURPOSE = re.compile(r"\s+(?:to|so\s+that|in\s+order\s+to)\s+(?=[a-z]+\s)", re.I)
_STILL_NOT = re.compile(r"\bstill\s+(?:has|have|had)\s*(?:not|n't)\b|\bstill\s+(?:hasn|haven|hadn)'?t\b", re.I)
_ROLE = re.compile(r"\bas\s+(?:my|our|the|a|an|their|his|her)\s+(?:main\s+|default\s+|primary\s+)?([a-z]+)\b", re.I)
_ONLY = re.compile(r"(?<!not )(?<!the )(?<!if )\bonly\b", re.I)
_ADDITIVE = re.compile(r"\b(?:too|as well)\W*$|\balso\b", re.I)
_ORDER = re.compile(
    r"(?P<a>[\w .+#-]+?)\s+(?:over|rather than|than|instead of|before)\s+(?P<b>[\w .+#-]+)"
    r"|\bprefer(?:s|red)?\s+(?P<pa>[\w .+#-]+?)\s+to\s+(?P<pb>[\w .+#-]+)",
    re.I,
)


ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")


@lru_cache(maxsize=4096)
def words_of(text: str) -> tuple[str, ...]:
    low = ACRONYM_PLURAL.sub(r"\1", text).lower()  # "PRs" = "PR", "APIs" = "API"
    for pattern, repl in CONTRACTIONS:
        low = pattern.sub(repl, low)
    if _NEGATION_WORD.search(low):
        for pattern, repl in AFFIRMING:  # "can't wait", "don't mind": a negation that affirms
            low = pattern.sub(repl, low)
    if _AWAY.search(low):
        for pattern, repl in AVOIDING:  # "stay away from", "keep … out of": "avoid"
            low = pattern.sub(repl, low)
    low = spell_quantities(low)  # "thirty-five" = "35", "two weeks" = "14 days"
    for pattern, repl in ENDED:  # "sold", "handed … over to": the end of holding a thing
        low = pattern.sub(repl, low)
    for pattern, repl in PHRASES:
        low = pattern.sub(repl, low)
    out = []
    for tok in _TOKEN.findall(low):
        tok = tok.rstrip(",")
        if _RANGE.match(tok):  # "20-25" says "20 to 25", "8am" says "8 am"
            out.extend(_number(t) for t in _RANGE_PART.findall(tok))
            continue
        tok = _number(tok)
        if "-" in tok and not is_number(tok):  # "squash-merge" says "squash merge"; "us-east-1" is a value
            out.extend(NUMBER_WORDS.get(t, t) for t in tok.split("-") if t)
        else:
            out.append(NUMBER_WORDS.get(tok, tok))
    return tuple(out)


# the words the rewrites of kgmem.analysis.negation start from; a text without them skips those patterns
_NEGATION_WORD = re.compile(r"\b(?:not|no|never|nobody|nothing|none|without|hardly|barely|scarcely|almost)\b")
_AWAY = re.compile(r"\b(?:away|clear|out\s+of|off|home\s+from)\b")
_RANGE = re.compile(r"^\$?\d+(?:\.\d+)?(?:-\$?\d+(?:\.\d+)?|am|pm)$")
_RANGE_PART = re.compile(r"\$?\d+(?:\.\d+)?|am|pm")
_PLAIN_NUMBER = re.compile(r"^[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(k|m|bn|st|nd|rd|th|%)?$")
_SCALE = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000}
# a quantity ("5432", "$10", "6:30", "20%"), not a name with a number in it ("s3", "v2", "eu-west-1")
QUANTITY = re.compile(r"^\$?\d[\d.,:]*%?$")


def _number(tok: str) -> str:
    """One spelling per number: "$10,000" = "10000" = "10k"; "$1.5M" = "1500000"; "12th" = "12"; "6:30" and
    versions stay as they are."""
    m = _PLAIN_NUMBER.match(tok)
    if not m or (m.group(3) in ("m", "bn") and tok[0].isdigit()):  # "10m" may be minutes or metres; "$10m" is money
        return tok
    whole, frac, suffix = m.group(1).replace(",", ""), m.group(2), m.group(3)
    if suffix in _SCALE:
        return str(int(round(float(f"{whole}.{frac or 0}") * _SCALE[suffix])))
    return f"{whole}.{frac}" if frac else whole


def is_number(tok: str) -> bool:
    return any(c.isdigit() for c in tok)


@lru_cache(maxsize=16384)  # the pure-Python stemmer is most of the judge's time; words repeat
def stem_of(tok: str) -> str:
    if is_number(tok) or not tok.isalpha():
        return tok
    stem = STEMMER.stemWord(IRREGULAR.get(tok, tok))
    return CANON.get(stem, stem)


@dataclass(frozen=True)
class Parsed:
    content: frozenset[str]  # content stems (no stop, stance or negation words)
    negated: bool  # odd number of negations / negative stance words
    denied: frozenset[str]  # stems of the Y of "…, not Y"
    order: tuple[frozenset[str], frozenset[str]] | None  # "A over B"
    values: frozenset[str]  # stems that look like values (numbers, names, code-like tokens)
    multi_valued: bool
    sequence: tuple[str, ...]  # the content stems in the order they are said
    opens_with_content: bool  # only articles, pronouns and the like before the first content word
    additive: bool  # "… too", "also": one more value, not another one
    progress: str | None  # "pending" ("still deciding"), "not yet" or "done" ("already", "finished")
    role: str | None  # "as my shell": the one slot a many-valued verb fills here
    clauses: tuple[tuple[bool, frozenset[str]], ...]  # (negated, content) of each clause
    replaces: bool  # "… instead", "moved to …": it replaces what was said before
    stance: bool  # a preference is stated ("like", "prefer", "love" …)
    only: bool  # "only X": nothing else in its slot ("we only play on clay")
    affirmed: frozenset[str]  # the value X it moved to from the denied Y ("from Y to X", "replaced Y with X")
    has_negation: bool = False  # a negation anywhere, even two that cancel ("don't format files I didn't touch")


def _polarity(body: str, words: tuple[str, ...]) -> tuple[bool, str | None]:
    """Is the text negated (an odd number of negations), and is a thing in it still under way or done?"""
    negations = _negations(words)
    progress = None
    if "yet" in words and negations:  # "haven't decided yet" says "still deciding", and "I've never done it"
        progress = "not yet"
    elif _STILL_NOT.search(body):  # "still hasn't arrived" = "not yet arrived"
        negations -= 1
        progress = "pending"
    elif "still" in words:
        progress = "pending"
    elif DONE & set(words):
        progress = "done"
    elif _PENDING.search(body):  # "trying to decide", "meaning to try" / "already decided", "already played"
        progress = "pending"
    return negations % 2 == 1, progress


def _negations(words: tuple[str, ...]) -> int:
    negations = sum(
        1
        for i, w in enumerate(words)
        if (w in NEGATION and not _adverb_of_place(words, i))
        or (_negative(w) and not _attributive(words, i))
        or _bound(words, i)
    )
    # "no longer" and "not anymore" are one negation, as are "don't … anymore"
    if "anymore" in words and ("not" in words or "no" in words):
        negations -= 1
    return negations


def _adverb_of_place(words: tuple[str, ...], i: int) -> bool:
    """ "outside" with nothing after it but a verb or the clause's end says where, not "except" ("hosting get-togethers
    outside has always been a dream"; not "coins from outside Europe", "outside of work")."""
    if words[i] != "outside":
        return False
    return i + 1 == len(words) or (words[i + 1] in STOP and words[i + 1] not in DETERMINERS and words[i + 1] != "of")


def _attributive(words: tuple[str, ...], i: int) -> bool:
    """A participle of ending that opens the sentence or follows a determiner describes a noun ("failed runs are not
    retried", "the cancelled orders"): it names the thing, it does not deny anything."""
    if not words[i].endswith("ed") or i + 1 >= len(words):
        return False
    if i == 0:  # before a plural noun ("failed runs"), not a terse verb ("missed the top five", "dropped Python")
        after = words[1]
        return after.endswith("s") and not after.endswith("ss") and after not in DETERMINERS
    return words[i - 1] in DETERMINERS


def _negated(text: str) -> bool:
    """Is some stretch of the text negated? Negations cancel in pairs within a stretch only."""
    if _OPENER.match(text):  # "No, the deploy target is Fly.io": the "No" denies the old value, not this one
        text = _OPENER.sub("", text)
    if _negations(words_of(text)) < 2:  # one negation or none: the stretches cannot differ from the whole
        return _polarity(text, words_of(text))[0]
    return any(_polarity(part, words_of(part))[0] for part in _SEGMENT.split(text))


def _content_of(words: tuple[str, ...]) -> frozenset[str]:
    """A clause's content stems without "longer" ("no longer" is a negation's, not content)."""
    return _content_stems(tuple(w for w in words if w != "longer"))


def _clauses(body: str) -> tuple[tuple[bool, frozenset[str]], ...]:
    """(negated, content) of each clause: a negation speaks of its own clause ("I want to try the local
    flavors, but I can't handle much spice" denies nothing about the flavors)."""
    out = []
    for part in CLAUSE.split(body):
        content = _content_of(words_of(part))
        if content:
            main = main_clause(part)  # "people who can't make it": the negation speaks of the relative clause
            out.append((_negated(main), content))
    return tuple(out)


@lru_cache(maxsize=4096)
def parse(text: str) -> Parsed:
    denied: set[str] = set()
    affirmed: list[str] = []
    body = text
    m = _DENIAL.search(text)
    if m:
        # what is denied ends where a purpose begins: "instead of plastic wrap to cover my food" denies the wrap
        denied = {stem_of(w) for w in words_of(_PURPOSE.split(m.group("y") or m.group("z"))[0]) if w not in STOP}
        body = text[: m.start()]  # "X, not Y": the stance of the sentence is X's
    else:
        m = _SWITCH.search(text) or REPLACED_WITH.search(text)
        if m:  # "we moved from Slack to Teams": Slack is no longer what is said of us
            x = "r" if m.groupdict().get("r") else "x"  # "renamed X to Y"
            denied = {stem_of(w) for w in words_of(m.group(x)) if w not in STOP}
            body = text[: m.start(x) - len("from ")] + text[m.end(x) :]
            # the first word it moved to
            affirmed = [w for w in words_of(re.split(r"[,;!?]|\.(?!\w)", text[m.end() :])[0]) if w not in STOP][:1]
        elif m := _MOVED_OFF.search(text):
            denied = {stem_of(w) for w in words_of(m.group("x")) if w not in STOP}
            body = text[: m.start("prep")] + text[m.end("x") :]
    words = words_of(body)
    main = main_clause(body)
    progress = _polarity(main, words_of(main))[1]
    negated = _negated(main)
    content = _content_of(words)
    values = frozenset(stem_of(w) for w in _value_words(body))
    order = None
    o = _ORDER.search(body)
    if o:
        first, second = (o.group("a"), o.group("b")) if o.group("a") else (o.group("pa"), o.group("pb"))
        a, b = _content_stems(words_of(first)), _content_stems(words_of(second))
        if a and b:
            order = (a, b)
    multi = any(w in MULTI_VALUED_FORMS for w in words)
    sequence = tuple(stem_of(w) for w in words if stem_of(w) in content)
    # the subject opens the sentence after at most a determiner ("the staging cluster"); after "I have" or
    # "use", the first content word is already the object ("I have long hair")
    first = next((w for w in words if w not in DETERMINERS), None)
    role = _ROLE.search(body)
    return Parsed(
        content,
        negated,
        frozenset(denied),
        order,
        values,
        multi,
        sequence,
        first is not None and stem_of(first) in content,
        bool(_ADDITIVE.search(body)),
        progress,
        stem_of(role.group(1).lower()) if role else None,
        _clauses(body),
        bool(REPLACES.search(body)),
        any(w in POSITIVE for w in words),
        bool(_ONLY.search(body)),
        frozenset(stem_of(w) for w in affirmed),
        _negations(words) > 0,
    )


def _content_stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(
        stem_of(w) for w in words if w not in STOP and w not in NEGATION and w not in POSITIVE and not _negative(w)
    )


@lru_cache(maxsize=8192)
def _negative(word: str) -> bool:
    """A word of negative stance or of ending a thing, in any of its forms."""
    return word.isalpha() and STEMMER.stemWord(word) in NEGATIVE


def _bound(words: tuple[str, ...], i: int) -> bool:
    """ "under / less than / within" a number is a bound ("under 10 minutes" = "not over 10 minutes");
    elsewhere ("under better control", "licensed under Apache-2.0") it is an ordinary word."""
    after = words[i + 1 : i + 3]
    return (
        words[i] in BELOW
        and bool(after)
        and (
            QUANTITY.match(after[0]) is not None
            or (after[0] == "than" and len(after) > 1 and QUANTITY.match(after[1]) is not None)
        )
    )


def bounded_only(text: str) -> frozenset[str]:
    """The numbers a text bounds ("within 15 minutes": "15") when its bounds are its only negations, else none."""
    words = words_of(text)
    bounds = [i for i in range(len(words)) if _bound(words, i)]
    if not bounds or any(w in NEGATION or _negative(w) for w in words):
        return frozenset()
    return frozenset(words[i + 2] if words[i + 1] == "than" else words[i + 1] for i in bounds)


def _value_words(text: str) -> list[str]:
    """Tokens that name a value: numbers, code-like tokens, capitalised words not starting the sentence."""
    out = []
    raw = re.findall(r"[\w$.:/,+#-]+", text)
    for i, tok in enumerate(raw):
        tok = tok.strip(".,:;")
        if not tok:
            continue
        low = tok.lower()
        if low in STOP or low in NEGATION:
            continue
        # a number, a code-like token ("snake_case", "camelCase", "eu-west-1"), a capitalised name
        if (
            is_number(tok)
            or re.search(r"[./_-]", tok)
            or (i > 0 and tok[0].isupper())
            or tok.isupper()
            or re.search(r"[a-z][A-Z]", tok)
        ):
            out.extend(words_of(tok))
    return out

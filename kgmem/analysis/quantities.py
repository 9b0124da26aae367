"""One spelling per quantity, for comparing two statements word by word.

People say the same number and the same span many ways: "thirty-five" / "35", "port three
thousand" / "port 3000", "the fifteenth" / "the 15th", "two times a week" / "twice a week", "two
weeks" / "14 days", "half an hour" / "30 minutes", "half past four" / "4:30". The judge compares words, so a number spelled
out on one side and written in digits on the other would look like two different values — a
paraphrase read as "another number". :func:`spell_quantities` rewrites a lower-cased text so that
every such quantity has one spelling: digits, spans of weeks in days, of hours in minutes and of
years in months, clock times in digits.
"once" / "twice" and the months are left to the judge's word table.
"""

from __future__ import annotations

import re

from kgmem.analysis.lexicon import ONES as _ONES
from kgmem.analysis.lexicon import SCALES as _SCALES
from kgmem.analysis.lexicon import TENS as _TENS

# Ordinals from the fourth on are dates' days ("the fifteenth"); "first", "second", "third" are too
# often no number ("a second region") and stay words, except inside a compound ("twenty-first").
_ORDINALS = {
    w: i
    for i, w in enumerate(
        "_ _ _ _ fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
        "sixteenth seventeenth eighteenth nineteenth".split()
    )
    if w != "_"
}
_ORDINALS.update(twentieth=20, thirtieth=30)
_COMPOUND_ORDINALS = {"first": 1, "second": 2, "third": 3, **_ORDINALS}
_CARDINAL = "|".join(sorted([*_ONES, *_TENS, *_SCALES], key=len, reverse=True))
_ORDINAL = "|".join(sorted(_COMPOUND_ORDINALS, key=len, reverse=True))
_JOIN = r"(?:(?:(?<=hundred)|(?<=thousand)|(?<=million))\s+and\s+|\s+|-)"
# A run of number words, optionally opened by "a" before a scale ("a hundred") and closed by an ordinal.
_RUN = re.compile(
    rf"\b(?:an?\s+(?=(?:hundred|thousand|million)\b))?(?:(?:{_CARDINAL}){_JOIN})*"
    rf"(?:{_CARDINAL}|{_ORDINAL})\b"
)

# an amount or a range of amounts ("2-3 weeks", "2 to 3 weeks")
_AMOUNT = r"\b(\d+(?:\.\d+)?)(?:(\s*(?:-|–|to)\s*)(\d+(?:\.\d+)?))?"
_FREQUENCY = re.compile(r"\b(?:every|each)\s+(?:\d+(?:\.\d+)?\s*(?:-|–|to)\s*)?$")
_DURATION = [
    (re.compile(p), r)
    for p, r in (
        # short unit spellings: "7 yrs" = "7 years", "15 mins" = "15 minutes", "3x a week" = "3 times a week"
        (r"\b(\d+(?:\.\d+)?)\s*(?:yrs?)\b", r"\1 years"),
        (r"\b(\d+(?:\.\d+)?)\s*(?:mins?)\b", r"\1 minutes"),
        (r"\b(\d+(?:\.\d+)?)\s*(?:secs?)\b", r"\1 seconds"),
        (r"\b(\d+(?:\.\d+)?)\s*(?:mos)\b", r"\1 months"),
        (r"\b(\d+)x\s+(?=(?:a|an|per|every|each)\s)", r"\1 times "),
        (r"\b(\d+(?:\.\d+)?)x\s+(?=(?:speed|faster|slower|more|less|as)\b)", r"\1 times "),  # "1.5x speed"
        # "10s" after a preposition is seconds ("time out at 10s"; not "in my 20s")
        (r"\b(at|after|every|within|of|for|than|under|over)\s+(\d+)s\b", r"\1 \2 seconds"),
        (r"\bhalf\s+an?\s+hour\b", "30 minutes"),
        (r"\ban?\s+hour\s+and\s+a\s+half\b", "90 minutes"),
        (r"\b(\d+)\s+and\s+a\s+half\s+hours\b", lambda m: f"{int(m.group(1)) * 60 + 30} minutes"),
        (r"\ban?\s+fortnight\b", "14 days"),
        (r"\b(\d+)\s+and\s+a\s+half\b", r"\1.5"),  # "one and a half times speed" = "1.5 times speed"
        # "for a week" is a span ("logs are kept for a week" = "for 7 days"); "twice a week" is a frequency
        (
            r"\b(for|within|in|after|over|to|lasts?|lasted|takes?|took|about|around|roughly|nearly|almost|just)\s+"
            r"(?:an?|1)\s+(week|hour)\b",
            r"\1 1 \2s",
        ),
        # "two weeks" = "a two-week trip" = "14 days"; "seven years" = "84 months" (against "18 months")
        (rf"{_AMOUNT}(?:\s+|-)weeks?\b", lambda m: _scaled(m, 7, "days")),
        (rf"{_AMOUNT}(?:\s+|-)(?:hours?|hrs?)\b", lambda m: _scaled(m, 60, "minutes")),
        (rf"{_AMOUNT}(?:\s+|-)years?\b(?!\s+old\b)", lambda m: _scaled(m, 12, "months")),
        (r"\b(\d+)\s+times\b", r"\1"),  # "two times a week" = "twice a week"
        # a clock time in words: "half past four" = "4:30", "quarter past 9" = "9:15", "quarter to 9" = "8:45"
        (r"\bhalf\s+past\s+(\d{1,2})\b", r"\1:30"),
        (r"\b(?:a\s+)?quarter\s+past\s+(\d{1,2})\b", r"\1:15"),
        (r"\b(?:a\s+)?quarter\s+to\s+(\d{1,2})\b", lambda m: f"{(int(m.group(1)) - 2) % 12 + 1}:45"),
        # "3:30 in the afternoon" = "3:30 pm", "7 in the morning" = "7 am", "9 o'clock" = "9"
        (
            r"\b(\d{1,2}(?::[0-5]\d)?)\s+(?:o'?clock\s+)?in\s+the\s+(?:afternoon|evening)\b|\b(\d{1,2}(?::[0-5]\d)?)\s+at\s+night\b",
            lambda m: f"{m.group(1) or m.group(2)} pm",
        ),
        (r"\b(\d{1,2}(?::[0-5]\d)?)\s+(?:o'?clock\s+)?in\s+the\s+morning\b", r"\1 am"),
        (r"\b(\d{1,2})\s+o'?clock\b", r"\1"),
    )
]


def _scaled(match: re.Match[str], factor: int, unit: str) -> str:
    if _FREQUENCY.search(match.string, 0, match.start()):
        return match.group(0)  # "every 2 weeks", "every 2-3 weeks" are frequencies
    low, joint, high = match.group(1), match.group(2), match.group(3)
    amount = _tidy(float(low) * factor)
    if high:
        amount += f"{joint}{_tidy(float(high) * factor)}"
    return f"{amount} {unit}"


def _tidy(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _value(run: str) -> str:
    """The digits of a run of number words; words that cannot continue one number start the next
    ("two three" is 2 and 3, "twenty five" is 25)."""
    words = [w for w in re.split(r"[\s-]+", run) if w and w != "and"]
    if words[0] in ("a", "an"):
        words[0] = "one"
    numbers: list[int] = []
    total = current = 0
    started = False
    for word in words:
        small = _ONES.get(word, _COMPOUND_ORDINALS.get(word))
        if small is not None or word in _TENS:
            value = small if small is not None else _TENS[word]
            below_hundred = current % 100
            if below_hundred and not (below_hundred % 10 == 0 and below_hundred >= 20 and value < 10):
                numbers.append(total + current)  # "two three": a new number
                total = current = 0
            current += value
        elif _SCALES[word] == 100:
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[word]
            current = 0
        started = True
    if started:
        numbers.append(total + current)
    return " ".join(str(n) for n in numbers)


def _replace(match: re.Match[str]) -> str:
    run = match.group(0)
    words = [w for w in re.split(r"[\s-]+", run) if w and w != "and"]
    if len(words) == 1 and words[0] in ("first", "second", "third"):
        return run  # alone they are no number ("a second region")
    return _value(run)


# what every pattern of _DURATION needs: a digit, or a span said in words ("half an hour", "a fortnight", "for a week")
_SPANNED = re.compile(r"\d|\bhour\b|\bweek\b|\bfortnight\b")
# a share said as a fraction, before the ordinals are read as days: "a fifth of each sprint" = "20% of each sprint"
_FRACTIONS = {"half": "50", "third": "33", "quarter": "25", "fifth": "20", "tenth": "10"}
_SHARE = re.compile(r"\b(?:(?:an?|one)\s+(half|third|quarter|fifth|tenth)|(half)|three\s+(quarter)s)\s+of\b")
# digits before a scale word: "40 thousand" = "40000", "1.5 million" = "1500000"
_PRONOUN_ONE = re.compile(r"\b((?:the|this|that|which)\s+(?:[a-z-]+\s+){1,4}?)one\b(?=\s*(?:[,.;!?)]|$))")
_DIGITS_SCALED = re.compile(r"\b(\d+(?:\.\d+)?)\s+(hundred|thousand|million)\b")


def spell_quantities(text: str) -> str:
    """``text`` (lower case) with spelled-out numbers as digits and spans of weeks / hours in days /
    minutes: "thirty-five" -> "35", "three thousand" -> "3000", "two weeks" -> "14 days"."""
    if "one" in text:  # "the copper planchet error one", "the blue one": a pronoun, not a count
        text = _PRONOUN_ONE.sub(r"\1", text)
    if "of" in text:
        text = _SHARE.sub(lambda m: f"{'75' if m.group(3) else _FRACTIONS[m.group(1) or m.group(2)]}% of", text)
    text = _DIGITS_SCALED.sub(lambda m: _tidy(float(m.group(1)) * _SCALES[m.group(2)]), text)  # "40 thousand"
    text = _RUN.sub(_replace, text)
    if not _SPANNED.search(text):
        return text  # no number and no span word: none of the spellings below applies
    for pattern, repl in _DURATION:
        text = pattern.sub(repl, text)
    return text

"""One measure of one thing, said with another amount: a span, a size or a count of the same noun.

"Audit logs are retained for seven years" / "Audit logs are only kept for 18 months" and "The ingestion
service accepts payloads up to 8 MB" / "… rejects anything over 2 MB" say two amounts of one measure of
one subject; the judge's word rules see other words beside the numbers ("retained" / "kept") and read two
facts. :func:`measure` reads a statement's one amount as (dimension, value in a base unit): a span in
seconds, a size in bytes, or a count of the noun that follows it ("25,000 rows"). Two statements that
share their subject and say one amount each of the same dimension, other values, contradict; the same
value said in two units ("84 months" / "seven years") is the same amount. :func:`same_limit`: one limit said
from both sides ("rejects payloads over 5 MB" / "accepts payloads up to 5 MB") is one statement, whatever
negation one of them carries.
"""

from __future__ import annotations

import re

from kgmem.analysis.lexicon import STOP, UNITS
from kgmem.analysis.parsing import QUANTITY, Parsed, stem_of, words_of

# units by stem, in seconds and bytes (a month is a twelfth of a year: "12 months" = "a year")
_SPAN = {
    "second": 1,
    "minut": 60,
    "hour": 3_600,
    "day": 86_400,
    "night": 86_400,
    "week": 604_800,
    "month": 2_628_000,
    "year": 31_536_000,
}
_SIZE = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
# two amounts this close are one amount said in two units ("4 weeks" / "a month")
_SAME = 0.1


def measure(text: str) -> tuple[str, float] | None:
    """The statement's one amount as (dimension, value): None when it says no amount or more than one, an amount
    that is no measure (a version, a name, a clock time: no unit and no plural noun after it) or a rate ("per")."""
    words = [w for w in words_of(text) if w not in STOP]
    found = [i for i, w in enumerate(words) if QUANTITY.match(w)]
    if len(found) != 1 or "per" in words:
        return None
    i = found[0]
    try:
        value = float(words[i].lstrip("$").rstrip("%").replace(",", ""))
    except ValueError:  # "1.2.3", "4:30"
        return None
    after = words[i + 1] if i + 1 < len(words) else ""
    unit = stem_of(after)
    if unit in _SPAN:
        return "span", value * _SPAN[unit]
    if unit in _SIZE:
        return "size", value * _SIZE[unit]
    if after.isalpha() and unit not in UNITS and (value == 1 or (after.endswith("s") and not after.endswith("ss"))):
        return f"count:{unit}", value  # "25,000 rows", "one reviewer"
    return None


def other_measure(new: str, old: str, n: Parsed, o: Parsed, shared: frozenset[str]) -> bool:
    """One amount each of one measure, other values, and the two share their subject (at least two words
    besides the amounts, and half the words of the shorter statement)."""
    a, b = measure(new), measure(old)
    if a is None or b is None or a[0] != b[0] or abs(a[1] - b[1]) <= _SAME * max(a[1], b[1]):
        return False
    words = {w for w in shared if not QUANTITY.match(w) and w not in UNITS and w not in _SPAN}
    return len(words) >= 2 and 2 * len(shared) >= min(len(n.content), len(o.content))


_LIMIT = re.compile(
    r"\b(?:over|above|more\s+than|up\s+to|under|below|at\s+most|max(?:imum)?|within|less\s+than|"
    r"beyond|exceed\w*|bigger\s+than|larger\s+than|longer\s+than)\b",
    re.I,
)


def same_limit(new: str, old: str) -> bool:
    """Both say a limit on the same amount, one from each side ("rejects payloads over 5 MB" / "accepts payloads up
    to 5 MB"): a negation of one is the other's bound, not a denial."""
    a, b = measure(new), measure(old)
    return (
        a is not None
        and b is not None
        and a[0] == b[0]
        and abs(a[1] - b[1]) <= _SAME * max(a[1], b[1])
        and _LIMIT.search(new) is not None
        and _LIMIT.search(old) is not None
    )

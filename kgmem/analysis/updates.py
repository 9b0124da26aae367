"""How a statement says that it updates an earlier one, for the judge (kgmem.analysis.judge).

A later statement often reports a change of state rather than restating a fact: "We run ClickHouse
with 8 shards now", "We moved the nightly run to 5 am", "We replaced Okta with Azure AD", "I sold my
undershirt brand", "I handed billing-exporter over to Marcus". Word by word such a statement looks
like a different fact (another number beside other words, or a new verb), yet it replaces what was
said before. This module names those signals so the judge can read them as one class:

* :data:`REPLACES` — the statement replaces an earlier value of its slot: "… instead", "now",
  "these days", "no longer", a correction, or a verb of change with its new value ("moved / migrated /
  upgraded / switched / bumped … to …", "scaled / cut … down to …", "slipped to …"), each a named
  alternative of the pattern.
* :data:`CORRECTION` — a statement that opens as a correction; what it corrects may be said later.
* :data:`REPLACED_WITH` — "replaced X with Y" names the value X that no longer holds.
* :data:`ENDED` — phrases that end one's holding of a thing or a plan ("sold", "handed … over to",
  "… is gone", "goes away", "phased out", "stepped down", "returned / lost the …", "put … down", "we shut
  down our …", "was shut down", "lost interest", "I left Shopify", "postponed indefinitely"), rewritten as a
  word of ending the judge reads as a negation.
"""

from __future__ import annotations

import re

# "now" as a time of change; not "for now", "by now", "until now", "just now", "years now", "while now"
_NOW = r"(?<!for )(?<!by )(?<!until )(?<!just )(?<!years )(?<!months )(?<!weeks )(?<!days )(?<!while )\bnow\b"
_INSTEAD = r"\binstead\b(?!\s+of)"  # "… instead" (not "instead of Y", a denial)
_THESE_DAYS = r"\bthese\s+days\b|\bnowadays\b"
_NO_LONGER = r"\bno\s+longer\b|\bany\s?more\b"
_OPENS_CORRECTION = r"^\s*(?:correction|update)\b|^\s*no\s*,"
# "the checkout domain is down to 7 services": a count that fell to a new value
_DOWN_TO = r"\b(?:is|are|'s|'re|now|got|gotten|went|came)\s+(?:down|up)\s+to\s+(?=\d)"
# a verb of change, up to five words (possessives too: "the app's minimum iOS version") and "to" / "until" its
# new value: "moved the nightly run to 5 am", "scaled the worker down to 3 replicas"
_CHANGED_TO = (
    r"\b(?:slip|slipped|moved|pushed|postponed|delayed|rescheduled|bumped|migrated|switched|upgraded|downgraded"
    r"|changed|raised|lowered|increased|decreased|reduced|grew|shrank|scaled|cut|trimmed|extended|shortened)\b"
    r"(?:\s+[\w.'’-]+){0,5}?\s+(?:to|until)\b"
)
REPLACES = re.compile(
    "|".join((_INSTEAD, _NOW, _THESE_DAYS, _NO_LONGER, _OPENS_CORRECTION, _CHANGED_TO, _DOWN_TO)), re.I
)
# a correction says so as it opens ("Correction: …", "No, …", "Actually, …")
CORRECTION = re.compile(r"^\s*(?:correction|update|no|actually)\b", re.I)
# "swapped X for Y" says "replaced X with Y", and so does "renamed X to Y" of a name
REPLACED_WITH = re.compile(
    r"\b(?:(?:replac(?:e|es|ed|ing)|swap(?:s|ped|ping)?)\s+(?P<x>[^,.;!?]+?)\s+(?:with|by|for)"
    r"|renam(?:e|es|ed|ing)\s+(?P<r>[^,.;!?]+?)\s+(?:to|as))\s+",
    re.I,
)
# each rewrites, in the lower-cased text, a phrase of ending into "drop" / "quit" (words of ending)
ENDED = [
    (re.compile(p), r)
    for p, r in (
        (
            r"\bhand(?:ed|s|ing)?\s+((?:[\w.-]+\s+){1,5}?)over\s+to\b",
            r"drop \1 to",
        ),  # "handed billing-exporter over to"
        # "I sold my undershirt brand", "I'm selling the Tamron" (not "a store that sells clothes")
        (r"\b(i|we|they|he|she|just|have|has|had|am|are|is|be)\s+(?:sold|selling)\b", r"\1 drop"),
        (
            r"\b(?:is|are|was|were|been)\s+gone\b|\bgone\s+(?=from\b)",
            "dropped ",
        ),  # "devpi is gone", "Chrome's gone from my laptop"
        # a thing that goes away, is phased out or shut down ends: "Python 3.9 support goes away in the spring release"
        (r"\b(?:go|goes|went|going)\s+away\b|\bphas(?:e|es|ed|ing)\s+out\b|\bsunset(?:s|ted|ting)?\b", "dropped"),
        # one who steps down, returns or loses a thing no longer holds it ("stepped down as lead", "returned the Garmin",
        # "lost my passion for dancing")
        (r"\bstep(?:s|ped|ping)?\s+down\b", "quit"),
        # "I put Crafting Interpreters down", "we shut down our Nominatim box" (past, a thing of one's own; a plan to shut
        # a thing down is what "the shutdown" says)
        (r"\b(i|we|they|he|she)\s+put\s+((?:[\w.-]+\s+){1,4}?)down\b", r"\1 drop \2"),
        (
            r"\b(i|we|they|he|she)\s+(?:shut|turned|switched)\s+(?:down|off)\s+(?=(?:the|our|my|their|his|her)\b)",
            r"\1 drop ",
        ),
        # ... and a thing that was shut down or switched off (the passive): "the old VPN was shut down last quarter"
        (r"\b(?:is|are|was|were|been|being|got|gets|get)\s+(?:shut|turned|switched)\s+(?:down|off)\b", "dropped"),
        # one who lost interest in a thing no longer cares for it ("I've lost interest in crypto")
        (r"\b(?:lost|lose|loses|losing)\s+(?:all\s+|my\s+|our\s+)?interest\b", "dropped interest"),
        (r"\b(?:returned|returning|lost|losing)\s+(?=(?:the|my|our|his|her|their|all)\b)", "drop "),
        (r"\bgot\s+rid\s+of\b", "dropped"),
        # one who left a team, a company or a group no longer belongs to it ("I left the platform team")
        # (not where one left a thing: "I left my family behind in Syria", "I left my keys at home")
        (
            r"\b(i|we|he|she|they)\s+(?:have\s+|had\s+)?left\s+(?=(?:the|my|our|his|her|their)\s)(?![^,.;!?]*\b(?:behind|in|at|with)\b)",
            r"\1 drop ",
        ),
        # ... and one who left a place or a company named in one word ("I left Shopify", "I left Berlin in 2019")
        (
            r"\b(i|we|he|she|they)\s+(?:have\s+|had\s+)?left\s+(?!(?:the|my|our|his|her|their|a|an|it|them|early|late|work|home|"
            r"behind|for|at|with|on|to|after)\b)(?=[\w.-]+\s*(?:[,.;!?]|$|\s+(?:in|last|this|after|a|two|three|years?|months?)\b))",
            r"\1 drop ",
        ),
        # ruling a thing out, calling it off, backing or opting out of it, a plan that fell through: it is off
        (
            r"\b(?:rul|call|back|opt|pull)(?:e|es|ed|ing|s)?\s+out\b(?:\s+of\b)?|\b(?:call|calls|called|calling)\s+off\b"
            r"|\b(?:fell|falls|fall|falling)\s+through\b|\b(?:is|are|was|were|got|been)\s+(?:on\s+ice|scrapped)\b"
            r"|\boff\s+the\s+table\b",
            "cancelled",
        ),
        # a plan put off with no new date is off ("the shutdown got postponed indefinitely"); with a date it
        # replaces the old one (REPLACES)
        (
            r"\b(?:postponed|delayed|pushed\s+back|put\s+on\s+hold)(?:\s+indefinitely)?\b(?!\s+(?:to|until|by|till)\b)",
            "cancelled",
        ),
    )
]

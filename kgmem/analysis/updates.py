"""How a statement says that it updates an earlier one, for the judge (kgmem.analysis.judge).

A later statement often reports a change of state rather than restating a fact: "We run ClickHouse
with 8 shards now", "We moved the nightly run to 5 am", "We replaced Okta with Azure AD", "I sold my
undershirt brand", "I handed billing-exporter over to Marcus". Word by word such a statement looks
like a different fact (another number beside other words, or a new verb), yet it replaces what was
said before. This module names those signals so the judge can read them as one class:

* :data:`REPLACES` — the statement replaces an earlier value of its slot: "… instead", "now",
  "these days", "no longer", a correction, or a verb of change with its new value ("moved / migrated /
  upgraded / switched … to …", "slipped to …").
* :data:`CORRECTION` — a statement that opens as a correction; what it corrects may be said later.
* :data:`REPLACED_WITH` — "replaced X with Y" names the value X that no longer holds.
* :data:`ENDED` — phrases that end one's holding of a thing or a plan ("sold", "handed … over to",
  "… is gone", "postponed indefinitely"), rewritten as a word of ending the judge reads as a negation.
"""

from __future__ import annotations

import re

REPLACES = re.compile(
    r"\binstead\b(?!\s+of)|(?<!for )(?<!by )(?<!until )(?<!just )(?<!years )(?<!months )(?<!weeks )(?<!days )(?<!while )\bnow\b|\bthese\s+days\b|\bnowadays\b|\bno\s+longer\b|\bany\s?more\b|^\s*(?:correction|update)\b|^\s*no\s*,"
    r"|\b(?:slip|slipped|moved|pushed|postponed|delayed|rescheduled|bumped|migrated|switched|upgraded|downgraded"
    r"|changed|raised|lowered|increased|decreased|reduced|grew|shrank)\b(?:\s+[\w.-]+){0,5}?\s+(?:to|until)\b",
    re.I)
# a correction says so as it opens ("Correction: …", "No, …", "Actually, …")
CORRECTION = re.compile(r"^\s*(?:correction|update|no|actually)\b", re.I)
REPLACED_WITH = re.compile(r"\breplac(?:e|es|ed|ing)\s+(?P<x>[^,.;!?]+?)\s+(?:with|by|for)\s+", re.I)
# each rewrites, in the lower-cased text, a phrase of ending into "drop" / "quit" (words of ending)
ENDED = [(re.compile(p), r) for p, r in (
    (r"\bhand(?:ed|s|ing)?\s+((?:[\w.-]+\s+){1,5}?)over\s+to\b", r"drop \1 to"),  # "handed billing-exporter over to"
    # "I sold my undershirt brand", "I'm selling the Tamron" (not "a store that sells clothes")
    (r"\b(i|we|they|he|she|just|have|has|had|am|are|is|be)\s+(?:sold|selling)\b", r"\1 drop"),
    (r"\b(?:is|are|was|were)\s+gone\b", "dropped"),  # "devpi is gone"
    (r"\bgot\s+rid\s+of\b", "dropped"),
    # a plan put off with no new date is off ("the shutdown got postponed indefinitely"); with a date it
    # replaces the old one (REPLACES)
    (r"\b(?:postponed|delayed|pushed\s+back|put\s+on\s+hold)(?:\s+indefinitely)?\b(?!\s+(?:to|until|by|till)\b)",
     "cancelled"),
)]

"""Is a new statement a paraphrase of a stored one, a contradiction of it, or something else?

The knowledge store asks this for every stored item near a new one (pure logic; the cosine of
the two contents comes from the embedding model). The rules, in order — the first that applies
decides, and its name is the verdict's ``reason``:

1. ``distant``: cosine below ``related_cosine`` — different topics, nothing to compare.
2. ``denied``: one says "X, not Y" (or "X (not Y)", "X, never Y", "instead of Y", "rather than Y", "moved /
   switched from Y to X", "moving off Y onto X", "moved X off / out of Y", "replaced Y with X") and Y is what the
   other says — not what the other passes over ("A rather than B" / "A over B") nor denies too in a clause of
   its own ("correctness, not style" / "correctness; style isn't the point"), and not when the other names
   the value it moved to as well: the same change said twice ("move CI from Jenkins to Buildkite" / "Jenkins
   to Buildkite for CI").
3. ``reversed``: "A over/than/rather than/instead of B" against "B over A" (the words on either
   side of the pivot swapped places: "early returns over nested ifs"), or against a preference for
   B alone ("I prefer Chrome over Firefox" / "I prefer Firefox").
4. ``progress``: one says a thing is still under way ("still deciding", "not decided yet",
   "still hasn't arrived", "trying to decide", "thinking of", "meaning to"), the other that it is
   done ("already decided", "finished", "wrapped up"), and they share half their words. An intention
   or a decision speaks of the act itself ("planning to visit Yosemite" / "decided not to go to
   Yosemite after all" compare "visit" and "go").
5. ``negation``: one is negated ("not", "never", "no longer", "hardly", "outside", "stopping",
   "except", "decided against", "hate", "doubt", "failed", "to limit", and ending a thing in any
   form: "skipping", "dropped the plan", "given up on", "cancelled", "banned", "sold", "handed … over to",
   "… is gone", "gone from", "is blocked", "goes away", "stepped down", "returned / lost the …", "put … down", "zero interest" …;
   kgmem.analysis.updates) and the other is
   not, and they say the same thing otherwise: the negated one denies all of what it says of the
   other ("no stress" / "stress and grief"), or a negated clause shares half its words with a
   clause of the other, or half the words of the shorter of the two when no number is beside the
   negation ("I don't drink bourbon at all" / "I've been trying bourbons and bitters"; "within 5
   days" is a bound) — a negation speaks of its own clause ("I want to try the local dishes, but I
   can't handle much spice" denies nothing about the dishes), and what both deny, each in a clause
   of its own, or one denies and the other calls low ("can't handle much spice" / "a low tolerance
   for spice"), they agree on. Negations count in pairs: "never miss" is "always go", "must
   not take longer than 10" is "stay under 10" ("under" is a bound only right before a number).
   "Not … often" is the frequency "rarely"; "not … yet" says a thing is under way, like "still"
   (no denial of it) and "can't make up my mind"; "any X works" is "no preferred X"; "no X until Y"
   (or "nothing … unless Y") is "Y before X", not a negation; "X-free" and "free of X" are "no X", and "un-X" /
   "non-X" against X is one ("unencrypted" / "encrypted"). A negation denies only the same claim
   (kgmem.analysis.negation): negations that affirm deny nothing ("can't wait", "don't mind", "not only …
   but also", "no matter", "hardly ever" = "rarely"); "stay away from" and "keep X out of" say "avoid"; a
   negation in a relative clause on people speaks of it ("recorded for people who can't make it"); "not X"
   of a two-valued set is its other value ("isn't public" / "private"); a statement that, beside its
   negated clause, affirms in a clause of its own what the other says denies nothing of it ("I can't tell
   red from green very well; I'm colorblind" / "I'm red-green colorblind"). Negations cancel in pairs
   within a stretch of the sentence only ("I returned the palette, I didn't like it" says no twice), a
   list of denials is one ("no sugar, no cream"), a "No, …" that opens a correction denies the old value,
   and a reduction by an amount ("to reduce my body fat by 5%") is a target, not "not much".
6. ``same_words``: the same content words (stems, fillers like "usually", "really", "using"
   dropped; "like/love/enjoy/prefer" count as one word; "felt" is "feel"; "took up" is
   "started"; "every week" is "weekly"; words of one class of an exclusive set are one word:
   "excellent" = "the best", "concise" = "short"; one spelling per number, date and clock time:
   "2 am" = "02:00", "6 pm" = "18:00", "a 5-night stay" = "5 nights", "thirty-five" = "35", "port three
   thousand" = "port 3000", "40 thousand" = "40k", "$1.5M" = "1.5 million", "two weeks" = "a two-week trip" = "14
   days", "7 yrs" = "seven years" = "84 months", "3x a week" = "three times a week", "half past four" = "4:30",
   "3:30 in the afternoon" = "3:30 pm" (kgmem.analysis.quantities), "03:15" =
   "3:15 am", "4gb" = "4 GB", "every second" = "every other", "times out" = "timeout"; one name said
   three ways: "is called" = "is named" = "name is"; when a thing happened ("last month") is not what happened; an acronym is its
   spelled-out words, and "PRs" is "PR"; "no one" is "nobody", no number; "v3" is "version 3"; a restatement's preamble — "As I said, …" — is no content) — a paraphrase.
7. ``other_number``: the same words except numbers ("port 5432" / "port 6543", "five years" /
   "two years", "February 10th" / "March 3rd") — one value replaced another; also one quantity for
   another with other words changed on one side only (a hedge or a clause: "I think I can give
   3 hours a week" / "I can only give 1 hour a week") or only values of one exclusive set beside it
   ("Mondays at 6 pm" / "Thursdays at 7:30 pm"), the unit unchanged ("30 days" / "a
   month" may be one span; weeks are read in days, hours in minutes, years in months) and not naming the subject ("the staging database / API listens on …");
   also one quantity for another beside a statement that says it updates the old one ("We run
   ClickHouse with 8 shards now" / "The cluster has four shards"; kgmem.analysis.updates: "now",
   "these days", "no longer", "moved / upgraded / migrated / bumped / scaled … to …", a correction).
8. ``other_value``: the same slot with another value — the same words except one value on each
   side (a name, a version, a code-like token with at most the noun after it: "an S3 bucket" /
   "Terraform Cloud", a member of a set of mutually exclusive words such as production/staging,
   dark/light, weekly/monthly, long/short, low/high, summer/winter, budget/mid-range/luxury,
   remote/onsite, beginner/advanced — beside which one side may add detail; code-like tokens such as
   "camelCase" are values), or, when both
   carry triples, the same subject and predicate with objects that share no word ("is" + "written
   in Rust" is the slot "is written in"). Not for predicates that hold many values at once
   ("likes", "uses", "is a fan of": "I like tea" and "I like coffee" are both true), except a
   name ("a dog named Luna / Max"), one exclusive word for another and nothing else ("I have
   long / short hair"), one role ("uses Zsh / Fish as my shell"), and a correction, which
   replaces what it corrects ("No, the build uses Maven."; the item's ``kind``, or a statement that
   says it replaces: "… instead", "now", "the launch slipped / was moved to …", "we moved the bucket to …")
   — a correction, whether it is the new statement or the old one,
   that names another value than the old one contradicts it ("No, the repo is MIT licensed." /
   "The repo's license is Apache 2.0."); not when the new
   one adds ("… too", "also"); and not when the differing words open both sentences — then they
   name the subject ("the staging / production cluster has autoscaling", rule 9). "Only X" leaves no room
   for another value of the same statement ("we've only been playing on clay" / "… on hard courts"),
   unless numbers changed or "only" opens a bound ("only Node 20 and newer"). Two statements that say
   nothing but one value each of one exclusive set fill the same slot ("I'm married" / "I got divorced").
9. ``other_subject`` / ``other_object``: the same predicate and object of another subject ("the
   main / release branch is protected"), or another object of a many-valued predicate, other
   names or numbers on both sides that rule 7/8 did not take as a conflict, other members of an
   exclusive set, or one more thing ("… too") — two facts, both kept.
10. ``added_detail``: one says everything the other does plus a little more (no more added words
    than shared ones) — a paraphrase, when the cosine is at least ``detail_cosine``.
11. ``close_wording``: cosine ≥ ``paraphrase_cosine`` and no conflict found — a paraphrase.
12. otherwise ``different``: two facts that can both be true.

When no rule finds a contradiction between two statements of which one has several clauses
("…; …", "… but …", "…, which …", "…, I …"), rules 2–9 run on each pair of clauses (the same cosine): a
conflict with one clause is a contradiction, its reason suffixed ``_in_clause`` ("I love new cities,
but I have a low budget" / "I have a high budget").

This follows how Graphiti invalidates an edge only on an explicit conflict between facts and
how Mem0 sorts a new memory into ADD / UPDATE / NOOP against its neighbours: similarity finds
the candidates, and only a real conflict (same slot, another value; or a negation) counts as a
contradiction. Thresholds were chosen on the tuning half of tests/data/knowledge_pairs.jsonl and
are reported on the held-back half (docs/analysis.md, ``scripts/eval_knowledge.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import snowballstemmer

from kgmem.analysis.negation import AFFIRMING, AVOIDING, main_clause, negated_opposite
from kgmem.analysis.quantities import spell_quantities
from kgmem.analysis.updates import CORRECTION, ENDED, REPLACED_WITH, REPLACES

Relation = Literal["paraphrase", "contradiction", "unrelated"]


@dataclass(frozen=True)
class Statement:
    """What the judge compares: an item's text, when the extractor gave one its triple, and its
    type (``fact``, ``correction``, …): a correction replaces what it corrects, whatever the verb."""

    content: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The relation of a new statement to an old one, the rule that decided it, and the cosine."""

    relation: Relation
    reason: str
    similarity: float


@dataclass(frozen=True)
class Thresholds:
    """Cosine thresholds of the rules (all-MiniLM-L6-v2, unit vectors)."""

    related_cosine: float = 0.50
    detail_cosine: float = 0.65
    paraphrase_cosine: float = 0.70


DEFAULT = Thresholds()

_STEMMER = snowballstemmer.stemmer("english")
_TOKEN = re.compile(r"\$?[a-z0-9]+(?:[.:/,_+#-][a-z0-9]+)*%?")
_CONTRACTIONS = [(re.compile(p), r) for p, r in (
    (r"\bcan't\b", "can not"), (r"\bwon't\b", "will not"), (r"n't\b", " not"),
    (r"'(?:m|s|re|ve|d|ll)\b", ""), (r"[’]", "'"),
    (r"\bno[\s-]+one\b", "nobody"),  # "no one" is no number one
)]
# Phrases said two ways: a frequency ("every week" = "weekly"; "every two weeks" = "biweekly") and
# "not … often" = "rarely", which is a frequency, not a negation of the whole statement.
_PHRASES = [(re.compile(p), r) for p, r in (
    # a restatement's preamble says nothing of the fact ("As I said, …", "Just to confirm, …")
    (r"\b(?:as|like)\s+(?:i|we)\s+(?:said|mentioned|told\s+you|noted|wrote|explained)"
     r"(?:\s+(?:before|earlier|already|previously))?\b|\bas\s+(?:mentioned|noted|said)(?:\s+(?:before|earlier))?\b"
     r"|\b(?:just\s+)?to\s+(?:confirm|repeat|reiterate|recap|be\s+clear)\b|\bfor\s+the\s+record\b", ""),
    (r"\bevery\s+(?:other|two|2)\s+weeks\b", "biweekly"),
    (r"\b(?:every|each|per|an?)\s+hour\b", "hourly"),
    (r"\b(?:every|each|per|an?)\s+(day|week|month|year)\b", r"\1ly"),
    (r"\bdayly\b", "daily"),
    (r"\bnot\b((?:\s+(?!not\b)[a-z]+){0,3}?)\s+(?:very\s+|that\s+)?often\b", r"\1 rarely"),
    # a stance against something is its negation ("I've decided against the Pinot")
    (r"\b(decided?|voted?|i|we|am|are|is)\s+against\b", r"\1 not"),
    (r"\b(?:take|takes|took|taken|taking)\s+up\b", "start"),
    (r"\b(?:give|gives|gave|given|giving)\s+up(?:\s+on)?\b", "stop"),  # "I've given up on starting a studio"
    (r"\b([a-z]+)-free\b|\bfree\s+of\s+([a-z]+)\b", lambda m: f"no {m.group(1) or m.group(2)}"),  # "free of work"
    # indifference is having no preference ("any flight time works" = "I don't have a preferred flight time")
    (r"\bany\s+((?:[a-z]+\s+){1,3}?)(?:works|will\s+do|is\s+fine|is\s+ok(?:ay)?)\b", r"no preferred \1"),
    # not able to decide is still deciding ("I can't make up my mind between …" = "trying to decide between …")
    (r"\b(?:can|could)\s+not\s+(?:make\s+up\s+(?:my|our|their|his|her)\s+minds?|decide)\b|\bundecided\b",
     "still deciding"),
    # to limit a thing is to have not much of it ("I try to limit snacks" = "I try not to buy many snacks");
    # as a noun ("the rate limit is 100") it is no negation, nor is a reduction by an amount ("to reduce my
    # body fat by 5%" = "to cut my body fat by five percent": a target)
    (r"\b(to|i|we|you|they)\s+(?:limit|reduce|minimi[sz]e|cut\s+(?:down|back)\s+on)\b"
     r"(?!(?:\s+[\w'-]+){1,5}?\s+(?:by|to)\s+\d)", r"\1 not much"),
    # "no merging until the tests pass" = "the tests pass before merging": an order, not a negation
    (r"\b(?:no|not|never|nothing|nobody)\b((?:\s+(?!not\b|no\b)[a-z']+){1,6}?)\s+(?:until|unless)\b", r"\1 before"),
    # the verb "own" is content ("I don't own it anymore"); "my own" is not
    (r"\b(i|we|you|they|not|who|still|longer|also)\s+own\b", r"\1 owns"),
    # an intention or a decision is said of the act itself: "I'm planning to visit Yosemite" / "I've decided not
    # to go to Yosemite after all" speak of visiting it (still under way is read from the raw text)
    (r"\b(?:decided?|deciding|planning|plan|planned|intend|intends|intending|intended|hoping|hope|meaning)"
     r"\s+(not\s+)?to\b", r"\1"),
    (r"\bafter\s+all\b", ""),
    (r"\bdecided\s+(not\b)?", r"\1"),  # "I've decided against the Weber" = "not the Weber"
    (r"(?<![\d.,:])\b0\s+(?=[a-z]{3,})", "no "),  # "zero interest" = "no interest" (spelled "0" by then)
    (r"\b(is|are|was|were|be|been|get|gets|got)\s+blocked\b", r"\1 banned"),  # "force-pushing to main is blocked"
    (r"\btim(?:e|es|ed|ing)\s+out\b", "timeout"),  # "times out after 5 seconds" = "a 5-second timeout"
    (r"\bshut(?:s|ting)?\s+down\b", "shutdown"),  # "to be shut down in March" / "the shutdown"
    (r"\bnot\s+(?:so\s+|that\s+)?long\s+ago\b", "recently"),  # a time, not a negation
    # when it happened is not what happened: "I quit coffee last month" / "I drink coffee every morning"
    (r"\b(?:last|this\s+past|past)\s+(?:week|weekend|month|year|quarter|spring|summer|fall|autumn|winter)\b", ""),
    (r"\bwrapped\s+up\b", "finished"),
    # a correction's opener is no content, and "No, …" opening a correction denies the old value, not its own
    (r"^\s*(?:correction|update)\s*:|^\s*no\s*,", ""),
    # one name said three ways: "my cat's name is Pixel" = "my cat is called Pixel" = "a cat named Pixel"
    (r"\b(?:name\s+is|(?:is|are|was)\s+(?:called|named))\b", "named"),
    (r"\bevery\s+(?:second|2nd)\b", "every other"),
    (r"\b(?:one|1)-on-(?:one|1)\b", "1:1"),
    # a unit glued to its number is the same quantity ("4gb" = "4 GB", "70-300mm" = "70-300 mm")
    (r"\b(\d+(?:\.\d+)?)(mm|cm|km|kg|kb|mb|gb|tb|kib|mib|gib|tib|ms|ghz|mhz|px)\b", r"\1 \2"),
    (r"\bnight owl\b", "night person"), (r"\bearly (?:bird|riser)\b", "morning person"),
    (r"\bmid-range\b", "midrange"), (r"\bhigh-end\b", "upscale"), (r"\blow-end\b", "budget"),  # one word each
    (r"\b(?:version\s+|v)(\d+(?:\.\d+)*)\b", r"\1"),  # "v3" = "version 3" = "3"
    (r"\b([a-z]+\d+)s\b", r"\1"),  # "A100s" are "A100 GPUs"
    (r"\b([a-z]+)-(\d+(?:\.\d+)+)\b", r"\1 \2"),  # "Apache-2.0" = "Apache 2.0"  # "jargon-free" = "no jargon"
    (r"\b(?:going|gonna|tend|tends|tended)\s+to\b|\bgonna\b", ""),  # "I'm going to stop …" = "I'll stop …"  # "took up running" = "started running"
    # one spelling per clock time: "2 am" = "02:00" = "2"; "6 pm" = "18"; "6:30 am" = "6:30"
    (r"\b0?(\d{1,2})(?::00)?\s*(?:a\.m\.|am)(?![a-z])", r"\1"),
    (r"\b0?(\d{1,2})(:[0-5]\d)?\s*(?:p\.m\.|pm)(?![a-z])",
     lambda m: f"{int(m.group(1)) % 12 + 12}{m.group(2) or ''}"),
    (r"\b0?(\d{1,2}):00\b", r"\1"),
    (r"\b0(\d:[0-5]\d)\b", r"\1"),  # "03:15" = "3:15"
    (r"\b(\d+)-(?=[a-z]{3,}\b)", r"\1 "),  # "a 5-night stay" says "5 nights"
)]
# Past forms the stemmer leaves apart from their verb ("felt" / "feel").
_IRREGULAR = dict(pair.split(":") for pair in """
felt:feel had:have got:get gotten:get took:take taken:take went:go gone:go made:make bought:buy
thought:think ran:run began:begin begun:begin left:leave kept:keep found:find told:tell heard:hear
wrote:write written:write spent:spend sent:send built:build lost:lose paid:pay met:meet sold:sell
taught:teach brought:bring caught:catch gave:give given:give came:come became:become chose:choose
chosen:choose drove:drive driven:drive ate:eat eaten:eat saw:see seen:see knew:know known:know
grew:grow grown:grow flew:fly flown:fly held:hold won:win sat:sit slept:sleep stood:stand
understood:understand did:do done:do ran:run read:read set:set put:put cut:cut
""".split())
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
# A month is a number of a date ("February 10th" / "March 3rd" is another date); "may" is a verb too often.
_NUMBER_WORDS.update({m: f"month{i}" for i, m in enumerate(
    "january february march april _ june july august september october november december".split(), 1) if m != "_"})
_NUMBER_WORDS.update(twenty="20", thirty="30", forty="40", fifty="50", hundred="100", thousand="1000",
                     single="1", once="1", twice="2", half="0.5", dozen="12")
# Words that carry no content for the comparison (articles, pronouns, auxiliaries, hedges).
_STOP = frozenset("""
a an the this that these those it its i me my mine we us our ours you your he she his her they them their
user users team s is are was were be been being am do does did done have has had having will would shall
should can could may might must to of in on at for with by from into onto about as than then so and or but
if there here what which who whom whose when where how all any some each every both own same such very
really just also actually now currently lately still usually typically normally generally always
around roughly approximately nearly almost probably maybe perhaps please kind sort quite pretty too much many more most lot lots
least only something yet
using use used uses get gets got getting make makes made thing things way ve ll re m d t one
dollars dollar usd euros euro eur pounds pound gbp bucks
""".split())
# Stance words: "like", "love", "prefer"… say the same thing for our purpose; "hate" says the opposite.
_POSITIVE = frozenset("like likes liked love loves loved enjoy enjoys enjoyed prefer prefers preferred "
                      "fond favourite favorite want wants".split())
# Compared by stem, so every form counts ("skipping", "cancelled"); ending or dropping a thing denies it
# ("we dropped the plan to …", "the switch is cancelled", "deploys on Tuesday are banned").
_NEGATIVE = frozenset(_STEMMER.stemWord(w) for w in (
    "hate dislike avoid miss skip forget forgot fail "  # "never miss" = "always go"
    "drop dropped cancel cancelled canceled abandon scrap scrapped ditch ditched ban banned shelve "
    "refuse reject rejected decline declined discontinue deprecate deprecated remove removed delete deleted lack "
    "retire retired doubt").split())
# "under X" says "not over X": a bound stated either way ("must not take longer than 10 minutes").
_BELOW = frozenset("under below less fewer shorter within".split())
_NEGATION = frozenset("not no never without outside hardly barely scarcely cannot unable except stop stops stopped stopping quit quits quitting anymore nobody "
                      "nothing none neither nor".split())
# Predicates under which one subject holds many objects: a new object is news, not a conflict.
_MULTI_VALUED_VERBS = ("like love enjoy use have own play read watch visit know speak collect take keep store host "
                       "track maintain manage build write ship teach practise practice hate dislike follow").split()
# ... and nouns that say the same after "is": one is a fan of many teams at once
_MULTI_VALUED_FORMS = frozenset(f for v in _MULTI_VALUED_VERBS
                                for f in (v, v + "s", v + "es", v + "d", v + "ed", v + "ing", v[:-1] + "ing")
                                ) | frozenset("fan fans".split())
_COPULA = frozenset("is am are was were be been".split())
# Mutually exclusive classes: a word of one class and a word of another class of the same set, in the
# same slot, are two values ("production" / "staging"); words of one class are synonyms ("concise" / "short").
_EXCLUSIVE_SETS = (
    "production prod live|staging stage|development dev|qa|sandbox",
    "dark|light", "enabled enable on|disabled disable off", "open opened|closed close shut", "public|private",
    "true|false", "concise short brief terse|detailed long verbose lengthy thorough",
    "daily|nightly|weekly|biweekly fortnightly|monthly|yearly annually annual|hourly",
    "british uk|american us", "synchronous sync|asynchronous async", "morning|afternoon|evening|night",
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday", "first|second|third|last",
    "small little tiny|medium|large big huge", "manual manually|automatic automatically",
    "allowed permitted|forbidden prohibited",
    "required mandatory|optional", "before|after", "city|suburbs suburb|countryside", "yes|no",
    "often frequently regularly|rarely seldom", "real actual|mock mocked fake stub stubbed",
    "black|white|grey gray|red burgundy maroon|blue navy|green|yellow|orange|purple|pink|brown", "free|paid",
    "good well great excellent positive best|bad badly poor poorly terrible negative disappointing awful worst|mixed",
    "spring|summer|autumn fall|winter", "low|high", "early|late", "fast quick|slow", "hot|cold",
    "easy simple|difficult", "strict|lenient loose relaxed", "remote remotely|onsite|hybrid", "indoor indoors|outdoor outdoors",
    "single|married|divorced|engaged", "north northern|south southern|east eastern|west western",
    "beginner novice|intermediate|advanced expert", "major|minor|patch", "ascending|descending",
    "horizontal|vertical", "relative|absolute", "mutable|immutable", "stateless|stateful", "eager|lazy",
    "window|aisle", "tabs|spaces", "stairs|elevator lift", "weekday weekdays|weekend weekends", "uppercase|lowercase", "introvert introverted|extrovert extroverted",
    "include included|exclude excluded", "increase increased|decrease decreased",
    "maximum max|minimum min", "upper|lower",
    "budget cheap inexpensive affordable|midrange moderate|luxury luxurious upscale premium",
)
_EXCLUSIVE = [[c.split() for c in classes.split("|")] for classes in _EXCLUSIVE_SETS]
_EXCLUSIVE_STEMS = [[frozenset(_STEMMER.stemWord(_IRREGULAR.get(w, w)) for w in c) for c in classes]
                    for classes in _EXCLUSIVE]
# The words of one class are synonyms: each is compared as the class's first word ("excellent cook" =
# "best cook", "concise" = "short"), except words with another everyday sense ("I live in", "on", "us").
_AMBIGUOUS = frozenset("live on us well close actual".split())
_CANON = {stem: _STEMMER.stemWord(_IRREGULAR.get(c[0], c[0])) for classes in _EXCLUSIVE for c in classes
          for stem in (_STEMMER.stemWord(_IRREGULAR.get(w, w)) for w in c) if stem not in _AMBIGUOUS}
# a dot inside a token is no sentence end ("not .format()", "rather than str.format")
_PHRASE_END = r"(?:[^,.;!?]|\.(?=\w))+"
_DENIAL = re.compile(rf"(?:,|;|—|-|\(|\band\b)\s*(?:not|never)\s+(?P<y>{_PHRASE_END})|\b(?:instead of|rather than)\s+(?P<z>{_PHRASE_END})",
                     re.I)
_DETERMINERS = frozenset("a an the this that these those my our your their its his her all every each some".split())
# Progress of one thing: still under way or already done ("still deciding" / "already decided").
_DONE = frozenset("already finished completed".split())
_PENDING = re.compile(r"\b(?:trying|meaning|planning|hoping|wanting|want|wanna|plan|hope|intend|intending)\s+to\b"
                      r"|\bthinking\s+(?:of|about)\b|\bconsidering\b", re.I)
_CLAUSE = re.compile(r";|,?\s+but\s+|,\s+(?:and|so|which|while|whereas|although|though|since)\s+"
                     r"|\s+(?:because|although|though|whereas)\s+"
                     # a comma before a new subject and its verb starts a clause of its own ("I returned the palette,
                     # I didn't like it")
                     r"|,\s+(?=(?:i|we|they|he|she)(?:'[a-z]+)?\s)", re.I)
# the stretches a negation's count is kept within: "returning the mixer, it just wasn't for me" says no twice,
# and the two do not cancel (they do within one stretch: "I never miss a game")
_OPENER = re.compile(r"^\s*(?:no|correction|update)\s*[,:]", re.I)
_SEGMENT = re.compile(r"[,;:]|\s+[-—]\s+|\s+but\s+", re.I)
# "moved / switched / migrated from X to Y" says "not X"
_SWITCH = re.compile(r"\b(?:mov|switch|migrat|chang|transition|shift)\w*\s+(?:\w+\s+){0,3}?(?:from|off(?:\s+of)?|out\s+of|away\s+from)\s+"
                     r"(?P<x>[^,.;!?]+?)\s+(?:over\s+)?(?:to|onto|into|for)\s+", re.I)
# "moved X off / out of Y" with no new value named: Y no longer holds ("We moved SCIM provisioning off JumpCloud.")
_MOVED_OFF = re.compile(r"\b(?:mov|migrat|switch|took|taken|take|rip|pull)\w*\s+(?:[\w-]+\s+){0,3}?(?P<prep>off(?:\s+of)?|out\s+of"
                        r"|away\s+from)\s+(?P<x>[^,.;!?]+?)\s*(?:[,.;!?]|$)", re.I)
_PENDING_OR = {"not yet": "pending"}  # "not decided yet" is a thing under way
_STILL_NOT = re.compile(r"\bstill\s+(?:has|have|had)\s*(?:not|n't)\b|\bstill\s+(?:hasn|haven|hadn)'?t\b", re.I)
_ROLE = re.compile(r"\bas\s+(?:my|our|the|a|an|their|his|her)\s+(?:main\s+|default\s+|primary\s+)?([a-z]+)\b", re.I)
_ONLY = re.compile(r"(?<!not )(?<!the )(?<!if )\bonly\b", re.I)
_ADDITIVE = re.compile(r"\b(?:too|as well)\W*$|\balso\b", re.I)
_ORDER = re.compile(r"(?P<a>[\w .+#-]+?)\s+(?:over|rather than|than|instead of|before)\s+(?P<b>[\w .+#-]+)"
                    r"|\bprefer(?:s|red)?\s+(?P<pa>[\w .+#-]+?)\s+to\s+(?P<pb>[\w .+#-]+)", re.I)


_ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    low = _ACRONYM_PLURAL.sub(r"\1", text).lower()  # "PRs" = "PR", "APIs" = "API"
    for pattern, repl in _CONTRACTIONS:
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
    for pattern, repl in _PHRASES:
        low = pattern.sub(repl, low)
    out = []
    for tok in _TOKEN.findall(low):
        tok = tok.rstrip(",")
        if _RANGE.match(tok):  # "20-25" says "20 to 25", "8am" says "8 am"
            out.extend(_number(t) for t in _RANGE_PART.findall(tok))
            continue
        tok = _number(tok)
        if "-" in tok and not _is_number(tok):  # "squash-merge" says "squash merge"; "us-east-1" is a value
            out.extend(_NUMBER_WORDS.get(t, t) for t in tok.split("-") if t)
        else:
            out.append(_NUMBER_WORDS.get(tok, tok))
    return tuple(out)


# the words the rewrites of kgmem.analysis.negation start from; a text without them skips those patterns
_NEGATION_WORD = re.compile(r"\b(?:not|no|never|nobody|nothing|none|without|hardly|barely|scarcely|almost)\b")
_AWAY = re.compile(r"\b(?:away|clear|out\s+of)\b")
_RANGE = re.compile(r"^\$?\d+(?:\.\d+)?(?:-\$?\d+(?:\.\d+)?|am|pm)$")
_RANGE_PART = re.compile(r"\$?\d+(?:\.\d+)?|am|pm")
_PLAIN_NUMBER = re.compile(r"^[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(k|m|bn|st|nd|rd|th|%)?$")
_SCALE = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000}


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


def _is_number(tok: str) -> bool:
    return any(c.isdigit() for c in tok)


@lru_cache(maxsize=16384)  # the pure-Python stemmer is most of the judge's time; words repeat
def _stem(tok: str) -> str:
    if _is_number(tok) or not tok.isalpha():
        return tok
    stem = _STEMMER.stemWord(_IRREGULAR.get(tok, tok))
    return _CANON.get(stem, stem)


@dataclass(frozen=True)
class _Parsed:
    content: frozenset[str]          # content stems (no stop, stance or negation words)
    negated: bool                    # odd number of negations / negative stance words
    denied: frozenset[str]           # stems of the Y of "…, not Y"
    order: tuple[frozenset[str], frozenset[str]] | None  # "A over B"
    values: frozenset[str]           # stems that look like values (numbers, names, code-like tokens)
    multi_valued: bool
    sequence: tuple[str, ...]        # the content stems in the order they are said
    opens_with_content: bool         # only articles, pronouns and the like before the first content word
    additive: bool                   # "… too", "also": one more value, not another one
    progress: str | None             # "pending" ("still deciding"), "not yet" or "done" ("already", "finished")
    role: str | None                 # "as my shell": the one slot a many-valued verb fills here
    clauses: tuple[tuple[bool, frozenset[str]], ...]  # (negated, content) of each clause
    replaces: bool                   # "… instead", "moved to …": it replaces what was said before
    stance: bool                     # a preference is stated ("like", "prefer", "love" …)
    only: bool                       # "only X": nothing else in its slot ("we only play on clay")
    affirmed: frozenset[str]         # the value X it moved to from the denied Y ("from Y to X", "replaced Y with X")


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
    elif _DONE & set(words):
        progress = "done"
    elif _PENDING.search(body):  # "trying to decide", "meaning to try" / "already decided", "already played"
        progress = "pending"
    return negations % 2 == 1, progress


def _negations(words: tuple[str, ...]) -> int:
    negations = sum(1 for i, w in enumerate(words) if w in _NEGATION or _negative(w) or _bound(words, i))
    # "no longer" and "not anymore" are one negation, as are "don't … anymore"
    if "anymore" in words and ("not" in words or "no" in words):
        negations -= 1
    return negations


def _negated(text: str) -> bool:
    """Is some stretch of the text negated? Negations cancel in pairs within a stretch only."""
    if _OPENER.match(text):  # "No, the deploy target is Fly.io": the "No" denies the old value, not this one
        text = _OPENER.sub("", text)
    if _negations(_words(text)) < 2:  # one negation or none: the stretches cannot differ from the whole
        return _polarity(text, _words(text))[0]
    return any(_polarity(part, _words(part))[0] for part in _SEGMENT.split(text))


def _content_of(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_stem(w) for w in words
                     if w not in _STOP and w not in _NEGATION and w not in _POSITIVE and not _negative(w)
                     and w != "longer")


def _clauses(body: str) -> tuple[tuple[bool, frozenset[str]], ...]:
    """(negated, content) of each clause: a negation speaks of its own clause ("I want to try the local
    flavors, but I can't handle much spice" denies nothing about the flavors)."""
    out = []
    for part in _CLAUSE.split(body):
        content = _content_of(_words(part))
        if content:
            main = main_clause(part)  # "people who can't make it": the negation speaks of the relative clause
            out.append((_negated(main), content))
    return tuple(out)


@lru_cache(maxsize=4096)
def _parse(text: str) -> _Parsed:
    denied: set[str] = set()
    affirmed: list[str] = []
    body = text
    m = _DENIAL.search(text)
    if m:
        denied = {_stem(w) for w in _words(m.group("y") or m.group("z")) if w not in _STOP}
        body = text[: m.start()]  # "X, not Y": the stance of the sentence is X's
    else:
        m = _SWITCH.search(text) or REPLACED_WITH.search(text)
        if m:  # "we moved from Slack to Teams": Slack is no longer what is said of us
            denied = {_stem(w) for w in _words(m.group("x")) if w not in _STOP}
            body = text[: m.start("x") - len("from ")] + text[m.end("x"):]
            # the first word it moved to
            affirmed = [w for w in _words(re.split(r"[,;!?]|\.(?!\w)", text[m.end():])[0]) if w not in _STOP][:1]
        elif m := _MOVED_OFF.search(text):
            denied = {_stem(w) for w in _words(m.group("x")) if w not in _STOP}
            body = text[: m.start("prep")] + text[m.end("x"):]
    words = _words(body)
    main = main_clause(body)
    progress = _polarity(main, _words(main))[1]
    negated = _negated(main)
    content = _content_of(words)
    values = frozenset(_stem(w) for w in _value_words(body))
    order = None
    o = _ORDER.search(body)
    if o:
        first, second = (o.group("a"), o.group("b")) if o.group("a") else (o.group("pa"), o.group("pb"))
        a, b = _content_stems(_words(first)), _content_stems(_words(second))
        if a and b:
            order = (a, b)
    multi = any(w in _MULTI_VALUED_FORMS for w in words)
    sequence = tuple(_stem(w) for w in words if _stem(w) in content)
    # the subject opens the sentence after at most a determiner ("the staging cluster"); after "I have" or
    # "use", the first content word is already the object ("I have long hair")
    first = next((w for w in words if w not in _DETERMINERS), None)
    role = _ROLE.search(body)
    return _Parsed(content, negated, frozenset(denied), order, values, multi, sequence,
                   first is not None and _stem(first) in content, bool(_ADDITIVE.search(body)), progress,
                   _stem(role.group(1).lower()) if role else None, _clauses(body),
                   bool(REPLACES.search(body)), any(w in _POSITIVE for w in words), bool(_ONLY.search(body)),
                   frozenset(_stem(w) for w in affirmed))


def _content_stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_stem(w) for w in words
                     if w not in _STOP and w not in _NEGATION and w not in _POSITIVE and not _negative(w))


@lru_cache(maxsize=8192)
def _negative(word: str) -> bool:
    """A word of negative stance or of ending a thing, in any of its forms."""
    return word.isalpha() and _STEMMER.stemWord(word) in _NEGATIVE


def _bound(words: tuple[str, ...], i: int) -> bool:
    """"under / less than / within" a number is a bound ("under 10 minutes" = "not over 10 minutes");
    elsewhere ("under better control", "licensed under Apache-2.0") it is an ordinary word."""
    after = words[i + 1:i + 3]
    return words[i] in _BELOW and bool(after) and (_QUANTITY.match(after[0]) is not None or (
        after[0] == "than" and len(after) > 1 and _QUANTITY.match(after[1]) is not None))


def _value_words(text: str) -> list[str]:
    """Tokens that name a value: numbers, code-like tokens, capitalised words not starting the sentence."""
    out = []
    raw = re.findall(r"[\w$.:/,+#-]+", text)
    for i, tok in enumerate(raw):
        tok = tok.strip(".,:;")
        if not tok:
            continue
        low = tok.lower()
        if low in _STOP or low in _NEGATION:
            continue
        # a number, a code-like token ("snake_case", "camelCase", "eu-west-1"), a capitalised name
        if (_is_number(tok) or re.search(r"[./_-]", tok) or (i > 0 and tok[0].isupper()) or tok.isupper()
                or re.search(r"[a-z][A-Z]", tok)):
            out.extend(_words(tok))
    return out


def _exclusive(a: frozenset[str], b: frozenset[str]) -> bool:
    """One side has a word of one class of an exclusive set, the other a word of another class."""
    for classes in _EXCLUSIVE_STEMS:
        in_a = {i for i, c in enumerate(classes) if a & c}
        in_b = {i for i, c in enumerate(classes) if b & c}
        if in_a and in_b and not in_a & in_b:
            return True
    return False


def _terms(text: str | None) -> frozenset[str]:
    if not text:
        return frozenset()
    return frozenset(_stem(w) for w in _words(text) if w not in _STOP and w not in _POSITIVE)


def _exact_terms(text: str | None) -> frozenset[str]:
    """Every word's stem: predicates ("is", "loves") are compared whole."""
    return frozenset(_stem(w) for w in _words(text or ""))


def judge(new: Statement, old: Statement, similarity: float, thresholds: Thresholds = DEFAULT) -> Verdict:
    """The relation of ``new`` to ``old`` (see the module docstring for the rules, in order)."""
    found = _judge_whole(new, old, similarity, thresholds)
    if found.relation == "contradiction" or found.reason in ("distant", "same_words"):
        return found
    parts_new, parts_old = _CLAUSE.split(new.content), _CLAUSE.split(old.content)
    if len(parts_new) == 1 and len(parts_old) == 1:
        return found
    # one clause of a longer statement may be what the other contradicts ("I'm interested in local
    # flavors but I have a low tolerance for spice" / "I have a high tolerance for spice")
    for part_new in parts_new:
        for part_old in parts_old:
            clause = _judge_whole(Statement(part_new, kind=new.kind), Statement(part_old, kind=old.kind), similarity,
                                  thresholds)
            if clause.relation == "contradiction" and not (
                    clause.reason == "negation" and _negation_shared(part_new, part_old, new.content, old.content)) and not (
                    clause.reason == "progress" and _parse(new.content).progress == _parse(old.content).progress):
                # (two statements that, whole, say a thing is done, agree: "just finished Sapiens, so now I want
                # to read more history" / "just finished Sapiens and I'm interested in history")
                return Verdict("contradiction", f"{clause.reason}_in_clause", float(similarity))
    return found


def _negation_shared(part_new: str, part_old: str, new: str, old: str) -> bool:
    """The negated one of two clauses is denied by the other statement too, in another clause."""
    a, b = _parse(part_new), _parse(part_old)
    if a.negated == b.negated:
        return False
    negated, other_whole = (a, _parse(old)) if a.negated else (b, _parse(new))
    if _affirms_elsewhere(_parse(new) if a.negated else _parse(old), other_whole):
        return True
    return _denied_by_both(negated.content, other_whole)


def _judge_whole(new: Statement, old: Statement, similarity: float, thresholds: Thresholds) -> Verdict:
    def verdict(relation: Relation, reason: str) -> Verdict:
        return Verdict(relation, reason, float(similarity))

    if similarity < thresholds.related_cosine:
        return verdict("unrelated", "distant")
    n, o = _parse(new.content), _parse(old.content)
    if _denied(n, o) or _denied(o, n):
        return verdict("contradiction", "denied")
    if n.order and o.order and _swapped(n.order, o.order):  # what was preferred is now the one passed over
        return verdict("contradiction", "reversed")
    if _passed_over(n, o) or _passed_over(o, n):  # "I prefer Firefox" / "I prefer Chrome over Firefox"
        return verdict("contradiction", "reversed")
    shared = n.content & o.content
    if {_PENDING_OR.get(n.progress, n.progress), _PENDING_OR.get(o.progress, o.progress)} == {"pending", "done"} and 2 * len(shared) >= min(len(n.content), len(o.content)):
        return verdict("contradiction", "progress")  # "still deciding on a mouse" / "already decided on a mouse"
    only_new, only_old = _spelled_out(new.content, old.content, n.content - o.content, o.content - n.content)
    # "haven't decided yet" / "still deciding": two ways of saying a thing is under way
    opposed = n.negated != o.negated and {n.progress, o.progress} != {"pending", "not yet"}
    if opposed and negated_opposite(*((only_new, only_old) if n.negated else (only_old, only_new)), _EXCLUSIVE_STEMS):
        # "the repo isn't public" / "the repo is private": "not X" of a two-valued set is its other value
        if not (only_new | only_old) - _all_exclusive():
            return verdict("paraphrase", "negated_opposite")
        opposed = False
    if opposed and shared and (n if n.negated else o).content <= shared:
        # the negated side denies what the other says, or all of some of it ("no stress" / "stress and grief")
        return verdict("contradiction", "negation")
    if opposed and (_denies_a_clause(n, o) or _denies_a_clause(o, n)):
        return verdict("contradiction", "negation")
    if _prefix_negated(n.content - o.content, o.content - n.content):
        return verdict("contradiction", "negation")  # "the backups are encrypted" / "… stored unencrypted"
    if not only_new and not only_old:
        return verdict("paraphrase", "same_words")
    if shared and only_new and only_old:
        if all(_is_number(w) for w in only_new | only_old):
            return verdict("contradiction", "other_number")
        if not n.additive and (_other_value(new, old, n, o, only_new, only_old)
                               or ((_replaces(new, n) or _corrects(old)) and only_new & n.values and only_old & o.values)):
            # a correction that names another value replaces the one said ("No, the repo is MIT licensed.")
            if _leading(n, only_new) and _leading(o, only_old):
                return verdict("unrelated", "other_subject")  # "the staging / production cluster has autoscaling"
            return verdict("contradiction", "other_value")
        if _only_other(n, o, shared, only_new, only_old):
            return verdict("contradiction", "other_value")  # "we only play on clay" / "we play on hard courts"
    if any(_is_number(w) for w in only_new) and any(_is_number(w) for w in only_old):
        if shared and _units_beside_numbers(n, only_new) and _units_beside_numbers(o, only_old):
            return verdict("contradiction", "other_number")  # "512 MiB" / "1 GiB", "a longer hike, 5 hours" / "a short one, 1"
        if shared and _one_number_replaced(n, o, only_new, only_old):
            return verdict("contradiction", "other_number")  # "I think I can give 3 hours a week" / "only 1 hour a week"
        if shared and (_replaces(new, n) or _replaces(old, o)) and _one_quantity_each(only_new, only_old):
            return verdict("contradiction", "other_number")  # "We run ClickHouse with 8 shards now" / "four shards"
        return verdict("unrelated", "other_subject")  # a paraphrase keeps its numbers
    if _other_subject(new, old):
        return verdict("unrelated", "other_subject")
    if only_new and only_old and (_same_slot_other_object(new, old) or (only_new <= n.values and only_old <= o.values)):
        return verdict("unrelated", "other_object")  # "likes tea" / "likes coffee": both can be true
    if only_new and only_old and _exclusive(only_new, only_old):
        if not shared and not (only_new | only_old) - _all_exclusive() and not (n.additive or o.additive):
            # nothing said but one value of a set each: the same slot ("I'm married" / "I got divorced")
            return verdict("contradiction", "other_value")
        return verdict("unrelated", "other_object")  # "deploys to production are frozen" / "to staging continue"
    if n.additive and not o.additive and only_new:
        return verdict("unrelated", "other_object")  # "… on Sundays too": one more thing, not the same one
    if not only_new or not only_old:
        # "a little more": no more added words than shared ones ("I love all dances" / "… running my own
        # dance studio" adds three)
        if similarity >= thresholds.detail_cosine and len(only_new | only_old) <= len(shared):
            return verdict("paraphrase", "added_detail")
    if similarity >= thresholds.paraphrase_cosine:
        return verdict("paraphrase", "close_wording")
    return verdict("unrelated", "different")


def _prefix_negated(only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """One side says "un-X" / "non-X" where the other says X ("unencrypted" / "encrypted")."""
    def negates(a: frozenset[str], b: frozenset[str]) -> bool:
        return any(w[len(p):] in b for w in a for p in ("un", "non") if w.startswith(p) and len(w) - len(p) >= 4)
    return negates(only_new, only_old) or negates(only_old, only_new)


def _denied(x: _Parsed, y: _Parsed) -> bool:
    """x says "…, not Y" / "… rather than Y" and Y is what y says — not what y passes over too
    ("tabs rather than spaces" / "tabs over spaces")."""
    if not x.denied or not x.denied <= y.content or x.denied <= x.content:
        return False
    if any(negated and x.denied <= words and (not words & x.content or words - x.denied <= x.content)
           for negated, words in y.clauses):
        return False  # y denies it too, in a clause of its own: "correctness, not style" / "correctness;
        # style isn't the point", or in a clause that says nothing x does not: "the tests run in CI, not locally" /
        # "we don't run the tests locally; CI runs them" (not "reviews aren't on Thursdays but Tuesdays", which
        # denies x)
    if y.order and x.denied <= y.order[1]:
        return False
    # y names the value x moved to as well: the same change said again ("move CI from Jenkins to Buildkite" /
    # "Jenkins to Buildkite for CI") — unless y puts the old value first ("Jenkins over Buildkite")
    return not (x.affirmed and x.affirmed <= y.content and not (y.order and x.denied <= y.order[0]))


def _denies_a_clause(x: _Parsed, y: _Parsed) -> bool:
    """A negated clause of one says what a clause of the other says (half their words or all of the
    negated one): "I'm not vegetarian anymore" / "I'm vegetarian", "the switch to pnpm is cancelled" /
    "we're switching to pnpm"."""
    if _affirms_elsewhere(x, y):
        return False
    for negated, words in x.clauses:
        if not negated or _denied_by_both(words, y) or words & y.denied:
            # what y denies too ("…, not the full suite" / "don't run the whole suite") they agree on
            continue
        for other_negated, other in y.clauses:
            shared = words & other
            if other_negated or not shared:
                continue
            if 2 * len(shared) >= max(len(words), len(other)) or words <= other:
                return True
            # half the words of the shorter clause: "I don't drink bourbon at all" / "I've been experimenting
            # with bourbon and bitters" — not beside a number, where the negation is a bound ("within 5 days")
            if 2 * len(shared) >= min(len(words), len(other)) and not any(_is_number(w) for w in words):
                return True
    return False


def _affirms_elsewhere(x: _Parsed, y: _Parsed) -> bool:
    """x, beside its negated clause, affirms in a clause of its own all of what y says of it: its negation
    speaks of another claim ("I can't tell red from green very well; I'm colorblind" / "I'm red-green
    colorblind")."""
    return len(x.clauses) > 1 and any(not negated and words <= y.content for negated, words in x.clauses)


# a low amount of a thing says much what "not much" says ("a low tolerance for spice" / "can't handle much spice")
_SCARCE = frozenset({"low"})


def _denied_by_both(words: frozenset[str], y: _Parsed) -> bool:
    """A negated clause whose thing the other statement denies too, in a negated clause of its own
    ("I tried oat milk, but I'm not a fan of the taste" / "I don't like how oat milk tastes, though I
    tried it"), or says there is little of it: the two agree about it."""
    return any((negated or other & _SCARCE) and words & other for negated, other in y.clauses)


_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")
_ACRONYM_SKIP = frozenset("and of for the &".split())


def _spelled_out(new: str, old: str, only_new: frozenset[str], only_old: frozenset[str]
                 ) -> tuple[frozenset[str], frozenset[str]]:
    """An acronym on one side and its words on the other are the same thing ("NLP" / "Natural
    Language Processing"): both drop out of the words that differ."""
    only_new, only_old = _drop_acronyms(new, old, only_new, only_old)
    only_old, only_new = _drop_acronyms(old, new, only_old, only_new)
    return only_new, only_old


def _drop_acronyms(text: str, other: str, mine: frozenset[str], theirs: frozenset[str]
                   ) -> tuple[frozenset[str], frozenset[str]]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", other) if w.lower() not in _ACRONYM_SKIP]
    for acronym in _ACRONYM.findall(text):
        letters, stem = acronym.rstrip("s").lower(), _stem(_ACRONYM_PLURAL.sub(r"\1", acronym).lower())
        for i in range(len(words) - len(letters) + 1):
            run = words[i:i + len(letters)]
            stems = frozenset(_stem(w) for w in run)
            if "".join(w[0] for w in run) == letters and stem in mine and stems <= theirs:
                mine, theirs = mine - {stem}, theirs - stems
                break
    return mine, theirs


_NAMED = re.compile(r"\b(?:named|called|name\s+is)\s+((?:[A-Z][\w'-]*\s*)+)")


def _names(text: str) -> frozenset[str]:
    """The stems of the names given with "named" / "called"."""
    return frozenset(_stem(w) for m in _NAMED.finditer(text) for w in _words(m.group(1)))


def _passed_over(x: _Parsed, y: _Parsed) -> bool:
    """x prefers A over B, and y, stating a preference of its own without any order, prefers B alone
    (not A too)."""
    if not x.order or y.order or not y.stance or y.negated or x.negated:
        return False
    first, second = x.order[0] - x.order[1], x.order[1] - x.order[0]
    return bool(second) and second <= y.content and not first & y.content


def _swapped(new: tuple[frozenset[str], frozenset[str]], old: tuple[frozenset[str], frozenset[str]]) -> bool:
    """The words that tell the two sides of "over" apart swapped sides ("explicit imports to
    wildcard imports": "explicit" / "wildcard", the shared "imports" aside)."""
    new_first, new_second = new[0] - new[1], new[1] - new[0]
    old_first, old_second = old[0] - old[1], old[1] - old[0]
    return bool(new_first & old_second and new_second & old_first and not new_second & old_second)


def _units_beside_numbers(parsed: _Parsed, only: frozenset[str]) -> bool:
    """Besides the numbers that changed, at most one word changed, and it follows them (a unit:
    "512 MiB" / "1 GiB"); a word before them names another thing ("the cache / session TTL is 5 /
    30 minutes")."""
    words = [w for w in only if not _is_number(w)]
    if len(words) > 1:
        return False
    first_number = next(i for i, w in enumerate(parsed.sequence) if w in only and _is_number(w))
    return all(w in parsed.sequence[first_number:] for w in words)


_UNITS = frozenset(_STEMMER.stemWord(w) for w in (
    "second minute hour day week month year night mile km kilometer kilometre meter metre foot feet inch cm mm "
    "kg kilogram lb pound gram ounce liter litre gallon cup percent kb mb gb tb kib mib gib tib").split())


def _one_number_replaced(n: _Parsed, o: _Parsed, only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """One quantity on each side replaced the other; besides them words changed on one side only (a
    hedge, a clause: "I think I can give 3 hours" / "I can only give 1 hour") or values of one exclusive
    set changed, and no unit changed ("30 days" / "a month" may be one span said two ways)."""
    numbers_new = [w for w in only_new if _is_number(w)]
    numbers_old = [w for w in only_old if _is_number(w)]
    if len(numbers_new) != 1 or len(numbers_old) != 1 or not all(
            _QUANTITY.match(w) for w in numbers_new + numbers_old):  # "Java 17" / "eu-west-1" are names
        return False
    words_new, words_old = only_new - set(numbers_new), only_old - set(numbers_old)
    if words_new & _UNITS or words_old & _UNITS:
        return False
    # other words on both sides name another thing ("the staging database / API listens on 5432 / 8080"),
    # unless they are values of one exclusive set ("on Mondays at 6 pm" / "on Thursdays at 7:30 pm")
    if words_new and words_old and _leading(n, words_new) and _leading(o, words_old):
        return False  # they name the subject: "the staging / production database listens on 5432 / 5433"
    return not (words_new - _all_exclusive() and words_old - _all_exclusive())


_BOUND_WORDS = frozenset(_STEMMER.stemWord(w) for w in "newer older higher lower above below up later earlier".split())


def _only_other(n: _Parsed, o: _Parsed, shared: frozenset[str], only_new: frozenset[str],
                only_old: frozenset[str]) -> bool:
    """One side says "only X" where the other says another thing of the same statement (half the words of
    the shorter shared; neither adds "also"; the differing words do not name the subject): "only" leaves no
    room for the other value."""
    if not (n.only or o.only) or n.additive or o.additive or any(_is_number(w) for w in only_new | only_old):
        return False  # (another number is the number rules' to judge)
    if _BOUND_WORDS & (n.content if n.only else o.content):
        return False  # "only Node 20 and newer" is a bound, not one value
    if _leading(n, only_new) and _leading(o, only_old):
        return False
    return 2 * len(shared) >= min(len(n.content), len(o.content))


def _one_quantity_each(only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """One quantity on each side (beside a statement that says it replaces an earlier value)."""
    return (sum(1 for w in only_new if _QUANTITY.match(w)) == 1 and sum(1 for w in only_old if _QUANTITY.match(w)) == 1)


def _leading(parsed: _Parsed, only: frozenset[str]) -> bool:
    """All the words of one side that differ come before every word both share: they name the
    subject (its modifier), not the value said of it."""
    first_shared = next((i for i, w in enumerate(parsed.sequence) if w not in only), len(parsed.sequence))
    return parsed.opens_with_content and all(w in parsed.sequence[:first_shared] for w in only)


def _multi_valued(statement: Statement, parsed: _Parsed) -> bool:
    """Can the subject hold many objects of this predicate at once? The triple's predicate decides when
    there is one ("The release manager is Sam": no), else any such verb in the sentence."""
    if statement.predicate:  # its verb comes first ("takes", "works on"); "online clothes store" is an attribute
        words = _words(statement.predicate)
        if words and words[0] in _COPULA:  # "is" + "a big Lakers fan": the object says it
            words = _words(statement.object or "")
            return any(w in _MULTI_VALUED_FORMS for w in words)
        return bool(words) and words[0] in _MULTI_VALUED_FORMS
    return parsed.multi_valued


_SLOT_WORDS = frozenset("in on at with by from to for of into via through".split())


def _slot(statement: Statement) -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
    """(subject, predicate, object) terms of a triple. A participle and preposition opening the
    object belong to the predicate: "is" + "written in Rust" is the slot "is written in" holding
    "Rust", another slot than "is deployed on" + "Fly.io"."""
    if not (statement.subject and statement.predicate):
        return None
    words = (statement.object or "").split()
    k = 0
    while k < len(words) and words[k].isalpha() and words[k].islower() and (
            words[k] in _SLOT_WORDS or words[k] in _IRREGULAR or words[k].endswith(("ed", "en"))):
        k += 1
    predicate = f"{statement.predicate} {' '.join(words[:k])}"
    return _terms(statement.subject), _exact_terms(predicate), _terms(" ".join(words[k:]))


def _same_slot_other_object(new: Statement, old: Statement) -> bool:
    a, b = _slot(new), _slot(old)
    return a is not None and b is not None and a[:2] == b[:2] and not a[2] & b[2]


def _other_subject(new: Statement, old: Statement) -> bool:
    """The same predicate and object said of another subject ("the main / release branch is protected")."""
    if not (new.subject and old.subject and new.predicate and old.predicate):
        return False
    return (_exact_terms(new.predicate) == _exact_terms(old.predicate)
            and _exact_terms(new.object) == _exact_terms(old.object)
            and _terms(new.subject) != _terms(old.subject))


def _replaces(statement: Statement, parsed: _Parsed) -> bool:
    """A correction, or a statement that says it replaces ("… instead", "the launch slipped to …")."""
    return statement.kind == "correction" or parsed.replaces


def _corrects(statement: Statement) -> bool:
    """A correction: a later statement of another value in its slot contradicts it as much as it did
    the value it corrected ("Correction: Grafana is at grafana.ops…" / "Grafana is at metrics…")."""
    return statement.kind == "correction" or CORRECTION.search(statement.content) is not None


def _other_value(new: Statement, old: Statement, n: _Parsed, o: _Parsed,
                 only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    if only_new <= _names(new.content) and only_old <= _names(old.content):
        return True  # one thing has one name, whatever the verb ("a dog named Luna" / "named Max")
    if _exclusive(only_new, only_old) and not (only_new | only_old) - _all_exclusive():
        return True  # nothing but one value for another of its set ("long / short hair", "British / American spelling")
    one_slot = _replaces(new, n) or (n.role is not None and n.role == o.role)
    if not one_slot and (_multi_valued(new, n) or _multi_valued(old, o)):
        return False  # "likes tea" / "likes coffee"; but a correction replaces ("No, the build uses Maven") and
        # "uses Zsh / Fish as my shell" fills one slot
    if _same_slot_other_object(new, old):
        return True
    if _exclusive(only_new, only_old):
        rest_new, rest_old = only_new - _all_exclusive(), only_old - _all_exclusive()
        if any(_is_number(w) for w in rest_new) and any(_is_number(w) for w in rest_old):
            return False  # "staging db on 5432" / "production db on 5433": two things, each with its value
        # beside the two values, one side may add detail ("a rich, dark stain" / "a light stain")
        return not (rest_new - n.values) or not (rest_old - o.values)
    # everything that differs is a value, on both sides, and no number changed next to a word
    # (a changed number beside another changed name is another subject: "staging db 5432" / "prod db 5433")
    if _named_value(n, only_new) and _named_value(o, only_old):
        numbers = any(_QUANTITY.match(w) for w in only_new | only_old)  # "5432", not "s3" or "v2"
        words = any(not _QUANTITY.match(w) for w in only_new | only_old)
        return not (numbers and words)
    return False


_QUANTITY = re.compile(r"^\$?\d[\d.,:]*%?$")


def _named_value(parsed: _Parsed, only: frozenset[str]) -> bool:
    """Everything that differs is a value, or a value and the one noun after it that says what kind
    of thing it is ("an S3 bucket" / "Terraform Cloud")."""
    rest = only - parsed.values
    if not rest:
        return True
    if len(rest) > 1 or not only & parsed.values:
        return False
    (word,) = rest
    i = parsed.sequence.index(word) if word in parsed.sequence else 0
    return i > 0 and parsed.sequence[i - 1] in only & parsed.values


@lru_cache(maxsize=1)
def _all_exclusive() -> frozenset[str]:
    return frozenset().union(*(c for classes in _EXCLUSIVE_STEMS for c in classes))

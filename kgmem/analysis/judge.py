"""Is a new statement a paraphrase of a stored one, a contradiction of it, or something else?

The knowledge store asks this for every stored item near a new one (pure logic; the cosine of
the two contents comes from the embedding model). The rules, in order — the first that applies
decides, and its name is the verdict's ``reason``:

1. ``distant``: cosine below ``related_cosine`` — different topics, nothing to compare.
2. ``denied``: one says "X, not Y" (or "X (not Y)", "X, never Y", "instead of Y", "rather than Y", "moved /
   switched from Y to X", "moving off Y onto X", "moved X off / out of Y", "replaced Y with X", "swapped Y for
   X", "renamed Y to X") and Y is what the other says — not what the other passes over ("A rather than B" / "A over B") nor denies too in a clause of
   its own ("correctness, not style" / "correctness; style isn't the point"), and not when the other names
   the value it moved to as well, nor when the other denies Y too: the same change said twice ("move CI from
   Jenkins to Buildkite" / "Jenkins to Buildkite for CI"; "beeswax wraps instead of plastic wrap" / "swapped
   plastic wrap for beeswax wraps"). What is denied ends where a purpose begins ("instead of plastic wrap to
   cover my food" denies the wrap).
3. ``reversed``: "A over/than/rather than/instead of B" against "B over A" (the words on either
   side of the pivot swapped places: "early returns over nested ifs"), or against a preference for
   B alone ("I prefer Chrome over Firefox" / "I prefer Firefox").
4. ``progress``: one says a thing is still under way ("still deciding", "not decided yet",
   "still hasn't arrived", "trying to decide", "thinking of", "meaning to"), the other that it is
   done ("already decided", "finished", "wrapped up"), and they share half their words. An intention
   or a decision speaks of the act itself ("planning to visit Yosemite" / "decided not to go to
   Yosemite after all" compare "visit" and "go").
5. ``negation``: one is negated ("not", "never", "no longer", "hardly", "outside", "stopping",
   "except", "decided against", "hate", "bored", "doubt", "failed", "to limit", and ending a thing in any
   form: "skipping", "dropped the plan", "given up on", "cancelled", "banned", "sold", "handed … over to",
   "… is gone", "gone from", "is blocked", "goes away", "stepped down", "returned / lost the …", "put … down", "zero interest",
   "ruled / called / backed out", "called off", "fell through", "off the table", "I left the … team", "uninstalled" …;
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
   and a reduction by an amount ("to reduce my body fat by 5%") is a target, not "not much". A bound and the
   value it bounds are one limit ("within fifteen minutes" / "a 15-minute response"); "not great" is the low
   end of a graded quality ("my hearing isn't great" = "poor"); "no X" of a thing the other says it has denies
   it ("one son and no daughters" / "twin daughters"); "no more than N" is "N max", "outside" with no object is a
   place, "cut back on" agrees with "less" and "not good" with a purpose "to … better"; a negated clause naming the
   whole switch the other makes denies it ("the Ruby-to-Go migration is cancelled"), and a number both say is part of a name ("returned
   the Fitbit Versa 3"), not a bound; a negated clause denies only when it shares more than a number and its
   unit. "Unless" says "except", "stay off" says "avoid", "not … well" is "poorly", "not before March" is "in
   March at the earliest", and "not X" of a set of more than two values beside another of its values denies
   nothing (``negated_other``: "not a morning person" / "a night person" — unrelated). A negation contradicts
   only a statement that affirms the claim it denies: one that says "no" in a word of its own ("forbidden",
   "disabled", "is off", "out of my diet", "a letdown", "wary", "unsupported", "unsure" beside "not sure") agrees
   with it; a participle of ending that names a thing ("failed runs are not retried") and a purpose that lessens a
   thing ("carpooling to reduce the days I drive") deny nothing of the claim, nor does "not on Tuesday anymore,
   it's on Thursday now" of "moved from Tuesday to Thursday" (the same move).
6. ``same_words``: the same content words (stems, fillers like "usually", "really", "using"
   dropped; "like/love/enjoy/prefer" count as one word; "felt" is "feel"; "took up" is
   "started"; "every week" is "weekly"; words of one class of an exclusive set are one word:
   "excellent" = "the best", "concise" = "short"; one spelling per number, date and clock time:
   "2 am" = "02:00", "6 pm" = "18:00", "a 5-night stay" = "5 nights", "thirty-five" = "35", "port three
   thousand" = "port 3000", "40 thousand" = "40k", "$1.5M" = "1.5 million", "two weeks" = "a two-week trip" = "14
   days", "7 yrs" = "seven years" = "84 months", "3x a week" = "three times a week", "half past four" = "4:30",
   "3:30 in the afternoon" = "3:30 pm", "a fifth of" = "20% of", "1.5x" = "one and a half times", "10s" = "10
   seconds" (kgmem.analysis.quantities), "fortnightly" = "every two weeks", "a couple of" = "a few", chat
   shorthand ("svc", "ppl", "fam") and contractions typed without the apostrophe ("isnt"), "03:15" =
   "3:15 am", "4gb" = "4 GB", "every second" = "every other", "times out" = "timeout"; one name said
   three ways: "is called" = "is named" = "name is"; when a thing happened ("last month") is not what happened; an acronym is its
   spelled-out words, and "PRs" is "PR"; "no one" is "nobody", no number; "v3" is "version 3"; "from 1 to 4 pm" = "13:00-16:00"; "the … one" is a
   pronoun, no number; a name run on with a word is the name ("minSdk" = "minSdkVersion"); a restatement's
   preamble — "As I said, …" — is no content) — a paraphrase.
7. ``other_number``: the same words except numbers ("port 5432" / "port 6543", "five years" /
   "two years", "February 10th" / "March 3rd") — one value replaced another; also one quantity for
   another with other words changed on one side only (a hedge or a clause: "I think I can give
   3 hours a week" / "I can only give 1 hour a week") or only values of one exclusive set beside it
   ("Mondays at 6 pm" / "Thursdays at 7:30 pm"), the unit unchanged ("30 days" / "a
   month" may be one span; weeks are read in days, hours in minutes, years in months) and not naming the subject ("the staging database / API listens on …");
   also one quantity for another beside a statement that says it updates the old one ("We run
   ClickHouse with 8 shards now" / "The cluster has four shards"; kgmem.analysis.updates: "now",
   "these days", "no longer", "moved / upgraded / migrated / bumped / scaled … to …", "is down to …", a correction).
   ``other_measure``: one amount each of one measure of the same subject — a span, a size, a count of one noun — with
   other values, whatever else changed ("Audit logs are retained for seven years" / "only kept for 18 months"; not
   a rate, a clock time or "build / deploy logs"; "84 months" / "seven years" is one amount;
   kgmem.analysis.measures); one limit said from both sides is no negation ("rejects over 5 MB" / "accepts up to 5 MB").
8. ``other_value``: the same slot with another value — the same words except one value on each
   side (a name, a version, a code-like token with at most the noun after it: "an S3 bucket" /
   "Terraform Cloud", a member of a set of mutually exclusive words such as production/staging,
   dark/light, weekly/monthly, long/short, low/high, summer/winter, budget/mid-range/luxury,
   remote/onsite, beginner/advanced — beside which one side may add detail; code-like tokens such as
   "camelCase" are values), or, when both
   carry triples, the same subject and predicate with objects that share no word ("is" + "written
   in Rust" is the slot "is written in"; a place said of each object is part of the slot: "runs NixOS on
   my work laptop" / "runs Debian on my home server" are two machines). Not for predicates that hold many values at once
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
   unless numbers changed, "only" opens a bound ("only Node 20 and newer"), the words that differ say how,
   not what ("only been playing / messing around with …"), or are prepositions, or the other says it with negations. Two statements that say
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
conflict with one clause is a contradiction (not a clause that names only the value left of a move the other
statement names whole: "we left Confluence" beside "moved the wiki from Confluence to Notion"), its reason suffixed
``_in_clause`` ("I love new cities,
but I have a low budget" / "I have a high budget").

This follows how Graphiti invalidates an edge only on an explicit conflict between facts and
how Mem0 sorts a new memory into ADD / UPDATE / NOOP against its neighbours: similarity finds
the candidates, and only a real conflict (same slot, another value; or a negation) counts as a
contradiction. Thresholds were chosen on the tuning half of tests/data/knowledge_pairs.jsonl and
are reported on the held-back half (docs/analysis.md, ``scripts/eval_knowledge.py``).

This module holds the rules; the words they read are :mod:`kgmem.analysis.lexicon` (word tables and
rewrites) and :mod:`kgmem.analysis.parsing` (a statement's text turned into what the rules compare),
:mod:`kgmem.analysis.slots` says which slot a triple fills, :mod:`kgmem.analysis.measures` reads an amount and
:mod:`kgmem.analysis.spellings` one name said two ways.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from kgmem.analysis.lexicon import BOUND_WORDS, EXCLUSIVE_STEMS, PENDING_OR, SCARCE, SLOT_WORDS, UNITS
from kgmem.analysis.measures import other_measure, same_limit
from kgmem.analysis.negation import (
    denies_itself,
    negated_opposite,
    negated_other,
    prefix_negated,
    prefixes_dropped,
    seeks_better,
)
from kgmem.analysis.parsing import (
    CLAUSE,
    QUANTITY,
    Parsed,
    bounded_only,
    is_number,
    parse,
    stem_of,
    words_of,
)
from kgmem.analysis.slots import multi_valued, other_subject, same_slot_other_object
from kgmem.analysis.spellings import name_extended, spelled_out
from kgmem.analysis.updates import CORRECTION

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


def judge(new: Statement, old: Statement, similarity: float, thresholds: Thresholds = DEFAULT) -> Verdict:
    """The relation of ``new`` to ``old`` (see the module docstring for the rules, in order)."""
    found = _judge_whole(new, old, similarity, thresholds)
    if found.relation == "contradiction" or found.reason in ("distant", "same_words"):
        return found
    parts_new, parts_old = CLAUSE.split(new.content), CLAUSE.split(old.content)
    if len(parts_new) == 1 and len(parts_old) == 1:
        return found
    # one clause of a longer statement may be what the other contradicts ("I'm interested in local
    # flavors but I have a low tolerance for spice" / "I have a high tolerance for spice")
    for part_new in parts_new:
        for part_old in parts_old:
            clause = _judge_whole(
                Statement(part_new, kind=new.kind), Statement(part_old, kind=old.kind), similarity, thresholds
            )
            if (
                clause.relation == "contradiction"
                and not (clause.reason == "negation" and _negation_shared(part_new, part_old, new.content, old.content))
                and not (clause.reason == "progress" and parse(new.content).progress == parse(old.content).progress)
                and not (clause.reason == "denied" and _move_named_whole(parse(new.content), parse(old.content)))
            ):
                # (two statements that, whole, say a thing is done, agree: "just finished Sapiens, so now I want
                # to read more history" / "just finished Sapiens and I'm interested in history")
                return Verdict("contradiction", f"{clause.reason}_in_clause", float(similarity))
    return found


def _same_move(affirming: Parsed, negated: Parsed) -> bool:
    """The statement without a negation names a move ("from Y to X"), and the negated one denies its old value and
    affirms its new one in a clause of its own: both say the move (not "the Ruby-to-Go migration is cancelled")."""
    return (
        bool(affirming.denied and affirming.affirmed)
        and affirming.denied <= negated.content
        and (
            any(not negated_clause and affirming.affirmed <= words for negated_clause, words in negated.clauses)
            or (negated.replaces and affirming.affirmed <= negated.content)
        )
    )  # "…, it's on Wednesday now"


def _move_named_whole(n: Parsed, o: Parsed) -> bool:
    """One statement, whole, names the move the other makes — the value left and the value moved to ("moved the wiki
    from Confluence to Notion" / "the wiki is on Notion now; we left Confluence"): a clause that only names the value
    left does not deny it."""
    return any(
        x.denied
        and x.affirmed
        and x.denied <= y.content
        and x.affirmed <= y.content
        and not (y.order and x.denied <= y.order[0])
        for x, y in ((n, o), (o, n))
    )


def _negation_shared(part_new: str, part_old: str, new: str, old: str) -> bool:
    """The negated one of two clauses is denied by the other statement too, in another clause."""
    a, b = parse(part_new), parse(part_old)
    if a.negated == b.negated:
        return False
    negated, other_whole = (a, parse(old)) if a.negated else (b, parse(new))
    if _affirms_elsewhere(parse(new) if a.negated else parse(old), other_whole):
        return True
    return _denied_by_both(negated.content, other_whole)


def _judge_whole(new: Statement, old: Statement, similarity: float, thresholds: Thresholds) -> Verdict:
    def verdict(relation: Relation, reason: str) -> Verdict:
        return Verdict(relation, reason, float(similarity))

    if similarity < thresholds.related_cosine:
        return verdict("unrelated", "distant")
    n, o = parse(new.content), parse(old.content)
    if _denied(n, o) or _denied(o, n):
        return verdict("contradiction", "denied")
    if n.order and o.order and _swapped(n.order, o.order):  # what was preferred is now the one passed over
        return verdict("contradiction", "reversed")
    if _passed_over(n, o) or _passed_over(o, n):  # "I prefer Firefox" / "I prefer Chrome over Firefox"
        return verdict("contradiction", "reversed")
    shared = n.content & o.content
    if {PENDING_OR.get(n.progress, n.progress), PENDING_OR.get(o.progress, o.progress)} == {
        "pending",
        "done",
    } and 2 * len(shared) >= min(len(n.content), len(o.content)):
        return verdict("contradiction", "progress")  # "still deciding on a mouse" / "already decided on a mouse"
    only_new, only_old = spelled_out(new.content, old.content, n.content - o.content, o.content - n.content)
    only_new, only_old = name_extended(n, o, only_new, only_old)
    # "haven't decided yet" / "still deciding": two ways of saying a thing is under way
    opposed = n.negated != o.negated and {n.progress, o.progress} != {"pending", "not yet"}
    if opposed and _same_move((o if n.negated else n), (n if n.negated else o)):
        opposed = False  # "not on Thursday anymore, it's on Wednesday now" / "moved from Thursday to Wednesday"
    if opposed and denies_itself(
        *(
            (old.content, new.content, only_old, only_new)
            if n.negated
            else (new.content, old.content, only_new, only_old)
        )
    ):
        opposed = False  # "we don't deploy on Fridays" / "Friday deploys are forbidden": both deny it
        only_new, only_old = prefixes_dropped(new.content, old.content, only_new, only_old)
    if opposed and negated_opposite(*((only_new, only_old) if n.negated else (only_old, only_new)), EXCLUSIVE_STEMS):
        # "the repo isn't public" / "the repo is private": "not X" of a two-valued set is its other value
        if not (only_new | only_old) - _all_exclusive():
            return verdict("paraphrase", "negated_opposite")
        opposed = False
    if (
        opposed
        and not (only_new | only_old) - _all_exclusive()
        and negated_other(*((only_new, only_old) if n.negated else (only_old, only_new)), EXCLUSIVE_STEMS)
    ):
        return verdict("unrelated", "negated_other")  # "I'm not a morning person" / "I'm a night person"
    if opposed and same_limit(new.content, old.content):
        opposed = False  # "rejects payloads over 5 MB" / "accepts payloads up to 5 MB": one limit from both sides
    if opposed and bounded_only((new if n.negated else old).content) & (o if n.negated else n).content:
        opposed = False  # a limit said as a bound and as the value: "within fifteen minutes" / "a 15-minute response"
    if opposed and (
        _denied_by_both((n if n.negated else o).content, (o if n.negated else n))
        or seeks_better((old if n.negated else new).content, (n if n.negated else o).content)
    ):
        opposed = False  # "cut back on soda" / "less soda"; "don't fit great" / "resized to fit me better"
    if opposed and shared and (n if n.negated else o).content <= shared:
        # the negated side denies what the other says, or all of some of it ("no stress" / "stress and grief")
        return verdict("contradiction", "negation")
    if opposed and (_denies_a_clause(n, o) or _denies_a_clause(o, n)):
        return verdict("contradiction", "negation")
    if (
        opposed
        and 2 * len(shared) >= min(len(n.content), len(o.content))
        and _says_none_of((new if n.negated else old).content, (o if n.negated else n))
    ):
        return verdict("contradiction", "negation")  # "I have one son and no daughters" / "I've got twin daughters"
    if not (n.negated and o.negated) and prefix_negated(new.content, old.content, only_new, only_old):
        return verdict("contradiction", "negation")  # "the backups are encrypted" / "… stored unencrypted" (not
        # "no longer maintained" / "deprecated and unmaintained": both deny it)
    if not only_new and not only_old:
        return verdict("paraphrase", "same_words")
    if shared and only_new and only_old:
        if all(is_number(w) for w in only_new | only_old):
            return verdict("contradiction", "other_number")
        if not n.additive and (
            _other_value(new, old, n, o, only_new, only_old)
            or ((_replaces(new, n) or _corrects(old)) and only_new & n.values and only_old & o.values)
        ):
            # a correction that names another value replaces the one said ("No, the repo is MIT licensed.")
            if _leading(n, only_new) and _leading(o, only_old):
                return verdict("unrelated", "other_subject")  # "the staging / production cluster has autoscaling"
            return verdict("contradiction", "other_value")
        if _only_other(new, old, n, o, shared, only_new, only_old):
            return verdict("contradiction", "other_value")  # "we only play on clay" / "we play on hard courts"
    if any(is_number(w) for w in only_new) and any(is_number(w) for w in only_old):
        if shared and _units_beside_numbers(n, only_new) and _units_beside_numbers(o, only_old):
            return verdict(
                "contradiction", "other_number"
            )  # "512 MiB" / "1 GiB", "a longer hike, 5 hours" / "a short one, 1"
        if shared and _one_number_replaced(n, o, only_new, only_old):
            return verdict(
                "contradiction", "other_number"
            )  # "I think I can give 3 hours a week" / "only 1 hour a week"
        if shared and (_replaces(new, n) or _replaces(old, o)) and _one_quantity_each(only_new, only_old):
            return verdict("contradiction", "other_number")  # "We run ClickHouse with 8 shards now" / "four shards"
        if (
            shared
            and other_measure(new.content, old.content, n, o, shared)
            and not (_leading(n, _words(only_new)) and _leading(o, _words(only_old)))
        ):  # not "build / deploy logs"
            return verdict("contradiction", "other_measure")  # "retained for 7 years" / "only kept for 18 months"
        return verdict("unrelated", "other_subject")  # a paraphrase keeps its numbers
    if other_subject(new, old):
        return verdict("unrelated", "other_subject")
    if only_new and only_old and (same_slot_other_object(new, old) or (only_new <= n.values and only_old <= o.values)):
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


def _denied(x: Parsed, y: Parsed) -> bool:
    """x says "…, not Y" / "… rather than Y" and Y is what y says — not what y passes over too
    ("tabs rather than spaces" / "tabs over spaces")."""
    if not x.denied or not x.denied <= y.content or x.denied <= x.content:
        return False
    if x.denied & y.denied:
        return False  # both deny it: the same change said twice ("beeswax wraps instead of plastic wrap" / "swapped
        # plastic wrap for beeswax wraps")
    if any(
        negated and x.denied <= words and (not words & x.content or words - x.denied <= x.content)
        for negated, words in y.clauses
    ):
        return False  # y denies it too, in a clause of its own: "correctness, not style" / "correctness;
        # style isn't the point", or in a clause that says nothing x does not: "the tests run in CI, not locally" /
        # "we don't run the tests locally; CI runs them" (not "reviews aren't on Thursdays but Tuesdays", which
        # denies x)
    if y.order and x.denied <= y.order[1]:
        return False
    # y names the value x moved to as well: the same change said again ("move CI from Jenkins to Buildkite" /
    # "Jenkins to Buildkite for CI") — unless y puts the old value first ("Jenkins over Buildkite")
    return not (x.affirmed and x.affirmed <= y.content and not (y.order and x.denied <= y.order[0]))


def _denies_a_clause(x: Parsed, y: Parsed) -> bool:
    """A negated clause of one says what a clause of the other says (half their words or all of the
    negated one): "I'm not vegetarian anymore" / "I'm vegetarian", "the switch to pnpm is cancelled" /
    "we're switching to pnpm"."""
    if _affirms_elsewhere(x, y):
        return False
    for negated, words in x.clauses:
        if not negated or _denied_by_both(words, y) or (words & y.denied and not (y.affirmed and y.affirmed <= words)):
            # what y denies too ("…, not the full suite" / "don't run the whole suite") they agree on — not the
            # switch y makes, named whole ("the Ruby-to-Go migration is cancelled" / "migrating from Ruby to Go")
            continue
        for other_negated, other in y.clauses:
            shared = words & other
            # the words shared are more than a number and its unit ("haven't eaten meat in five years" / "vegetarian
            # for 5 years" share only the span)
            if other_negated or not any(not is_number(w) and w not in UNITS for w in shared):
                continue
            if 2 * len(shared) >= max(len(words), len(other)) or words <= other:
                return True
            # half the words of the shorter clause: "I don't drink bourbon at all" / "I've been experimenting
            # with bourbon and bitters" — not beside a number, where the negation is a bound ("within 5 days")
            # (a number both say is part of a name: "returned the Fitbit Versa 3" / "wearing my Fitbit Versa 3")
            if 2 * len(shared) >= min(len(words), len(other)) and not any(is_number(w) for w in words - other):
                return True
    return False


_NONE_OF = re.compile(r"\b(?:no|zero)\s+(?!longer\b|more\b|one\b|idea\b|problem\b|doubt\b)([a-z]+)\b", re.I)


def _says_none_of(text: str, other: Parsed) -> bool:
    """``text`` says "no X" of a thing the other says it has, in an affirmed clause of its own."""
    named = {stem_of(m.group(1).lower()) for m in _NONE_OF.finditer(text)}
    return any(not negated and named & words for negated, words in other.clauses)


def _affirms_elsewhere(x: Parsed, y: Parsed) -> bool:
    """x, beside its negated clause, affirms in a clause of its own all of what y says of it: its negation
    speaks of another claim ("I can't tell red from green very well; I'm colorblind" / "I'm red-green
    colorblind")."""
    # (not when that clause names what y passes over: "email me, I don't check Slack DMs" / "a Slack DM rather
    # than an email" reverses it)
    passed = y.order[1] - y.order[0] if y.order else frozenset()
    return len(x.clauses) > 1 and any(
        not negated and words <= y.content and not words & passed for negated, words in x.clauses
    )


def _denied_by_both(words: frozenset[str], y: Parsed) -> bool:
    """A negated clause whose thing the other statement denies too, in a negated clause of its own
    ("I tried oat milk, but I'm not a fan of the taste" / "I don't like how oat milk tastes, though I
    tried it"), or says there is little of it: the two agree about it."""
    return any((negated or other & SCARCE) and words & other for negated, other in y.clauses)


_NAMED = re.compile(r"\b(?:named|called|name\s+is)\s+((?:[A-Z][\w'-]*\s*)+)")


def _names(text: str) -> frozenset[str]:
    """The stems of the names given with "named" / "called"."""
    return frozenset(stem_of(w) for m in _NAMED.finditer(text) for w in words_of(m.group(1)))


def _passed_over(x: Parsed, y: Parsed) -> bool:
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


def _units_beside_numbers(parsed: Parsed, only: frozenset[str]) -> bool:
    """Besides the numbers that changed, at most one word changed, and it follows them (a unit:
    "512 MiB" / "1 GiB"); a word before them names another thing ("the cache / session TTL is 5 /
    30 minutes")."""
    words = [w for w in only if not is_number(w)]
    if len(words) > 1:
        return False
    first_number = next(i for i, w in enumerate(parsed.sequence) if w in only and is_number(w))
    return all(w in parsed.sequence[first_number:] for w in words)


def _one_number_replaced(n: Parsed, o: Parsed, only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """One quantity on each side replaced the other; besides them words changed on one side only (a
    hedge, a clause: "I think I can give 3 hours" / "I can only give 1 hour") or values of one exclusive
    set changed, and no unit changed ("30 days" / "a month" may be one span said two ways)."""
    numbers_new = [w for w in only_new if is_number(w)]
    numbers_old = [w for w in only_old if is_number(w)]
    if (
        len(numbers_new) != 1 or len(numbers_old) != 1 or not all(QUANTITY.match(w) for w in numbers_new + numbers_old)
    ):  # "Java 17" / "eu-west-1" are names
        return False
    words_new, words_old = only_new - set(numbers_new), only_old - set(numbers_old)
    if words_new & UNITS or words_old & UNITS:
        return False
    # other words on both sides name another thing ("the staging database / API listens on 5432 / 8080"),
    # unless they are values of one exclusive set ("on Mondays at 6 pm" / "on Thursdays at 7:30 pm")
    if words_new and words_old and _leading(n, words_new) and _leading(o, words_old):
        return False  # they name the subject: "the staging / production database listens on 5432 / 5433"
    return not (words_new - _all_exclusive() and words_old - _all_exclusive())


def _only_other(
    new: Statement,
    old: Statement,
    n: Parsed,
    o: Parsed,
    shared: frozenset[str],
    only_new: frozenset[str],
    only_old: frozenset[str],
) -> bool:
    """One side says "only X" where the other says another thing of the same statement (half the words of
    the shorter shared; neither adds "also"; the differing words do not name the subject): "only" leaves no
    room for the other value — a thing, not a way of doing it: when the words that differ are verb forms on both
    sides ("only been playing / messing around with cocktails"), "only" speaks of the same thing."""
    if not (n.only or o.only) or n.additive or o.additive or any(is_number(w) for w in only_new | only_old):
        return False  # (another number is the number rules' to judge)
    if not only_new - SLOT_WORDS or not only_old - SLOT_WORDS or (n if o.only else o).has_negation:
        return False  # a preposition differs ("only via / through the VPN"), or negations say it ("don't lint what I didn't")
    if _verb_forms(new.content, only_new) and _verb_forms(old.content, only_old):
        return False
    if BOUND_WORDS & (n.content if n.only else o.content):
        return False  # "only Node 20 and newer" is a bound, not one value
    if _leading(n, only_new) and _leading(o, only_old):
        return False
    return 2 * len(shared) >= min(len(n.content), len(o.content))


def _words(only: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in only if not is_number(w))


def _verb_forms(text: str, only: frozenset[str]) -> bool:
    """Every word of ``only`` is said in ``text`` as a participle ("playing", "messed"): how a thing is done."""
    forms = [w for w in words_of(text) if stem_of(w) in only]
    return bool(only) and bool(forms) and all(w.endswith(("ing", "ed")) for w in forms)


def _one_quantity_each(only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """One quantity on each side (beside a statement that says it replaces an earlier value)."""
    return sum(1 for w in only_new if QUANTITY.match(w)) == 1 and sum(1 for w in only_old if QUANTITY.match(w)) == 1


def _leading(parsed: Parsed, only: frozenset[str]) -> bool:
    """All the words of one side that differ come before every word both share: they name the
    subject (its modifier), not the value said of it."""
    first_shared = next((i for i, w in enumerate(parsed.sequence) if w not in only), len(parsed.sequence))
    return parsed.opens_with_content and all(w in parsed.sequence[:first_shared] for w in only)


def _replaces(statement: Statement, parsed: Parsed) -> bool:
    """A correction, or a statement that says it replaces ("… instead", "the launch slipped to …")."""
    return statement.kind == "correction" or parsed.replaces


def _corrects(statement: Statement) -> bool:
    """A correction: a later statement of another value in its slot contradicts it as much as it did
    the value it corrected ("Correction: Grafana is at grafana.ops…" / "Grafana is at metrics…")."""
    return statement.kind == "correction" or CORRECTION.search(statement.content) is not None


def _other_value(
    new: Statement, old: Statement, n: Parsed, o: Parsed, only_new: frozenset[str], only_old: frozenset[str]
) -> bool:
    if only_new <= _names(new.content) and only_old <= _names(old.content):
        return True  # one thing has one name, whatever the verb ("a dog named Luna" / "named Max")
    if _exclusive(only_new, only_old) and not (only_new | only_old) - _all_exclusive():
        return True  # nothing but one value for another of its set ("long / short hair", "British / American spelling")
    one_slot = _replaces(new, n) or (n.role is not None and n.role == o.role)
    if not one_slot and (multi_valued(new, n) or multi_valued(old, o)):
        return False  # "likes tea" / "likes coffee"; but a correction replaces ("No, the build uses Maven") and
        # "uses Zsh / Fish as my shell" fills one slot
    if same_slot_other_object(new, old):
        return True
    if _exclusive(only_new, only_old):
        rest_new, rest_old = only_new - _all_exclusive(), only_old - _all_exclusive()
        if any(is_number(w) for w in rest_new) and any(is_number(w) for w in rest_old):
            return False  # "staging db on 5432" / "production db on 5433": two things, each with its value
        # beside the two values, one side may add detail ("a rich, dark stain" / "a light stain")
        return not (rest_new - n.values) or not (rest_old - o.values)
    # everything that differs is a value, on both sides, and no number changed next to a word
    # (a changed number beside another changed name is another subject: "staging db 5432" / "prod db 5433")
    if _named_value(n, only_new) and _named_value(o, only_old):
        numbers = any(QUANTITY.match(w) for w in only_new | only_old)  # "5432", not "s3" or "v2"
        words = any(not QUANTITY.match(w) for w in only_new | only_old)
        return not (numbers and words)
    return False


def _named_value(parsed: Parsed, only: frozenset[str]) -> bool:
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


def _exclusive(a: frozenset[str], b: frozenset[str]) -> bool:
    """One side has a word of one class of an exclusive set, the other a word of another class."""
    for classes in EXCLUSIVE_STEMS:
        in_a = {i for i, c in enumerate(classes) if a & c}
        in_b = {i for i, c in enumerate(classes) if b & c}
        if in_a and in_b and not in_a & in_b:
            return True
    return False


@lru_cache(maxsize=1)
def _all_exclusive() -> frozenset[str]:
    return frozenset().union(*(c for classes in EXCLUSIVE_STEMS for c in classes))

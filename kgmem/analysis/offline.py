"""The offline extractor: deterministic, rule-based, used when no API key is set.

It reads what human speakers say (not the assistant's turns), sentence by
sentence, and recognises a handful of explicit forms:

* preferences — "I prefer …", "I like/love/hate …", "I'd rather …", "my favourite X is Y",
  "(please) always …", "never …", "don't ever …";
* corrections — "no, …", "actually, …", "nope, …", "not quite: …", "that's wrong, …",
  "correction: …" followed by a fact, "it's X", a value (a number, a name, a code-like token)
  or "X, not Y"; and "X, not Y" on its own when X states a fact;
* facts and their triples — "my X is Y", "I live in / work at / study at …", "I am a …",
  first-person habits and set-ups ("we keep secrets in Vault", "my team deploys with Argo CD",
  "I've been using Goodreads", "I usually take the bus to work"),
  "<Name> is / uses / runs on / listens on / caches / stores … X";
* a port or a version stated in any other form ("Our API runs on port 8080", "We're on Python 3.11").

First-person words are rewritten to the speaker ("The user takes the bus to their office"), and a
title's or an initial's period does not end a sentence ("My doctor is Dr. Patel").

It proposes items and never judges them: whether an item is a paraphrase of a stored one
(merged, boosted) or contradicts it (inserted, linked ``CONTRADICTS``) is decided by the
knowledge store (:mod:`kgmem.analysis.judge`), with the embedding of both statements at hand.
It is clearly lower quality than the LLM analyzer, and every item it produces is stored with
``source = "offline"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgmem.analysis.schema import ExtractedItem, normalise_term

NAME = "offline"
NON_HUMAN_ROLES = frozenset({"assistant", "system", "tool", "agent", "ai", "bot", "model"})

# Confidence the extractor gives each form: explicit statements are trusted more than inferences.
EXPLICIT = 0.85
GENERAL_FACT = 0.6

# A sentence ends at . ! ? and a space — but not at the period of a title or of a single initial
# ("Dr. Patel", "J. Smith"), which belongs to the name that follows.
_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bSt\.)(?<!\bMt\.)"
    r"(?<!\bJr\.)(?<!\bSr\.)(?<!\bRev\.)(?<!\bGen\.)(?<!\bCapt\.)(?<!\b[A-Z]\.)\s+|\n+"
)
_PRONOUNS = frozenset(
    "it this that there he she they we you i which what who here these those everything something "
    "nothing anything everyone someone one life today tomorrow yesterday your his her their its our my "
    # question words and fillers that start chatter, not facts
    "how where when what why who whose whom glad looks seems plus but and so here's hope wow all".split()
)
# Objects that carry no information on their own.
_EMPTY_OBJECTS = frozenset("it that this them you those these him her me us something everything".split())
# "X is amazing" / "Y is important": evaluations, not facts (LoCoMo chit-chat is full of them).
_EVALUATIVE = frozenset(
    "important amazing awesome great possible everything key vital incredible inevitable special nice good bad "
    "beautiful hard tough cool fun okay ok fine lovely wonderful inspiring perfect huge crazy worth best worst "
    "amazingly awesome-- fantastic terrible hilarious interesting exciting excited happy sad tiring".split()
)
# "never been / always here …": experiences and pleasantries, not rules.
_NOT_A_RULE = frozenset(
    "been had seen heard tried done thought knew mind here there a an the so too found realized "
    "realised noticed imagined expected got".split()
)
# Where a clause ends: what follows is commentary, not part of the object.
_CLAUSE_BREAK = re.compile(
    r",|;| - | — |--| but | cuz | 'cause | because | which | and it | so (?:i|we|that) | and then ", re.I
)
# "X is so/really/gonna …" is a feeling or an opinion, not a fact worth keeping.
_OPINION_OBJECT = re.compile(
    r"^(?:so|very|really|super|pretty|too|quite|gonna|going to|such|just|kind of|sort of)\b", re.I
)
_CORRECTION = re.compile(
    r"^(?:no|nope|actually|wrong|correction|that's wrong|that is wrong|that's not right|that is not right|"
    r"that's incorrect|that is incorrect|not quite|not really)(?:\s*[,:;!.\-—]+\s*|\s+(?=(?:it's|it is)\b))"
    r"(?P<rest>.+)$",
    re.I,
)
_EXPLICIT_CORRECTION = re.compile(
    r"^(?:correction|that's wrong|that is wrong|that's not right|that is not right|"
    r"that's incorrect|that is incorrect)\b",
    re.I,
)
_PREFER = re.compile(
    r"^i (?:really |much |strongly |usually |generally |definitely |still |also |just |do )?"
    r"(?P<verb>prefer|like|love|enjoy|hate|dislike)s? (?P<obj>.+)$",
    re.I,
)
# "I like the idea of …", "I love these recommendations": reactions to the conversation, not preferences.
_REACTION = re.compile(
    r"^(?:the (?:idea|sound|variety|structure|look|part|sample|way)|these|those|this|your|all the)\b"
    r"|\byou(?:'ve|'re|r)?\b|\bideas?\b|suggest|recommend",
    re.I,
)
# "X, not Y": X is stated, Y denied — a correction when X states something.
_DENIAL = re.compile(r"^(?P<x>.+?)\s*,\s*(?:and )?not (?P<y>[^,]+)$", re.I)
_IT_IS = re.compile(r"^(?:it's|it is|that's|that is|they're|they are|it was) (?P<obj>.+)$", re.I)
# A value: a number, a code-like token (us-east-1, config/prod.yaml), a capitalised name inside the sentence.
_VALUE = re.compile(r"\d|\b\w+[./_-]\w+|(?<=\s)(?!I\b)[A-Z][\w+#-]*")
# First-person habits and set-ups: "we keep secrets in Vault", "I've been using Goodreads", "my team deploys …".
_FIRST_PERSON = re.compile(
    r"^(?P<who>i|we|my team|our team)(?:'ve| have)?(?: been)? (?:(?:usually|always|often|normally|typically|"
    r"currently|now|also|still|mostly|generally|mainly|just) )?(?P<verb>[a-z]+) (?P<obj>.+)$",
    re.I,
)
_FACT_VERBS = {
    **{v: "uses" for v in ("use", "uses", "using")},
    **{v: "keeps" for v in ("keep", "keeps", "keeping")},
    **{v: "stores" for v in ("store", "stores", "storing")},
    **{v: "hosts" for v in ("host", "hosts", "hosting")},
    **{v: "runs" for v in ("run", "runs", "running")},
    **{v: "deploys" for v in ("deploy", "deploys", "deploying")},
    **{v: "tracks" for v in ("track", "tracks", "tracking")},
    **{v: "owns" for v in ("own", "owns")},
    **{v: "maintains" for v in ("maintain", "maintains", "maintaining")},
    **{v: "manages" for v in ("manage", "manages", "managing")},
    **{v: "builds" for v in ("build", "builds", "building")},
    **{v: "ships" for v in ("ship", "ships")},
    **{v: "writes" for v in ("write", "writes", "writing")},
    **{v: "takes" for v in ("take", "takes", "taking")},
    **{v: "drives" for v in ("drive", "drives", "driving")},
    **{v: "rides" for v in ("ride", "rides", "riding")},
    **{v: "plays" for v in ("play", "plays", "playing")},
    **{v: "speaks" for v in ("speak", "speaks")},
    **{v: "teaches" for v in ("teach", "teaches", "teaching")},
    **{v: "practises" for v in ("practice", "practise", "practices", "practises", "practicing", "practising")},
    "start": "starts",
    "started": "started",
    "worked": "worked",
    "work": "works",
    "works": "works",
    "working": "works",
}
# Words after a first-person fact verb that make it chatter ("I started to think …", "we run into …").
_NOT_AN_OBJECT = frozenset("to into out away over it that this them me you something anything".split())
_RATHER = re.compile(r"^i(?:'d| would) rather (?P<obj>.+)$", re.I)
_FAVOURITE = re.compile(r"^my (?:all[- ]time )?favou?rite (?P<what>[\w' -]{1,30}?) (?:is|are) (?P<obj>.+)$", re.I)
_ALWAYS = re.compile(r"^(?:please |i )?(?P<verb>always|never) (?P<obj>.+)$", re.I)
_DONT_EVER = re.compile(r"^(?:please )?(?:don't|do not) ever (?P<obj>.+)$", re.I)
_MY_ATTR = re.compile(r"^(?:my|our) (?P<attr>[\w' -]{1,30}?) (?:is|are) (?P<obj>.+)$", re.I)
_I_PLACE = re.compile(r"^i (?P<verb>live|work|study|grew up) (?P<prep>in|at|for|near) (?P<obj>.+)$", re.I)
_I_AM = re.compile(r"^i(?:'m| am) (?:a|an) (?P<obj>.+)$", re.I)
_GENERAL = re.compile(
    r"^(?:the )?(?P<subj>[\w.'+#/ -]{2,40}?) (?P<verb>is|are|uses|use|runs on|requires|depends on|lives in|"
    r"works at|is located in|listens on|caches|stores|hosts|serves|owns|handles|connects to|talks to|"
    r"is written in|is built with|is hosted on|runs) (?P<obj>.+)$",
    re.I,
)
# Statements of a port or a version ("Our API runs on port 8080", "We're on Python 3.11", "We run version
# 4.2 of the API"): the value is the object, the thing it belongs to the subject.
_PORT = re.compile(r"\bport (?:number )?(?:is |of )?(?P<value>\d{2,5})\b", re.I)
_VERSION = re.compile(
    r"\b(?:version|v) ?(?P<value>\d+(?:\.\d+)*)\b|\b(?P<name>[A-Z][\w+#-]*) (?P<dotted>\d+\.\d+(?:\.\d+)*)\b"
)
_OF_THING = re.compile(r"\bof (?:the |our |my )?(?P<thing>[\w.+#-]+(?: [\w.+#-]+)?)\s*$", re.I)
_THING = re.compile(
    r"^(?:the |our |my )?(?P<thing>[\w.'+#/ -]{2,40}?) (?:is|are|runs|run|listens|serves|uses|binds|sits)\b", re.I
)
_FIRST_WORDS = re.compile(r"^(?:i|i'm|i've|we|we're|we've|my team|our team)\b", re.I)
_VERB_FORMS = {
    "prefer": "prefers",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "hate": "hates",
    "dislike": "dislikes",
    "live": "lives",
    "work": "works",
    "study": "studies",
    "use": "uses",
    "grew up": "grew up",
}


@dataclass(frozen=True)
class _Triple:
    subject: str
    predicate: str
    object: str


class OfflineExtractor:
    """Rule-based extraction. ``extract(messages, existing)`` → validated items (``source: offline``)."""

    name = NAME

    def extract(
        self, messages: Sequence[Mapping[str, Any]], existing: Sequence[Mapping[str, Any]] = ()
    ) -> list[ExtractedItem]:
        """Items found in the human turns of ``messages``. ``existing`` (knowledge dicts) is accepted for
        the extractor interface and not used: the knowledge store judges paraphrases and contradictions."""
        items: list[ExtractedItem] = []
        seen: set[str] = set()
        for message in messages:
            role = str(message.get("role") or "user").strip()
            if role.lower() in NON_HUMAN_ROLES:
                continue
            speaker = "user" if role.lower() == "user" else role
            for sentence in _sentences(str(message.get("text") or "")):
                item = _extract_sentence(sentence, speaker)
                if item is None or item.norm in seen:
                    continue
                seen.add(item.norm)
                items.append(item)
        return items


def _sentences(text: str) -> list[str]:
    return [s.strip().rstrip(".!").strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _extract_sentence(sentence: str, speaker: str) -> ExtractedItem | None:
    if sentence.endswith("?"):  # questions state nothing
        return None
    correction = _CORRECTION.match(sentence)
    if correction:
        rest = correction.group("rest").strip()
        if len(rest.split()) < 3 or rest.endswith("?"):  # "No, thanks" is not a correction worth keeping
            return None
        triple = _statement_triple(_DENIAL.sub(r"\g<x>", rest), speaker)
        # "no" and "actually" are also filler words: without a recognisable fact, only an explicit
        # marker ("that's wrong", "correction:"), "it's X", a value or "X, not Y" makes it a correction
        if triple is None and not (_EXPLICIT_CORRECTION.match(sentence) or _states_value(rest)):
            return None
        return _item("correction", _content(rest, speaker), EXPLICIT, triple)
    denial = _DENIAL.match(sentence)
    if denial and (triple := _statement_triple(denial.group("x"), speaker)) is not None:
        return _item("correction", _content(sentence, speaker), EXPLICIT, triple)
    triple = _preference_triple(sentence, speaker)
    if triple is not None:
        return _item("preference", _content(sentence, speaker), EXPLICIT, triple)
    triple = _fact_triple(sentence, speaker)
    if triple is not None:
        general = triple.subject != speaker
        return _item("fact", _content(sentence, speaker), GENERAL_FACT if general else EXPLICIT, triple)
    triple = _value_triple(sentence, speaker)
    if triple is not None:
        return _item("fact", _content(sentence, speaker), GENERAL_FACT, triple)
    return None


def _value_triple(sentence: str, speaker: str) -> _Triple | None:
    """A port or version statement no other form took: (thing, "port" | "version", value)."""
    if m := _PORT.search(sentence):
        predicate, value, name = "port", m.group("value"), None
    elif m := _VERSION.search(sentence):
        predicate, value, name = "version", m.group("value") or m.group("dotted"), m.group("name")
    else:
        return None
    before = sentence[: m.start()].rstrip()
    if name:  # "Python 3.11": the named thing
        thing = name
    elif of := _OF_THING.search(sentence[m.end() :].split(",")[0].rstrip(" .")):
        thing = of.group("thing")
    elif _FIRST_WORDS.match(sentence):
        thing = speaker if sentence.lower().startswith("i") else f"{speaker}'s team"
    elif t := _THING.match(before or sentence):
        thing = t.group("thing")
    else:
        return None
    if thing.split()[0].lower() in _PRONOUNS - {"our", "my"}:
        return None
    return _triple(thing, predicate, value)


def _statement_triple(text: str, speaker: str) -> _Triple | None:
    return _fact_triple(text, speaker) or _preference_triple(text, speaker)


def _states_value(rest: str) -> bool:
    """After "no," / "actually,": does the rest state something ("it's X", "X, not Y", a value)?"""
    if m := _IT_IS.match(rest):
        words = m.group("obj").lower().split()
        return (
            bool(words)
            and words[0] not in _EVALUATIVE
            and not _OPINION_OBJECT.match(m.group("obj"))
            and words[0] not in _EMPTY_OBJECTS
            and words[0] not in ("not", "fine", "ok", "okay", "alright")
        )
    if _DENIAL.match(rest):
        return True
    first = rest.split()[0].lower()
    return first not in ("i", "i'm", "i've", "we", "you", "it", "that", "this") and bool(_VALUE.search(rest))


def _preference_triple(sentence: str, speaker: str) -> _Triple | None:
    if m := _PREFER.match(sentence):
        if _REACTION.search(_CLAUSE_BREAK.split(m.group("obj"), 1)[0]):
            return None
        return _triple(speaker, _VERB_FORMS[m.group("verb").lower()], m.group("obj"))
    if m := _ALWAYS.match(sentence):
        if m.group("obj").split()[0].lower() in _NOT_A_RULE:
            return None
        return _triple(speaker, m.group("verb").lower(), m.group("obj"))
    if m := _RATHER.match(sentence):
        return _triple(speaker, "prefers", m.group("obj"))
    if m := _FAVOURITE.match(sentence):
        return _triple(speaker, f"favourite {m.group('what').lower()}", m.group("obj"))
    if m := _DONT_EVER.match(sentence):
        return _triple(speaker, "never", m.group("obj"))
    return None


def _fact_triple(sentence: str, speaker: str) -> _Triple | None:
    if m := _MY_ATTR.match(sentence):
        if _OPINION_OBJECT.match(m.group("obj")):
            return None
        return _triple(speaker, m.group("attr").lower(), m.group("obj"))
    if m := _I_PLACE.match(sentence):
        verb = _VERB_FORMS[m.group("verb").lower()]
        return _triple(speaker, f"{verb} {m.group('prep').lower()}", m.group("obj"))
    if m := _I_AM.match(sentence):
        return _triple(speaker, "is a", m.group("obj"))
    if m := _FIRST_PERSON.match(sentence):
        fact_verb = _FACT_VERBS.get(m.group("verb").lower())
        obj = m.group("obj")
        if fact_verb is not None and (first := obj.split()[0].lower()) not in _NOT_AN_OBJECT:
            who = speaker if m.group("who").lower() == "i" else f"{speaker}'s team"
            if fact_verb in ("works", "worked") and first in ("on", "with", "for", "at", "in"):
                return _triple(who, f"{fact_verb} {first}", obj.split(" ", 1)[1] if " " in obj else "")
            return _triple(who, fact_verb, obj)
    if m := _GENERAL.match(sentence):
        subject = m.group("subj").strip()
        first = subject.split()[0].lower()
        # pronouns, gerund phrases ("Taking care of ourselves is vital") and opinions are not facts
        gerund = first.endswith("ing") and not sentence.lower().startswith("the ")  # "the staging db" is a noun
        if first in _PRONOUNS or gerund or len(subject.split()) > 4 or _OPINION_OBJECT.match(m.group("obj")):
            return None
        verb = m.group("verb").lower()
        return _triple(subject, _VERB_FORMS.get(verb, verb), m.group("obj"))
    return None


def _triple(subject: str, predicate: str, obj: str) -> _Triple | None:
    subject, obj = normalise_term(subject), normalise_term(_CLAUSE_BREAK.split(obj, 1)[0])
    if not subject or not obj or len(obj) > 120 or len(obj.split()) > 12:
        return None  # a clause, not an object
    words = obj.lower().split()
    if obj.lower() in _EMPTY_OBJECTS or words[0] in _EVALUATIVE or words[0] in {"that", "how", "when", "what", "if"}:
        return None
    return _Triple(subject, predicate, _no_first_person(obj))


def _content(sentence: str, speaker: str) -> str:
    # First person is rewritten to the speaker so the item reads right outside the conversation.
    text = re.sub(r"^(?:please )", "", sentence.strip(), flags=re.I)
    who = "The user" if speaker == "user" else speaker
    text = re.sub(r"^I(?:'m| am)\b", f"{who} is", text, flags=re.I)
    text = re.sub(r"^I(?:'d| would) rather\b", f"{who} would rather", text, flags=re.I)
    text = re.sub(r"^I(?:'ve| have)\b", f"{who} has", text, flags=re.I)
    text = re.sub(r"^I\b", who, text)
    team = f"{who}'s team"
    text = re.sub(r"^(?:we|my team|our team)(?:'ve| have)\b", f"{team} has", text, flags=re.I)
    text = re.sub(r"^(?:we're|we are|my team is|our team is)\b", f"{team} is", text, flags=re.I)
    text = re.sub(r"^(?:we|my team|our team)\b", team, text, flags=re.I)
    text = re.sub(r"^my\b", f"{who}'s", text, flags=re.I)
    text = re.sub(r"^our\b", f"{team}'s", text, flags=re.I)
    for subject in (team, who):
        if re.match(rf"^{re.escape(subject)} (\w+)\b", text):
            text = _third_person(text, subject)
            break
    text = _no_first_person(text)
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


# First-person words left inside the rewrite ("The user takes the bus to my office"): the third person
# plural keeps the verb's form ("I work" -> "they work"), except the forms of "to be" listed first.
_REST_FIRST_PERSON = (
    (re.compile(r"\bI(?:'m| am)\b"), "they are"),
    (re.compile(r"\bI was\b"), "they were"),
    (re.compile(r"\bI(?='(?:ve|d|ll)\b)"), "they"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\b[Ww]e(?='(?:re|ve|d|ll)\b)"), "they"),
    (re.compile(r"\b[Ww]e\b"), "they"),
    (re.compile(r"\b(?:[Mm]y|[Oo]ur)\b"), "their"),
    (re.compile(r"\b(?:[Mm]ine|[Oo]urs)\b"), "theirs"),
    (re.compile(r"\b(?:me|us)\b"), "them"),
    (re.compile(r"\b(?:[Mm]yself|[Oo]urselves)\b"), "themselves"),
)


def _no_first_person(text: str) -> str:
    for pattern, third in _REST_FIRST_PERSON:
        text = pattern.sub(third, text)
    return text


_ADVERBS = frozenset(
    "usually always often normally typically currently now also still mostly generally mainly "
    "just really much strongly never".split()
)


def _third_person(text: str, who: str) -> str:
    words = text[len(who) + 1 :].split(" ")
    at = 0
    while at < len(words) - 1 and words[at].lower() in _ADVERBS:  # "usually take" -> "usually takes"
        at += 1
    first = words[at].lower()
    third = _VERB_FORMS.get(first)
    if third is None and first in _FACT_VERBS and not first.endswith(("ing", "ed", "s")):
        third = _FACT_VERBS[first]
    if third is not None:
        words[at] = third
        return f"{who} " + " ".join(words)
    return text


def _item(kind: str, content: str, confidence: float, triple: _Triple | None) -> ExtractedItem | None:
    fields: dict[str, Any] = {"type": kind, "content": content, "confidence": confidence}
    if triple is not None:
        fields.update(subject=triple.subject, predicate=triple.predicate, object=triple.object)
    try:
        return ExtractedItem(**fields)
    except ValueError:  # too short/long for the schema: not an item
        return None

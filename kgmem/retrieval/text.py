"""Query text → Lucene query for the keyword leg.

Neo4j's analyzers drop only Lucene's 33 English stop words; a question such as
"What did Caroline do after the parade?" still matches every turn containing
"what", "did", "after". Dropping a longer stop-word list on the query side
(on LoCoMo it raised BM25 recall@10 from 0.512 to 0.561) keeps the
content words, which then decide the BM25 ranking. Everything the user typed is
escaped, so no query text is ever interpreted as Lucene syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[\w']+", re.UNICODE)
_NAME_WORD = re.compile(r"[\w'’]+")
_POSSESSIVE = re.compile(r"['’]s?$")
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't
    she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then
    there there's these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's
    whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
    also just get got like would will shall may might must much many one ones thing things kind sort really
    s t d ll m re ve
    """.split()
)


def content_terms(query: str) -> list[str]:
    """Lower-cased words of ``query`` without stop words, in order, de-duplicated."""
    words = [w.strip("'").lower() for w in _WORD.findall(query)]
    seen: dict[str, None] = {}
    for word in words:
        if word and word not in STOP_WORDS and word not in seen:
            seen[word] = None
    return list(seen)


# Lucene expands every analysed token into one clause per indexed field (7, plus the role
# clause), and a query over 1024 clauses fails (``TooManyClauses``): ~127 tokens. A word is
# one token, except in scripts the analyser splits per character (CJK, Thai, ...). The budget
# keeps ~20 % headroom; past ~20 content words BM25 ranking barely moves anyway.
MAX_QUERY_TERMS = 64
MAX_QUERY_TOKENS = 100
MAX_NAME_PROBES = 4  # a pasted log's capitalised words must not each cost the keyword statement a probe
MAX_TERM_CHARS = 64  # a longer "word" (a hash, a base64 blob) is cut: its head still matches


def token_estimate(term: str) -> int:
    """Upper bound of the Lucene tokens ``term`` becomes: 1, plus one per character of a script
    the standard tokenizer splits per character (everything from Thai, U+0E00, up)."""
    return max(1, sum(1 for c in term if ord(c) >= 0x0E00 and c.isalpha()))


def informative_terms(terms: list[str], limit: int = MAX_QUERY_TERMS, budget: int = MAX_QUERY_TOKENS) -> list[str]:
    """The most informative of ``terms`` within ``limit`` terms and ``budget`` tokens, in their
    original order, each cut to :data:`MAX_TERM_CHARS`.

    Without corpus statistics at query time, length is the proxy for rarity (long words are
    rare words), and a term with a digit or ``_`` (an error code, an identifier) counts as
    long: those are what a long pasted query (a log, a stack trace) is usually about.
    """
    terms = [t[:MAX_TERM_CHARS] for t in terms]
    if len(terms) <= limit and sum(token_estimate(t) for t in terms) <= budget:
        return terms

    def weight(i: int) -> tuple[int, int]:
        term = terms[i]
        bonus = 8 if any(c.isdigit() or c == "_" for c in term) else 0
        return (-(len(term) + bonus), i)

    keep: list[int] = []
    used = 0
    for i in sorted(range(len(terms)), key=weight):
        cost = token_estimate(terms[i])
        if len(keep) == limit:
            break
        if used + cost <= budget:
            keep.append(i)
            used += cost
    return [terms[i] for i in sorted(keep)]


def escape(term: str) -> str:
    """Escape Lucene's special characters in one term."""
    return _LUCENE_SPECIAL.sub(r"\\\1", term)


def query_names(query: str) -> list[str]:
    """Capitalised words of ``query`` except its first word and stop words, lower-cased, possessive
    dropped, de-duplicated: the entities a question names ("Which city have both Jean and John
    visited?" → ``["jean", "john"]``). Two or more names mark a multi-entity (multi-hop) question."""
    out: dict[str, None] = {}
    for idx, word in enumerate(_NAME_WORD.findall(query)):
        if idx == 0 or not word[0].isupper():
            continue
        name = _POSSESSIVE.sub("", word).lower()
        if name and name not in STOP_WORDS:
            out[name] = None
    return list(out)


def _clauses(terms: list[str], role_boost: float) -> str:
    """The terms in every indexed field, plus (``role_boost`` > 0) once more in ``role``, boosted."""
    body = " ".join(escape(t) for t in terms)
    return f"({body}) role:({body})^{role_boost:g}" if role_boost > 0 else body


def lucene_query(query: str, ns: str | None = None, role_boost: float = 0.0) -> str | None:
    """An OR query over the content terms, required to be in namespace ``ns``; None if nothing is left.

    The ``ns`` clause is a phrase query on the indexed ``ns`` property: the analyzer tokenises
    namespaces, so it can over-match ("a-b" inside "a-b-c"); the Cypher statement filters on
    exact ``ns`` afterwards, the clause only keeps other namespaces from filling the limit.

    ``role_boost`` > 0 asks the same terms of the ``role`` field once more with that boost, so a
    question naming a speaker prefers the speaker's own turns (the unqualified terms already
    search every indexed field, ``role`` included; this clause adds weight to that match).
    """
    terms = informative_terms(content_terms(query))
    if not terms:
        return None
    body = _clauses(terms, role_boost)
    if ns is None:
        return body
    return f'+ns:"{escape(ns)}" +({body})'


@dataclass(frozen=True, slots=True)
class NameClause:
    """A word of the question that may name a speaker; the keyword statement picks one of its forms."""

    probe: str  # the escaped word, asked of the ``role`` field to learn whether someone speaks by it
    as_word: str  # its clauses when nobody does: like any other content word
    as_speaker: str  # its clause when someone does: the ``role`` field only


@dataclass(frozen=True, slots=True)
class KeywordQuery:
    """The keyword leg's Lucene query in parts: ``body`` holds the clauses of the content words that
    cannot name a speaker ("" if none), ``names`` the capitalised words that may."""

    body: str
    names: tuple[NameClause, ...]


def _speaker_clauses(term: str, role_boost: float, text_weight: float) -> str:
    """A speaker's name: ``role`` as any word has it (``(t) role:(t)^b`` also matches ``role`` unqualified),
    every field × ``text_weight``."""
    t = escape(term)
    role = f"role:({t})^{role_boost + 1 - text_weight:g}"  # the unqualified clause's role match, kept
    return f"({t})^{text_weight:g} {role}" if text_weight > 0 else role


def keyword_query(query: str, role_boost: float, speaker_text_weight: float = 0.0) -> KeywordQuery | None:
    """The keyword leg's query; None if no content word is left.

    With ``speaker_text_weight`` < 1 and ``role_boost`` > 0 a capitalised word ("Melanie", "Melanie's")
    is kept apart: if some turn of the namespace is spoken by that name, the statement asks it of the
    text × ``speaker_text_weight`` (0: not at all) and of ``role`` as usual, so the other speaker's turns
    that merely address them ("Hey Melanie!", "Thanks, Melanie") count less for a question about them;
    otherwise it is an ordinary word (a place, a pet, a book).
    """
    terms = informative_terms(content_terms(query))
    if not terms:
        return None
    names = set(query_names(query)[:MAX_NAME_PROBES]) if speaker_text_weight < 1 and role_boost > 0 else set()
    named = [t for t in terms if _POSSESSIVE.sub("", t) in names]
    rest = [t for t in terms if t not in named]
    clauses = tuple(
        NameClause(
            probe=escape(t),
            as_word=_clauses([t], role_boost),
            as_speaker=_speaker_clauses(t, role_boost, speaker_text_weight),
        )
        for t in named
    )
    return KeywordQuery(body=_clauses(rest, role_boost) if rest else "", names=clauses)

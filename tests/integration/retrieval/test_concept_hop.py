"""The concept hop on the real stack (Neo4j, Chroma, MiniLM, spaCy): a multi-hop question answered
through a concept that a search without the hop misses."""

from __future__ import annotations

import pytest

from kgmem.concepts import concept_id
from kgmem.conversation import Turn
from kgmem.retrieval import PRESETS

# The question names the bakery; only the first turn does too. The answer turn, in another session,
# shares no word with the question: it is reached through "Marisol" and "Harbor Street", the
# concepts it shares with the turn the question finds. The travel turns crowd the legs with words and meaning close to the
# question ("holiday", "trip"), so without the hop the answer is not in the head of the ranking.
CONVERSATION = [
    ("s1", "Ana", "My cousin Marisol opened the Bluefin bakery on Harbor Street last spring.", "a1"),
    ("s1", "Ben", "That's great, I love a good sourdough.", "a2"),
    ("s1", "Ana", "We are planning a holiday by the sea this summer.", "a3"),
    ("s1", "Ben", "My holiday last year was a road trip through the mountains.", "a4"),
    ("s2", "Ben", "Where should I travel for a short holiday in autumn?", "b1"),
    ("s2", "Ana", "A friend of mine went on holiday to Norway and hiked every day.", "b2"),
    ("s2", "Ben", "I booked a holiday cottage for the owner of my flat as a gift.", "b3"),
    ("s2", "Ana", "The best trips are the ones you plan the least.", "b4"),
    ("s3", "Ben", "The printer at work jammed again this morning.", "c1"),
    ("s3", "Ana", "Yesterday we had dinner with Marisol at her flat on Harbor Street: two weeks in Lisbon!", "c2"),
    ("s3", "Ben", "Our team finally shipped the new release.", "c3"),
    ("s3", "Ana", "I went on holiday to Crete and the travel was exhausting.", "c4"),
]
QUESTION = "Where did the owner of the Bluefin bakery travel on holiday?"
ANSWER = "c2"
K = 5


@pytest.fixture
def conversation(mem, ns):
    mem.turns.record(ns, [Turn(s, r, t, ref) for s, r, t, ref in CONVERSATION])
    return ns


def refs(mem, ns, config):
    return [h.ref for h in mem.retrieval.search(QUESTION, ns, k=K, config=config).hits]


HOP = PRESETS["balanced"].with_overrides(concept_hop=True)


def test_the_answer_is_reached_through_the_shared_concept(mem, conversation):
    config = HOP
    result = mem.retrieval.search(QUESTION, conversation, k=K, config=config)
    by_ref = {h.ref: h for h in result.hits}
    assert "a1" in by_ref, "the bakery turn is found directly"
    assert ANSWER in by_ref, [h.ref for h in result.hits]
    hit = by_ref[ANSWER]
    assert "concept" in hit.breakdown
    assert hit.provenance.path[0] == by_ref["a1"].id
    assert hit.provenance.path[2] in {concept_id(conversation, "marisol"), concept_id(conversation, "harbor street")}


def test_the_deep_preset_walks_the_concepts(mem, conversation):
    assert PRESETS["deep"].concept_hop and not PRESETS["balanced"].concept_hop
    assert ANSWER in refs(mem, conversation, PRESETS["deep"])


def test_without_the_concept_hop_the_answer_is_missed(mem, conversation):
    assert ANSWER not in refs(mem, conversation, PRESETS["balanced"])
    assert ANSWER not in refs(mem, conversation, HOP.with_overrides(concept_hop=False))
    assert ANSWER not in refs(mem, conversation, PRESETS["balanced"].with_overrides(use_graph=False, use_quality=False))


def test_seed_damping_splits_a_seed_over_the_concepts_it_mentions(mem, conversation):
    # The bakery turn mentions at least two walkable concepts (Marisol, Harbor Street), so with damping 1
    # it passes on at most half its score through each: the answer, reached through them, scores lower.
    # Were the read's degree missing (counted as 1), both scores would be equal.
    def answer(config):
        hits = {h.ref: h for h in mem.retrieval.search(QUESTION, conversation, k=len(CONVERSATION), config=config).hits}
        assert "concept" in hits[ANSWER].breakdown
        return hits[ANSWER].score

    flat, damped = answer(HOP), answer(HOP.with_overrides(concept_seed_damping=1.0))
    assert damped < flat * 0.75, (flat, damped)

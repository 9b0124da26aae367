"""The knowledge judges: each offline rule on its own, the shipped rule set, and the LLM judge's
batching, parsing, fallback and memory with a scripted generator (pure logic, no model)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest

from kgmem.analysis.judge import Judge, Pair, Statement, Verdict
from kgmem.analysis.llm_judge import LLMJudge, build_prompt, parse_answer
from kgmem.analysis.offline_judge import ALL_RULES, RULES, OfflineJudge, Thresholds, content, tokens
from kgmem.errors import GeneratorError

EVERY = OfflineJudge(rules=ALL_RULES)


def pair(
    new: str,
    old: str,
    sim: float = 0.8,
    new_triple: tuple[str, str, str] | None = None,
    old_triple: tuple[str, str, str] | None = None,
) -> Pair:
    return Pair(
        Statement(new, *(new_triple or (None, None, None))), Statement(old, *(old_triple or (None, None, None))), sim
    )


# -- the words the rules compare ---------------------------------------------------------------------
def test_tokens_spell_out_contractions_and_number_words() -> None:
    assert tokens("Tomás") == ["tomás"]
    assert tokens("I don't run twenty jobs.") == ["i", "do", "not", "run", "20", "jobs"]
    assert tokens("We can't use port 8,080") == ["we", "can", "not", "use", "port", "8,080"]
    assert content(tokens("The user runs the jobs")) == frozenset({"run", "job"})


# -- each rule on its own ----------------------------------------------------------------------------
def test_exact_is_the_same_normalised_text() -> None:
    assert EVERY.fires("exact", pair("The API runs on port 8080.", "the api runs on  port 8080", 0.99)) == "duplicate"
    assert EVERY.fires("exact", pair("The API runs on port 8080", "The API runs on port 9090", 0.97)) is None


def test_normalised_drops_punctuation_and_spells_out_contractions() -> None:
    assert EVERY.fires("normalised", pair("I don't use Vim!", "I do not use vim", 0.9)) == "duplicate"
    assert EVERY.fires("normalised", pair("I use Vim", "I use Emacs", 0.8)) is None


def test_negation_of_the_same_clause_is_a_contradiction() -> None:
    assert EVERY.fires("negation", pair("I don't drink coffee", "I drink coffee", 0.8)) == "contradiction"
    # the negation speaks of another clause than the one they share
    assert EVERY.fires("negation", pair("I drink coffee, but not tea", "I drink coffee", 0.8)) is None
    # both negate: they agree
    assert EVERY.fires("negation", pair("I never drink coffee", "I don't drink coffee", 0.9)) is None
    # two negations cancel
    assert EVERY.fires("negation", pair("It is not never on", "It is on", 0.8)) is None


def test_negation_needs_the_pair_to_be_close() -> None:
    judge = OfflineJudge(Thresholds(contradiction_cosine=0.6), rules=ALL_RULES)
    assert judge.fires("negation", pair("I don't drink coffee", "I drink coffee", 0.59)) is None


def test_other_amount_of_the_same_measure_is_a_contradiction() -> None:
    assert EVERY.fires("other_amount", pair("The API listens on port 9090", "The API listens on port 8080")) == (
        "contradiction"
    )
    assert EVERY.fires("other_amount", pair("Logs are kept for five days", "Logs are kept for 7 days")) == (
        "contradiction"
    )
    # the same amount spelled another way is no other amount
    assert EVERY.fires("other_amount", pair("Logs are kept for seven days", "Logs are kept for 7 days")) is None
    # other words around the numbers: another measure
    assert EVERY.fires("other_amount", pair("The cache holds 512 entries", "The API listens on port 8080")) is None


def test_other_object_of_the_same_subject_and_predicate_is_a_contradiction() -> None:
    new = pair(
        "My manager is Tomás",
        "My manager is Priya",
        0.8,
        ("user's manager", "is", "Tomás"),
        ("user's manager", "is", "Priya"),
    )
    assert EVERY.fires("other_object", new) == "contradiction"
    # "is" + the object's first word is the slot: written in / deployed on are two slots
    two_slots = pair(
        "The service is deployed on Fly.io",
        "The service is written in Rust",
        0.7,
        ("service", "is", "deployed on Fly.io"),
        ("service", "is", "written in Rust"),
    )
    assert EVERY.fires("other_object", two_slots) is None
    # objects sharing a word, or no triples at all: nothing to say
    shared = pair(
        "I live in New York", "I live in York", 0.8, ("user", "lives in", "New York"), ("user", "lives in", "York")
    )
    assert EVERY.fires("other_object", shared) is None
    assert EVERY.fires("other_object", pair("My manager is Tomás", "My manager is Priya")) is None


def test_embedding_threshold_is_a_paraphrase() -> None:
    judge = OfflineJudge(Thresholds(paraphrase_cosine=0.75), rules=ALL_RULES)
    assert (
        judge.fires("embedding", pair("We keep secrets in Vault", "Our secrets are stored in Vault", 0.75))
        == "paraphrase"
    )
    assert judge.fires("embedding", pair("We keep secrets in Vault", "Our secrets are stored in Vault", 0.74)) is None


def test_the_embedding_never_merges_a_correction_or_a_swapped_value() -> None:
    judge = OfflineJudge(Thresholds(paraphrase_cosine=0.75), rules=ALL_RULES)
    correction = Pair(
        Statement("The deploy target is staging", kind="correction"), Statement("Deploys go to prod"), 0.9
    )
    assert judge.fires("embedding", correction) is None
    assert judge.fires("embedding", pair("The release manager is Alex.", "The release manager is Sam.", 0.9)) is None
    assert judge.fires("embedding", pair("We run Python 3.12", "We run Python 3.11", 0.95)) is None
    # one word each, but not a value: a rewording, merged
    assert judge.fires("embedding", pair("The release manager is away", "The release manager is absent", 0.9)) == (
        "paraphrase"
    )


def test_the_embedding_never_merges_a_denial_of_what_the_other_says() -> None:
    judge = OfflineJudge(Thresholds(paraphrase_cosine=0.75), rules=ALL_RULES)
    for new, old in (
        ("I really don't like baggy clothes.", "I really like baggy clothes."),
        ("I like baggy clothes.", "I never liked baggy clothes."),  # either side may deny
        ("I'm located in the suburbs, not downtown.", "I'm located in downtown."),  # a negated clause
    ):
        assert judge.fires("embedding", pair(new, old, 0.9)) is None, (new, old)
        # the shipped rules keep the two beside each other: not merged, not a contradiction either
        assert OfflineJudge(Thresholds(paraphrase_cosine=0.75)).verdict(pair(new, old, 0.9)).relation == "distinct"


def test_a_negation_of_something_the_other_does_not_say_is_merged() -> None:
    judge = OfflineJudge(Thresholds(paraphrase_cosine=0.75), rules=ALL_RULES)
    # the negated clause names what the other leaves out: "not CSV" denies nothing the other affirms
    assert judge.fires("embedding", pair("The export writes Parquet, not CSV.", "The export writes Parquet.", 0.9)) == (
        "paraphrase"
    )
    # both deny the same clause
    assert judge.fires("embedding", pair("We don't use ORMs here.", "We do not use an ORM here.", 0.9)) == "paraphrase"
    # half or less of the negated clause's content words are affirmed by the other: merged
    assert judge.fires("embedding", pair("Tea, not coffee or juice.", "Tea and coffee.", 0.9)) == "paraphrase"


# -- the rules together ------------------------------------------------------------------------------
def test_a_contradiction_rule_is_tried_before_the_embedding() -> None:
    verdict = EVERY.verdict(pair("The API listens on port 9090", "The API listens on port 8080", 0.95))
    assert verdict == Verdict("contradiction", "other_amount", 0.95)


def test_nothing_found_is_distinct_and_each_verdict_names_its_evidence() -> None:
    found = OfflineJudge().verdicts([pair("I like tea", "We deploy on Fridays", 0.2), pair("a b c", "A b c.", 1.0)])
    assert [(v.relation, v.evidence) for v in found] == [("distinct", "none"), ("duplicate", "exact")]
    assert found[1].merges and not found[0].merges


def test_the_shipped_rules_leave_out_the_dropped_ones() -> None:
    judge = OfflineJudge()
    assert judge.rules == RULES and set(RULES) <= set(ALL_RULES)
    # negation is not shipped: a negated statement close enough is merged or kept, never a contradiction
    assert judge.verdict(pair("I don't drink coffee", "I drink coffee", 0.7)).relation != "contradiction"


def test_an_unknown_rule_is_named() -> None:
    with pytest.raises(ValueError, match="idioms"):
        OfflineJudge(rules=("exact", "idioms"))


def test_both_judges_satisfy_the_protocol() -> None:
    assert isinstance(OfflineJudge(), Judge)
    assert isinstance(LLMJudge(Scripted([]), OfflineJudge()), Judge)


# -- the LLM judge -----------------------------------------------------------------------------------
class Scripted:
    """A TextGenerator answering from a list; a GeneratorError in the list is raised."""

    name = "scripted"

    def __init__(self, answers: Sequence[str | Exception]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        self.prompts.append(prompt)
        answer = self.answers.pop(0) if self.answers else "{}"
        if isinstance(answer, Exception):
            raise answer
        return answer


def answer(*relations: str) -> str:
    return json.dumps({"verdicts": [{"pair": n, "relation": r} for n, r in enumerate(relations, 1)]})


PAIRS = [
    pair("My manager is Tomás now", "My manager is Priya", 0.7),
    pair("I keep my secrets in Vault", "Secrets live in HashiCorp Vault", 0.8),
    pair("I like tea", "I like coffee", 0.6),
]


def test_one_call_decides_every_pair_of_a_batch() -> None:
    generator = Scripted([answer("contradiction", "paraphrase", "distinct")])
    judge = LLMJudge(generator, OfflineJudge())
    found = judge.verdicts(PAIRS)
    assert [(v.relation, v.evidence) for v in found] == [
        ("contradiction", "llm"),
        ("paraphrase", "llm"),
        ("distinct", "llm"),
    ]
    assert len(generator.prompts) == 1
    assert judge.counters.as_dict() == {"calls": 1, "pairs": 3, "failures": 0, "fallbacks": 0}


def test_pairs_are_asked_in_calls_of_max_pairs() -> None:
    generator = Scripted([answer("contradiction", "paraphrase"), answer("distinct")])
    found = LLMJudge(generator, OfflineJudge(), max_pairs=2).verdicts(PAIRS)
    assert [v.relation for v in found] == ["contradiction", "paraphrase", "distinct"]
    assert [len(re.findall(r"<pair number=", p)) for p in generator.prompts] == [2, 1]


def test_a_judgement_counts_once_however_often_it_is_asked() -> None:
    generator = Scripted([answer("contradiction", "paraphrase", "distinct")])
    judge = LLMJudge(generator, OfflineJudge())
    first = judge.verdicts(PAIRS)
    again = judge.verdicts([PAIRS[1], PAIRS[1], PAIRS[0]])  # a retried batch, a pair twice
    assert [v.relation for v in again] == [first[1].relation, first[1].relation, first[0].relation]
    assert len(generator.prompts) == 1 and judge.counters.pairs == 3


def test_a_failed_call_falls_back_to_the_offline_judge() -> None:
    generator = Scripted([GeneratorError("scripted: gave up")])
    judge = LLMJudge(generator, OfflineJudge())
    found = judge.verdicts([pair("The API listens on port 9090", "The API listens on port 8080", 0.9)])
    assert found[0] == Verdict("contradiction", "other_amount", 0.9)
    assert judge.counters.failures == 1 and judge.counters.fallbacks == 1 and judge.counters.pairs == 0


@pytest.mark.parametrize(
    "text", ["not json", '{"verdicts": "x"}', "[]", '{"verdicts": [{"pair": "1", "relation": "distinct"}]}']
)
def test_an_unreadable_answer_falls_back(text: str) -> None:
    judge = LLMJudge(Scripted([text]), OfflineJudge())
    assert [v.evidence for v in judge.verdicts(PAIRS)] == ["none", "embedding", "none"]
    assert judge.counters.failures == 1 and judge.counters.fallbacks == 3


def test_pairs_the_answer_leaves_out_or_names_badly_fall_back() -> None:
    text = json.dumps(
        {
            "verdicts": [
                {"pair": 1, "relation": "contradiction"},
                {"pair": 2, "relation": "maybe"},
                {"pair": 9, "relation": "distinct"},
            ]
        }
    )
    judge = LLMJudge(Scripted([text]), OfflineJudge())
    found = judge.verdicts(PAIRS)
    assert [v.evidence for v in found] == ["llm", "embedding", "none"]
    assert judge.counters.fallbacks == 2 and judge.counters.failures == 0


def test_the_prompt_numbers_the_pairs_old_then_new() -> None:
    prompt = build_prompt(PAIRS[:2])
    assert '<pair number="1">\n<old>My manager is Priya</old>\n<new>My manager is Tomás now</new>' in prompt
    assert '<pair number="2">' in prompt and '<pair number="3">' not in prompt


def test_parse_answer_takes_the_json_object_around_prose() -> None:
    assert parse_answer('Sure: {"verdicts": [{"pair": 2, "relation": "Paraphrase"}]} done', 2) == {2: "paraphrase"}
    assert parse_answer('{"verdicts": [{"pair": 0, "relation": "distinct"}]}', 2) is None
    assert parse_answer("", 1) is None


def test_max_pairs_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_pairs"):
        LLMJudge(Scripted([]), OfflineJudge(), max_pairs=0)

"""Query → Lucene, presets, feedback levels, context rendering."""

from __future__ import annotations

import pytest

from kgmem.errors import ValidationError
from kgmem.retrieval import PRESETS, preset
from kgmem.retrieval.config import check_kinds
from kgmem.retrieval.context import estimate_tokens, render
from kgmem.retrieval.feedback import LEVELS, NOT_USED, signal, updates
from kgmem.retrieval.text import content_terms, keyword_query, lucene_query, query_names
from kgmem.retrieval.types import Provenance, SearchHit, SearchResult


def test_content_terms_drop_stop_words_and_duplicates():
    assert content_terms("What did Caroline do after the parade? Caroline!") == ["caroline", "parade"]


def test_lucene_query_escapes_syntax_and_requires_namespace():
    q = lucene_query('fix "timeout" in a/b (urgent)* AND', "team-a")
    assert q == '+ns:"team\\-a" +(fix timeout b urgent)'
    assert lucene_query("what is it", "ns") is None


def test_lucene_query_role_boost_adds_a_boosted_speaker_clause():
    assert (
        lucene_query("What did Caroline paint?", "ns", role_boost=1.0)
        == '+ns:"ns" +((caroline paint) role:(caroline paint)^1)'
    )
    assert lucene_query("What did Caroline paint?", "ns", role_boost=0.0) == '+ns:"ns" +(caroline paint)'
    assert lucene_query("what is it", "ns", role_boost=2.0) is None


@pytest.mark.parametrize(
    "query, names",
    [
        ("Which city have both Jean and John visited?", ["jean", "john"]),
        ("What do Melanie's kids like?", ["melanie"]),
        ("What did Caroline research?", ["caroline"]),
        ("When did she go to Paris?", ["paris"]),
        ("Caroline went where?", []),  # the first word is capitalised anyway
    ],
)
def test_query_names(query, names):
    assert query_names(query) == names


def test_keyword_query_keeps_each_name_apart_with_both_forms():
    q = keyword_query("What does Melanie's kid like about Paris?", role_boost=1.5)
    assert q.body == "(kid) role:(kid)^1.5"
    assert [(c.probe, c.as_word, c.as_speaker) for c in q.names] == [
        ("melanie's", "(melanie's) role:(melanie's)^1.5", "role:(melanie's)^2.5"),
        ("paris", "(paris) role:(paris)^1.5", "role:(paris)^2.5"),
    ]  # role only, as much as an ordinary word's role clauses: 1 (unqualified) + 1.5 (the boost)
    half = keyword_query("What does Melanie like?", role_boost=1.5, speaker_text_weight=0.5)
    assert half.names[0].as_speaker == "(melanie)^0.5 role:(melanie)^2"
    assert keyword_query("What does Melanie like?", role_boost=1.5, speaker_text_weight=1.0).names == ()


def test_keyword_query_of_names_only_and_without_role_boost():
    only = keyword_query("What about Caroline?", role_boost=2.0)
    assert only.body == "" and [c.probe for c in only.names] == ["caroline"]
    plain = keyword_query("What did Caroline paint?", role_boost=0.0)
    assert plain.body == "caroline paint" and plain.names == ()  # no role field: no speaker rule
    assert keyword_query("what is it", role_boost=1.5) is None


def test_keyword_query_probes_at_most_a_few_names():
    q = keyword_query("Alpha Bravo Charlie Delta Echo Foxtrot", role_boost=1.0)
    assert [c.probe for c in q.names] == ["bravo", "charlie", "delta", "echo"]  # the first word is no name
    assert q.body == "(alpha foxtrot) role:(alpha foxtrot)^1"


def test_presets_and_unknown_preset_named():
    assert set(PRESETS) == {"fast", "balanced", "deep"}
    assert not PRESETS["fast"].use_graph and PRESETS["deep"].hops == 2
    with pytest.raises(ValidationError, match="preset"):
        preset("turbo")


def test_overrides_are_validated():
    assert PRESETS["balanced"].with_overrides(rrf_k=10).rrf_k == 10
    with pytest.raises(ValidationError, match="rrf_k"):
        PRESETS["balanced"].with_overrides(rrf_k=0)


def test_kinds_validation():
    assert check_kinds("message,fix") == ("message", "fix")
    with pytest.raises(ValidationError, match="kinds"):
        check_kinds(["message", "tweet"])


def test_feedback_levels_match_the_design():
    assert LEVELS == {"included": 0.2, "referenced": 0.5, "success": 0.8, "positive": 1.0, "negative": -1.0}
    assert NOT_USED == -0.1
    assert signal(0.3) == 0.3
    with pytest.raises(ValidationError, match="outcome"):
        signal("great")
    with pytest.raises(ValidationError, match="outcome"):
        signal(2.0)


def test_updates_reward_used_and_penalise_retrieved_not_used():
    ups = updates([("a", "message"), ("b", "fix"), ("c", "knowledge")], ["b"], "success")
    assert [(u.id, u.kind, u.delta) for u in ups] == [
        ("b", "fix", 0.8),
        ("a", "message", -0.1),
        ("c", "knowledge", -0.1),
    ]
    with pytest.raises(ValidationError, match="used"):
        updates([("a", "message")], ["zzz"], "included")


def _hit(i: int, text: str) -> SearchHit:
    return SearchHit(
        id=f"id{i}",
        kind="message",
        text=text,
        score=1.0 / i,
        breakdown={"distance": 0.2},
        provenance=Provenance(legs=("vector", "keyword")),
        ref=f"r{i}",
        session="s1",
        ts="2024-05-01T00:00:00+00:00",
        metadata={"role": "user"},
    )


def test_render_numbers_citations_and_respects_the_budget():
    result = SearchResult("q1", "query", "ns", "balanced", [_hit(i, "word " * 40) for i in range(1, 6)])
    ctx = render(result, max_tokens=150)
    assert ctx.text.splitlines()[1].startswith("[1] (message · session s1 · ref r1 · 2024-05-01) user: word")
    assert estimate_tokens(ctx.text) <= 150 + len(ctx.citations)
    assert 1 <= len(ctx.citations) < 5 and ctx.omitted
    assert 0 < ctx.confidence <= 1


def test_render_without_hits_says_so_with_zero_confidence():
    ctx = render(SearchResult("q", "x", "ns", "fast", []), 100)
    assert "nothing relevant" in ctx.text and ctx.confidence == 0.0


def test_settings_overrides_apply_to_every_preset_and_are_checked_at_start() -> None:
    from kgmem.errors import ValidationError
    from kgmem.retrieval.service import Retrieval

    retrieval = Retrieval(None, None, None, "balanced", {"rrf_k": 60, "vector_weight": 0.7})  # type: ignore[arg-type]
    assert retrieval._preset(None).rrf_k == 60 and retrieval._preset("fast").vector_weight == 0.7
    assert retrieval._preset("deep").hops == 2  # everything else stays the preset's
    with pytest.raises(ValidationError, match="rrf_k"):
        Retrieval(None, None, None, "balanced", {"rrf_k": 0})  # type: ignore[arg-type]


def test_long_queries_keep_the_most_informative_terms_within_lucenes_clause_limit() -> None:
    from kgmem.retrieval.text import MAX_QUERY_TERMS, MAX_QUERY_TOKENS, informative_terms, token_estimate

    filler = [a + b for a in "bcdfghjklmnp" for b in "aeiouy"]  # 72 short words
    words = filler + ["kubernetes"] + filler[::-1][:40] + ["E1234"]
    words = list(dict.fromkeys(words))
    kept = informative_terms(words)
    assert len(words) > MAX_QUERY_TERMS and len(kept) == MAX_QUERY_TERMS
    assert "kubernetes" in kept and "E1234" in kept  # long words and codes outrank short ones
    assert kept == [w for w in words if w in kept]  # original order
    cjk = informative_terms(["漢字" * 40, "日本語" * 40, "kafka"])  # every ideograph is its own token
    assert sum(token_estimate(t) for t in cjk) <= MAX_QUERY_TOKENS and "kafka" in cjk
    assert informative_terms(["a" * 10_000]) == ["a" * 64]

"""Graph RAG search on the real stack: legs, fusion, expansion, scope, threshold, feedback, context."""

from __future__ import annotations

import uuid

import pytest

from kgmem.conversation import Turn
from kgmem.errors import ValidationError
from kgmem.maintenance import delete_namespace
from kgmem.retrieval import PRESETS, Scope, UnknownQuery
from tests.settled import hit_scores, settled

# A small corpus with known answers. Two questions are lexical (rare codes/names the model has
# no meaning for), two are paraphrases that share no content word with their answer.
CORPUS = [
    ("s1", "user", "The nightly job failed again last night.", "c1"),
    ("s1", "assistant", "Error QX-7731 means the staging bucket quota is exhausted.", "c2"),
    ("s1", "user", "My automobile would not start this morning, the battery seemed dead.", "c3"),
    ("s1", "assistant", "Jump-start it with cables from another vehicle, then charge it.", "c4"),
    ("s1", "user", "Invoices for the Zorblatt account go to the finance mailbox.", "c5"),
    ("s1", "assistant", "We moved the office plants to the sunny side of the room.", "c6"),
    ("s1", "user", "I feel really anxious before presenting to a large audience.", "c7"),
    ("s1", "assistant", "The cafeteria serves soup on Mondays and Thursdays.", "c8"),
    ("s1", "user", "Our release train leaves every second Wednesday.", "c9"),
    ("s1", "assistant", "The printer on floor three needs new toner cartridges.", "c10"),
    ("s1", "user", "Remember that the staging cluster runs Kubernetes 1.29.", "c11"),
    ("s1", "assistant", "Lunch meetings are booked through the shared calendar.", "c12"),
    ("s1", "assistant", "Error QX-1907 means the staging bucket permissions are wrong.", "c13"),
    ("s1", "assistant", "Error QX-5521 means the staging bucket was deleted.", "c14"),
    ("s1", "user", "Invoices for the Plimbo account go to the legal mailbox.", "c15"),
    ("s1", "user", "Invoices for the Vextor account go to the sales mailbox.", "c16"),
    ("s1", "user", "Ticket 48213 is about the login page layout.", "c17"),
    ("s1", "user", "Ticket 91577 is about the checkout page layout.", "c18"),
    ("s1", "user", "Ticket 30265 is about the search page layout.", "c19"),
]
QUESTIONS = {  # query -> the ref that answers it
    "what does QX-7731 mean": "c2",
    "where do Zorblatt invoices go": "c5",
    "which page is ticket 30265 about": "c19",
    "my car broke down": "c3",
    "nervous about speaking in public": "c7",
}


@pytest.fixture
def corpus(mem, ns):
    mem.turns.record(ns, [Turn(s, r, t, ref) for s, r, t, ref in CORPUS])
    return ns


def hit_at(mem, ns, config, k=1) -> int:
    """How many questions have their answer in the top k."""
    found = 0
    for query, ref in QUESTIONS.items():
        result = mem.retrieval.search(query, ns, k=k, config=config)
        found += ref in [h.ref for h in result.hits]
    return found


def test_hybrid_beats_either_leg(mem, corpus):
    base = PRESETS["balanced"]
    vector = hit_at(mem, corpus, base.with_overrides(use_keyword=False, use_graph=False, use_quality=False))
    keyword = hit_at(mem, corpus, base.with_overrides(use_vector=False, use_graph=False, use_quality=False))
    hybrid = hit_at(mem, corpus, base.with_overrides(use_graph=False, use_quality=False))
    assert hybrid > vector and hybrid > keyword, (vector, keyword, hybrid)
    assert hybrid == len(QUESTIONS)


def test_hit_carries_breakdown_provenance_and_caller_ref(mem, corpus):
    result = mem.search("what does QX-7731 mean", ns=corpus, k=3)
    top = result.hits[0]
    assert result.query_id and top.ref == "c2" and top.session == "s1" and top.kind == "message"
    assert {"vector", "keyword"} <= set(top.provenance.legs)
    assert top.breakdown["keyword"] > 0 and top.breakdown["vector"] > 0 and "quality" in top.breakdown
    assert top.ts is not None
    assert top.score == pytest.approx(top.breakdown["fused"] * top.breakdown["quality"])


def test_explain_times_every_stage_and_changes_no_hit(mem, corpus):
    def searches():
        return mem.search("what does QX-7731 mean", ns=corpus, k=5), mem.search(
            "what does QX-7731 mean", ns=corpus, k=5, explain=True
        )

    plain, explained = settled(searches, key=lambda both: [hit_scores(r) for r in both])
    assert [(h.id, h.score) for h in explained.hits] == [(h.id, h.score) for h in plain.hits]
    stages = {"embed", "vector", "keyword", "legs", "fusion", "expand", "rank", "total"}
    assert {f"{s}_ms" for s in stages} <= set(explained.timings_ms)
    assert all(explained.timings_ms[f"{s}_ms"] >= 0 for s in stages)
    assert not {f"{s}_ms" for s in stages - {"legs", "expand", "total"}} & set(plain.timings_ms)


def test_expansion_brings_a_neighbouring_turn(mem, ns):
    mem.turns.record(
        ns,
        [
            Turn("ops", "user", "Which port does the billing API listen on?", "q"),
            Turn("ops", "assistant", "8443, set in deploy/values.yaml.", "a"),
            Turn("ops", "user", "Thanks, and who owns the dashboards?", "q2"),
        ],
    )
    result = mem.search("billing API port", ns=ns, k=5)
    answer = next(h for h in result.hits if h.ref == "a")
    assert "graph" in answer.provenance.legs
    assert "NEXT" in answer.provenance.path
    fast = mem.search("billing API port", ns=ns, k=5, preset="fast")
    assert "a" not in [h.ref for h in fast.hits]  # no traversal: the answer shares no word with the question


def test_expansion_brings_the_fix_of_a_matched_error(mem, ns):
    obs = mem.tool_result(
        "psql", {"host": "db"}, error="could not connect to server: Connection refused on port 5432", session="s"
    )
    mem.resolve(obs, "start the postgres container first (docker compose up -d postgres)")
    result = mem.search("connection refused when connecting to the server", ns=ns, k=10, kinds=["error", "fix"])
    kinds = [h.kind for h in result.hits]
    assert kinds[0] == "error"
    fix = next(h for h in result.hits if h.kind == "fix")
    assert "graph" in fix.provenance.legs and "RESOLVED_BY" in fix.provenance.path
    assert fix.provenance.path[0] == result.hits[0].id  # the path starts at the matched error


def test_namespace_isolation(mem, corpus, graph):
    other = f"test-other-{uuid.uuid4().hex[:8]}"
    try:
        mem.turns.record(other, [Turn("s1", "user", "Error QX-7731 means the staging bucket quota is exhausted.", "x")])
        mine = mem.search("QX-7731 bucket quota", ns=corpus, k=20)
        theirs = mem.search("QX-7731 bucket quota", ns=other, k=20)
        assert "x" not in [h.ref for h in mine.hits]
        assert [h.ref for h in theirs.hits] == ["x"]
        assert not {h.id for h in mine.hits} & {h.id for h in theirs.hits}
    finally:
        delete_namespace(graph, mem.vectors, other)


def test_session_scope(mem, ns):
    mem.turns.record(
        ns,
        [
            Turn("alpha", "user", "The deploy password rotates every Friday.", "a1"),
            Turn("beta", "user", "The deploy password is kept in the vault.", "b1"),
            Turn("beta", "user", "Deploy windows are Tuesday mornings.", "b2"),
        ],
    )
    everything = {h.ref for h in mem.search("deploy password", ns=ns, k=10).hits}
    only_beta = mem.search("deploy password", ns=ns, k=10, session="beta")
    assert {"a1", "b1"} <= everything
    assert only_beta.hits and {h.session for h in only_beta.hits} == {"beta"}


def test_distance_threshold_drops_junk(mem, corpus):
    config = PRESETS["balanced"].with_overrides(use_keyword=False, use_graph=False, use_quality=False)
    raw = mem.vectors.query(corpus, "message", mem.embedder.embed_query("lorem ipsum dolor sit amet"), 5)
    assert raw  # Chroma always returns nearest neighbours, however far
    junk = mem.retrieval.search("lorem ipsum dolor sit amet", corpus, k=5, config=config)
    assert junk.hits == []
    relevant = mem.retrieval.search("my car would not start", corpus, k=5, config=config)
    assert relevant.hits and relevant.hits[0].ref == "c3"
    assert all(h.breakdown["vector"] >= 1 - config.max_distance for h in relevant.hits)


def test_feedback_moves_a_used_item_up(mem, ns):
    mem.turns.record(
        ns,
        [
            Turn("s", "user", "The API token lives in the vault under secret/api.", "first"),
            Turn("s", "user", "The API token lives in the vault under secret/api-v2.", "second"),
        ],
    )
    before = mem.search("where is the API token", ns=ns, k=2)
    refs = [h.ref for h in before.hits]
    assert set(refs) == {"first", "second"}
    loser = before.hits[1]
    mem.feedback(before.query_id, used=[loser], outcome="success")  # a hit or its id
    after = mem.search("where is the API token", ns=ns, k=2)
    assert after.hits[0].id == loser.id
    assert after.hits[0].breakdown["usage"] > 1.0 > after.hits[1].breakdown["usage"]


def test_feedback_validates_input(mem, corpus):
    result = mem.search("QX-7731", ns=corpus, k=2)
    with pytest.raises(UnknownQuery):
        mem.feedback("no-such-query", used=[], outcome="included")
    with pytest.raises(ValidationError, match="used"):
        mem.feedback(result.query_id, used=["not-a-hit"], outcome="included")
    with pytest.raises(ValidationError, match="outcome"):
        mem.feedback(result.query_id, used=[], outcome="brilliant")


def test_context_has_numbered_citations_within_budget(mem, corpus):
    ctx = mem.context("what does QX-7731 mean", max_tokens=60, ns=corpus, k=5)
    lines = ctx.text.splitlines()
    assert lines[1].startswith("[1] ") and "QX-7731" in lines[1]
    assert len(ctx.text) <= 60 * 4 + 8
    assert 0 < ctx.confidence <= 1 and ctx.query_id


def test_bad_arguments_name_the_field(mem, corpus):
    with pytest.raises(ValidationError, match="query"):
        mem.search("   ", ns=corpus)
    with pytest.raises(ValidationError, match="kinds"):
        mem.search("x", ns=corpus, kinds=["tweets"])
    with pytest.raises(ValidationError, match="k:"):
        mem.search("x", ns=corpus, k=0)
    with pytest.raises(ValidationError, match="preset"):
        mem.search("x", ns=corpus, preset="ludicrous")
    assert Scope.build(corpus).kinds == ("message", "knowledge", "error", "fix", "entity")


def test_missing_fulltext_index_is_named(mem, corpus):
    from kgmem.retrieval.keyword import SearchIndexMissing

    config = PRESETS["fast"].with_overrides(keyword_index="no_such_index")
    with pytest.raises(SearchIndexMissing, match="no_such_index"):
        mem.retrieval.search("QX-7731", corpus, config=config)


# The keyword leg alone, as the balanced preset configures it.
KEYWORD_ONLY = PRESETS["balanced"].with_overrides(use_vector=False, use_graph=False, use_quality=False)


def test_keyword_role_boost_prefers_the_named_speaker(mem, ns):
    # Melanie's turn names Caroline and repeats the content word; Caroline's own turn is the answer.
    mem.turns.record(
        ns,
        [
            Turn("s1", "Melanie", "Caroline, your pottery looks great!", "r1"),
            Turn("s1", "Caroline", "I finished a pottery bowl at my class yesterday.", "r2"),
            Turn("s1", "Melanie", "We went camping with the kids at the lake.", "r3"),
            Turn("s1", "Caroline", "The adoption interview went well this week.", "r4"),
        ],
    )
    keyword = KEYWORD_ONLY
    query = "What pottery did Caroline make?"

    def scores(config):
        return {h.ref: h.score for h in mem.retrieval.search(query, ns, k=4, config=config).hits}

    # The default boost and none. Whether the boost lifts Caroline's turn past Melanie's depends on how
    # common "Caroline" is as a speaker across the index (its statistics span every namespace, and the
    # other worker may hold a LoCoMo conversation of hers), so the test asks what holds on any data:
    # her turn gains on Melanie's.
    boosted, plain = settled(lambda: (scores(keyword), scores(keyword.with_overrides(keyword_role_boost=0.0))))
    assert plain["r1"] > plain["r2"]  # without the boost, the turn that names her in its text wins
    assert boosted["r2"] / boosted["r1"] > plain["r2"] / plain["r1"]
    assert boosted["r1"] == pytest.approx(plain["r1"])  # Melanie's turn: no role match, no boost


def test_keyword_speaker_text_weight_sets_apart_turns_that_only_address_the_speaker(mem, ns):
    # Caroline's turn names Melanie and the content word; Melanie's own turn is the answer. With the
    # speaker's name asked of the role field only, the turn that only addresses her drops; a capitalised
    # word nobody speaks by (Lisbon) still matches the text.
    mem.turns.record(
        ns,
        [
            Turn("s1", "Caroline", "Hey Melanie! Pottery again this week?", "r1"),
            Turn(
                "s1",
                "Melanie",
                "Yes, the pottery class on Tuesdays keeps me calm after a long week of work and school runs.",
                "r2",
            ),
            Turn("s1", "Caroline", "I loved the art show in Lisbon.", "r3"),
            Turn("s1", "Melanie", "We went camping with the kids at the lake.", "r4"),
        ],
    )
    keyword = KEYWORD_ONLY
    role_only = keyword.with_overrides(keyword_speaker_text_weight=0.0)
    query = "What does Melanie like about pottery?"

    place = "Which show was in Lisbon?"  # a capitalised word nobody speaks by stays an ordinary word

    def bm25(question, config):  # BM25 scores by ref (the index's statistics span every test's data)
        return {h.ref: h.score for h in mem.retrieval.search(question, ns, k=4, config=config).hits}

    plain_q, role_q, plain, probed = settled(
        lambda: (bm25(query, keyword), bm25(query, role_only), bm25(place, keyword), bm25(place, role_only))
    )
    assert role_q["r1"] < plain_q["r1"]  # Melanie no longer matches the text that addresses her
    assert role_q["r2"] == pytest.approx(plain_q["r2"])  # her own turn scores as before (the role clauses kept)
    assert max(plain, key=plain.get) == "r3" and probed == pytest.approx(plain)


def test_speaker_prior_marks_down_what_another_speaker_said(mem, ns):
    # A question naming Melanie: Caroline's turns (one addresses Melanie by name) score × speaker_prior,
    # Melanie's own turns keep their score; a question naming nobody who speaks is left alone.
    mem.turns.record(
        ns,
        [
            Turn("s1", "Caroline", "Hey Melanie! Pottery again this week?", "r1"),
            Turn("s1", "Melanie", "Yes, the pottery class on Tuesdays keeps me calm after work.", "r2"),
            Turn("s1", "Caroline", "My pottery teacher moved to Lisbon.", "r3"),
            Turn("s1", "Melanie", "We went camping with the kids at the lake.", "r4"),
        ],
    )
    on = PRESETS["balanced"]
    off = on.with_overrides(speaker_prior=1.0)
    query = "What does Melanie like about pottery?"

    def hits(config):
        return {h.ref: h for h in mem.retrieval.search(query, ns, k=4, config=config).hits}

    with_prior, without = settled(
        lambda: (hits(on), hits(off)), key=lambda both: [{r: h.score for r, h in side.items()} for side in both]
    )
    assert on.speaker_prior < 1.0  # on by default
    for ref in ("r1", "r3"):
        assert with_prior[ref].breakdown["speaker"] == on.speaker_prior
        assert with_prior[ref].score == pytest.approx(without[ref].score * on.speaker_prior)
    assert "speaker" not in with_prior["r2"].breakdown
    assert with_prior["r2"].score == pytest.approx(without["r2"].score)
    nobody = {h.ref: h for h in mem.retrieval.search("Who moved to Lisbon?", ns, k=4, config=on).hits}
    assert all("speaker" not in h.breakdown for h in nobody.values())


def test_graph_rag_hits_show_what_the_legs_payload_would(mem, corpus):
    # Graph RAG asks Chroma for ids and distances only and the full-text read for ids and scores
    # (Scope.payload); every hit it returns is hydrated by the expansion read instead. The hits of
    # the same items from plain hybrid (which carries the legs' payload) must read the same.
    hybrid_cfg = PRESETS["balanced"].with_overrides(use_graph=False, use_quality=False)
    for query in QUESTIONS:
        graph_hits = {h.id: h for h in mem.retrieval.search(query, corpus, k=10).hits}
        hybrid_hits = mem.retrieval.search(query, corpus, k=10, config=hybrid_cfg).hits
        shared = [h for h in hybrid_hits if h.id in graph_hits]
        assert shared, query
        for h in shared:
            g = graph_hits[h.id]
            assert (g.text, g.ref, g.session, g.ts, g.metadata.get("role"), g.metadata.get("seq")) == (
                h.text,
                h.ref,
                h.session,
                h.ts,
                h.metadata.get("role"),
                h.metadata.get("seq"),
            ), (query, h.id)
            if "vector" in h.provenance.legs:
                assert g.breakdown["distance"] == pytest.approx(h.breakdown["distance"])


def test_the_expansion_read_expands_each_named_entitys_first_pool_item(mem, graph, ns):
    # A question naming two or more entities also expands, for each name, the first item of the pool
    # (best first) whose "role: text" has the name as a whole word; the legs carry no text for it.
    mem.turns.record(
        ns,
        [
            Turn("s1", "Jon", "I opened a dance studio downtown.", "jon"),
            Turn("s1", "Gina", "I lost my job at Door Dash.", "gina"),
            Turn("s1", "Melanie", "Jonathan called about the lease.", "jonathan"),
            Turn("s1", "Gina", "Jon helped me set up the store.", "both"),
            Turn("s1", "Melanie", "We met José at the market.", "jose"),
        ],
    )
    ids = {m["ref"]: m["id"] for m in mem.turns.messages(ns, "s1")}

    def expanded(names, pool, seeds=None):
        seeds = seeds or list(ids)
        rows = graph.read(
            "retrieval/expand",
            ns=ns,
            hops=1,
            decay=0.5,
            per_seed=3,
            labels=["Message"],
            session=None,
            overlay_session=None,
            overlay_epoch=0,
            overlay_damping=1.0,
            as_of=None,
            seeds=[{"id": ids[r], "label": "Message", "expand": False} for r in seeds],
            names=names,
            pool_rank={ids[r]: i for i, r in enumerate(pool)},
        )[0]["rows"]
        by_id = {v: k for k, v in ids.items()}
        return {by_id[r["id"]] for r in rows if r["expand"]}, {by_id[r["id"]]: r for r in rows}

    picked, rows = expanded(["jon", "gina"], ["jon", "gina", "jonathan", "both"])
    assert picked == {"jon", "gina"}  # the speaker counts
    assert all(rows[r]["expanded"] for r in picked) and not rows["both"]["expanded"]
    picked, _ = expanded(["jon", "gina"], ["jonathan", "both", "gina", "jon"])
    assert picked == {"both"}  # "Jonathan" is not "Jon"; the first match in pool order wins, for both names
    picked, _ = expanded(["jon", "gina"], ["jonathan", "gina"])
    assert picked == {"gina"}  # only the pool is searched
    picked, _ = expanded(["josé", "gina"], ["jose", "gina"])
    assert picked == {"jose", "gina"}  # word boundaries of non-ASCII names, as Python's re has them
    picked, _ = expanded([], ["jon", "gina"])
    assert picked == set()

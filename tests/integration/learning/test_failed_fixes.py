"""Knowledge that gets better with use (near-twins): a borrowed fix that failed is not
offered again, the SIMILAR_TO link that lent it stops lending, and a borrowed fix that works
keeps coming back with rising confidence. Real Neo4j + Chroma + embedding model."""

from __future__ import annotations

import pytest
from near_twins import PRIVATE, SPELLING, TYPO, similar_link  # type: ignore[import-not-found]

from kgmem import KGMem
from kgmem.learning.confidence import ConfidenceRules, after_outcomes

# A true variant: the same Postgres error behind a docker-compose prefix, another user.
PG = 'FATAL:  password authentication failed for user "nfldb"'
PG_WRAPPED = 'db_1  | 2024-01-02 03:04:05 UTC [1] FATAL:  password authentication failed for user "postgres"'


def _edge(driver, ns: str, error_id: str, fix_id: str) -> dict:
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns, id: $e})-[r:RESOLVED_BY]->(:Fix {ns: $ns, id: $f}) RETURN r {.*} AS r",
        ns=ns,
        e=error_id,
        f=fix_id,
    )
    return records[0]["r"]


def _descriptions(obs) -> set[str]:
    return {f.description for f in obs.fixes}


def _borrowed_twin(mem: KGMem):
    """The look-alike resolved (twice) and the twin's first occurrence, which borrows its fix."""
    typo = mem.tool_result("npm", {"pkg": "lodahs"}, error=TYPO, session="s1")
    mem.resolve(typo, SPELLING)
    mem.resolve(typo.id, SPELLING, session="s2")  # by id: a second report (one Observation counts once)
    twin = mem.tool_result("npm", {"pkg": "@acme/ui"}, error=PRIVATE, session="s3")
    assert twin.id != typo.id
    [borrowed] = [f for f in twin.fixes if f.description == SPELLING]  # the wrong fix matching hands over
    assert borrowed.kind == "similar" and borrowed.via_error_id == typo.id
    return typo, twin, borrowed


def test_a_failed_borrowed_fix_is_not_offered_again_and_the_link_stops_lending(mem: KGMem, driver, ns: str) -> None:
    rules = ConfidenceRules.from_settings(mem.settings.learning)
    typo, twin, borrowed = _borrowed_twin(mem)
    score = similar_link(driver, ns, twin.id, typo.id)["score"]

    out = mem.fix_applied(twin, borrowed.description, success=False)
    assert (out.successes, out.failures) == (0, 1)
    link = similar_link(driver, ns, twin.id, typo.id)
    assert link["contradicted"] == 1 and link.get("confirmed", 0) == 0 and link["rejected_at"]

    # The next occurrence of the twin: the failed fix is not offered (directly or borrowed) but listed.
    again = mem.tool_result("npm", {"pkg": "@acme/ui"}, error=PRIVATE, session="s4")
    assert again.id == twin.id and SPELLING not in _descriptions(again)
    [failed] = again.failed_fixes
    assert (failed.description, failed.failures, failed.fix_id) == (SPELLING, 1, borrowed.fix_id)
    assert failed.last_used

    # The look-alike learns another fix: it does not flow over the contradicted link ...
    mem.resolve(typo, "clear the npm cache", session="s5")
    third = mem.tool_result("npm", {}, error=PRIVATE, session="s6")
    assert third.fixes == () and [f.description for f in third.failed_fixes] == [SPELLING]
    # ... nor does a success of the failed fix on the look-alike propagate to the twin's edge.
    mem.resolve(typo, SPELLING, session="s7")
    assert _edge(driver, ns, twin.id, borrowed.fix_id)["confidence"] == pytest.approx(after_outcomes([False], rules))

    # Re-linking the pair (a re-index) neither resurrects nor re-scores the contradicted link.
    driver.execute_query("MATCH (e:ErrorPattern {ns: $ns, id: $id}) SET e.vector_pending = true", ns=ns, id=twin.id)
    assert mem.index_errors() == 1
    relinked = similar_link(driver, ns, twin.id, typo.id)
    assert relinked["contradicted"] == 1 and relinked["score"] == score
    assert mem.tool_result("npm", {}, error=PRIVATE).fixes == ()

    # The other error is not affected: it keeps both of its fixes.
    assert {SPELLING, "clear the npm cache"} <= _descriptions(mem.tool_result("npm", {}, error=TYPO))


def test_a_borrowed_fix_that_works_keeps_coming_back_with_rising_confidence(mem: KGMem, driver, ns: str) -> None:
    rules = ConfidenceRules.from_settings(mem.settings.learning)
    first = mem.tool_result("psql", {}, error=PG, session="s1")
    mem.resolve(first, "set PGPASSWORD")
    variant = mem.tool_result("psql", {}, error=PG_WRAPPED, session="s2")
    [borrowed] = [f for f in variant.fixes if f.description == "set PGPASSWORD"]
    assert borrowed.kind == "similar"

    mem.fix_applied(variant, borrowed.description, success=True)
    link = similar_link(driver, ns, variant.id, first.id)
    assert link["confirmed"] == 1 and link.get("contradicted", 0) == 0
    second = mem.tool_result("psql", {}, error=PG_WRAPPED, session="s3")
    assert second.fixes[0].description == "set PGPASSWORD" and second.fixes[0].kind == "direct"
    assert second.fixes[0].confidence == pytest.approx(after_outcomes([True], rules)) and second.failed_fixes == ()
    mem.fix_applied(second, "set PGPASSWORD", success=True)
    third = mem.tool_result("psql", {}, error=PG_WRAPPED, session="s4")
    assert third.fixes[0].confidence == pytest.approx(after_outcomes([True, True], rules)) and third.fixes[0].auto_apply
    assert similar_link(driver, ns, variant.id, first.id)["confirmed"] == 1  # one confirmation per fix, not per success

    # A confirmed link keeps lending: a new fix of the first error reaches the variant.
    mem.resolve(first, "use the .pgpass file", session="s5")
    assert "use the .pgpass file" in _descriptions(mem.tool_result("psql", {}, error=PG_WRAPPED))


def test_a_failed_fix_comes_back_once_it_succeeds(mem: KGMem, driver, ns: str) -> None:
    rules = ConfidenceRules.from_settings(mem.settings.learning)
    typo, twin, borrowed = _borrowed_twin(mem)
    mem.fix_applied(twin, borrowed.description, success=False)
    assert SPELLING not in _descriptions(mem.tool_result("npm", {}, error=PRIVATE))

    mem.fix_applied(twin.id, borrowed.description, success=True, session=twin.session)  # it did work, after all
    back = mem.tool_result("npm", {}, error=PRIVATE)
    [fix] = [f for f in back.fixes if f.description == SPELLING]
    assert fix.kind == "direct" and fix.confidence == pytest.approx(after_outcomes([False, True], rules))
    assert back.failed_fixes == ()
    link = similar_link(driver, ns, twin.id, typo.id)
    assert (link["contradicted"], link["confirmed"]) == (1, 1)  # even: the link lends again
    mem.resolve(typo, "clear the npm cache", session="s9")
    assert "clear the npm cache" in _descriptions(mem.tool_result("npm", {}, error=PRIVATE))


def test_a_failure_of_a_fix_that_worked_here_contradicts_nothing(mem: KGMem, driver, ns: str) -> None:
    typo, twin, borrowed = _borrowed_twin(mem)
    mem.fix_applied(twin, borrowed.description, success=True)
    # flaky, but it has worked here (by id: another report, not a repeat of the Observation's judgement)
    mem.fix_applied(twin.id, borrowed.description, success=False, session=twin.session)
    link = similar_link(driver, ns, twin.id, typo.id)
    assert link.get("contradicted", 0) == 0 and link["confirmed"] == 1
    again = mem.tool_result("npm", {}, error=PRIVATE)
    assert SPELLING in _descriptions(again) and again.failed_fixes == ()


def test_the_corpus_measure_with_feedback(mem: KGMem, ns: str) -> None:
    """The bench's second pass (measure_with_feedback in benchmarks/error_corpus.py) on a hand-made corpus."""
    from benchmarks.error_corpus import CorpusRow, measure_with_feedback

    rows = [
        CorpusRow("v", "npm-typo", "general", TYPO, "here"),
        CorpusRow("v", "npm-typo", "general", "$ npm install lodahs\n" + TYPO, "here"),
        CorpusRow("v", "pg-auth", "permission", PG, "here"),
        CorpusRow("v", "pg-auth", "permission", PG_WRAPPED, "here"),
        CorpusRow("n", "npm-private", "general", PRIVATE, "here", confusable_with="npm-typo"),
    ]
    result = measure_with_feedback(mem, ns, rows, "here")
    assert result.first.negatives_fixed == ["npm-private"] and result.first.variants_fixed == 2
    assert result.failures_reported >= 1
    assert result.negatives_fixed == [] and result.negatives_listed == 1
    assert result.variants_fixed == 2 and result.wrong_fixes == 0
    assert result.new_fix_variants == 2 and result.new_fix_negatives == [] and result.new_fix_wrong == 0

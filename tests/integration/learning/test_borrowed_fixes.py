"""A fix learnt on one error acts on another only when the two are provably the same error (same tool,
core template and identity keys); otherwise it is offered as a suggestion with its evidence — on the
real stack (Neo4j + Chroma + the embedding model), through the write path and the deferred repeat path."""

from __future__ import annotations

import pytest

from kgmem import KGMem
from near_twins import PRIVATE, SPELLING, TYPO

pytestmark = pytest.mark.integration


def _fix(obs, description: str):
    return next((f for f in obs.fixes if f.description == description), None)


def test_a_users_correction_reaches_a_look_alike_only_as_a_suggestion(mem: KGMem, ns: str) -> None:
    typo = mem.tool_result("npm", {}, error=TYPO)
    mem.correction(SPELLING, error=typo)  # a person's word: confidence 1.0 on the error it was given for

    # The private-package 404 reads like the typo 404 (linked) but needs another fix (log in).
    for attempt in ("first sighting", "repeat"):  # the write path, then the deferred path (one read)
        private = mem.tool_result("npm", {}, error=PRIVATE)
        fix = _fix(private, SPELLING)
        assert fix is not None, (attempt, private.fixes)
        assert fix.kind == "similar" and fix.borrowed_from == typo.id and not fix.identity, attempt
        assert 0 < fix.match_score < 1 and fix.confidence == pytest.approx(fix.match_score), attempt
        # confident enough to act by confidence alone: only the missing identity keeps it a suggestion
        assert fix.confidence >= mem.settings.learning.auto_apply_threshold, attempt
        assert not fix.auto_apply and private.auto_fix is None, attempt

    # The same error with another package name: other pattern, same template and keys — an identity link.
    variant = mem.tool_result("npm", {}, error=TYPO.replace("lodahs", "reqeust"))
    assert variant.id != typo.id
    same = _fix(variant, SPELLING)
    assert same is not None and same.kind == "similar" and same.identity and same.match_score == 1.0
    assert same.auto_apply and variant.auto_fix == same and same.borrowed_from == typo.id

    # The error itself: its own fix, auto-applied as before.
    again = mem.tool_result("npm", {}, error=TYPO)
    own = _fix(again, SPELLING)
    assert own.kind == "direct" and own.identity and own.auto_apply
    assert own.match_score is None and own.borrowed_from is None


def test_the_corrections_measure_counts_both_rules(mem: KGMem, ns: str) -> None:
    from error_corpus import CorpusRow, measure_corrections

    rows = [CorpusRow("v", "npm_typo", "tool_error", TYPO, "https://example.org/1"),
            CorpusRow("v", "npm_typo", "tool_error", TYPO.replace("lodahs", "reqeust"), "https://example.org/2"),
            CorpusRow("n", "npm_private", "tool_error", PRIVATE, "https://example.org/3", confusable_with="npm_typo")]
    r = measure_corrections(mem, ns, rows, "hand-made")
    assert (r.variants, r.variants_offered, r.variants_auto, r.variants_borrowed, r.variants_by_confidence) == (1, 1, 1, 1, 1)
    assert (r.hard_negatives, r.negatives_offered, r.negatives_auto, r.negatives_by_confidence) == (
        1, ["npm_private"], [], ["npm_private"])

"""The error-corpus measure on the real stack (Neo4j + Chroma + embedding model), asserted on the HELD-OUT
half of the error corpus (tests/data/errors_corpus*.jsonl; split by benchmarks/error_corpus.py before
any tuning): resolve the first variant of each group, report every other variant as a new
tool_result of the same tool — its fix must come back; report each hard negative — the fix of the
group it imitates must not. The training half (what the matching model and the category rules
were tuned on) is not run here (it asserted nothing and doubled the run time): its figure comes
from `python -m benchmarks.learning corpus`, which runs both halves.

Then, with feedback, the wrong fixes are reported failed and every later variant and hard
negative occurs again (measure_with_feedback in benchmarks/error_corpus.py).

Measured figures and the command: docs/learning.md (`python -m benchmarks.learning corpus`).
The margins below sit under the held-out figures measured there.
"""

from __future__ import annotations

import pytest
from benchmarks.error_corpus import load_corpus, measure_with_feedback, split_corpus

from kgmem import KGMem

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Held-out bounds, measured once on the held-out half that now includes the fresh files
# errors_corpus_test_1.jsonl and errors_corpus_test_2.jsonl (docs/learning.md, current figures): 632/738 = 0.856 of variants got their fix
# (the 0.90 is NOT met), 53/186 = 0.28 hard negatives got the wrong one (the goal of 0 is
# NOT met; the bound only keeps it from getting worse), four-class category accuracy 0.935 (goal 0.95 NOT
# met: 0.821 on the first fresh file). The bounds were set when the first fresh file arrived: the figures on the data both
# measurements saw moved up a little, and the second unseen file sits within them. Margins for
# model/runtime drift. No Anthropic key here: the matching model alone decides (no LLM adjudication).
MIN_VARIANT_RATE = 0.83
MAX_NEGATIVES_SHARE = 0.36
MIN_CATEGORY_ACCURACY = 0.90


def test_held_out_half(mem: KGMem, ns: str) -> None:
    rows = load_corpus()
    held_out = split_corpus(rows, "test")
    assert sum(r.kind == "v" for r in held_out) >= 100 and sum(r.kind == "n" for r in held_out) >= 10
    assert all(r.source.startswith("https://") for r in held_out)

    feedback = measure_with_feedback(mem, ns, held_out, "test")
    result = feedback.first
    print("held-out", result.summary())
    print("held-out", feedback.summary())
    assert result.variant_rate >= MIN_VARIANT_RATE, result.summary()
    assert len(result.negatives_fixed) <= MAX_NEGATIVES_SHARE * result.hard_negatives, result.summary()
    assert result.category_accuracy >= MIN_CATEGORY_ACCURACY, result.summary()
    files = result.by_file.values()  # the per-file breakdown adds up to the totals
    assert sum(f.variants for f in files) == result.variants and sum(f.messages for f in files) == result.messages
    assert sum(f.negatives_fixed for f in files) == len(result.negatives_fixed)
    # With feedback (docs/learning.md, "Failed borrowed fixes"): once the agent reported the wrong
    # fixes failed, no hard negative gets its look-alike's fix again, nor a fix its look-alike learns
    # later; the variants keep theirs (a 1 % margin: a variant loses its own fix only when one
    # neighbour lent both it and the failed one — bounds set by the design, not by held-out results).
    assert feedback.negatives_fixed == [] and feedback.new_fix_negatives == [], feedback.summary()
    assert feedback.variants_fixed >= 0.99 * result.variants_fixed, feedback.summary()
    assert feedback.new_fix_variants >= 0.99 * result.variants_fixed, feedback.summary()


def test_candidate_legs_on_the_real_stack(mem: KGMem, ns: str) -> None:
    """Template leg, BM25 leg and a message with no words at all (no Lucene query) on a real graph."""
    first = mem.tool_result("psql", {}, error='FATAL:  password authentication failed for user "nfldb"')
    mem.resolve(first, "set PGPASSWORD", ns=ns)
    mem.tool_result("psql", {}, error="12345 67890")  # template "<*>": no words, no BM25 query
    wrapped = mem.tool_result(
        "psql",
        {},
        error='db_1  | 2024-01-02 03:04:05 UTC [1] FATAL:  password authentication failed for user "postgres"',
    )
    assert wrapped.id != first.id  # another pattern (the node id is the whole normalised message) ...
    assert "set PGPASSWORD" in {f.description for f in wrapped.fixes}  # ... with the same template
    twin = mem.tool_result("psql", {}, error='psql: error: FATAL:  role "nfldb" does not exist')
    assert "set PGPASSWORD" not in {f.description for f in twin.fixes}
    other_tool = mem.tool_result("mysql", {}, error='FATAL:  password authentication failed for user "x"')
    assert other_tool.fixes == ()  # same tool only (similar_across_tools = false)

"""A handful of real error-corpus groups through the full client (a smoke test: behaviour, no quality level).

The measure itself — fix recall, hard negatives given a look-alike's fix and category accuracy on the
whole held-out half (tests/data/errors_corpus*.jsonl), then the same with feedback — is a benchmark:
``python -m benchmarks run error_corpus``. Here, on a few held-out groups that have a hard negative: the
first variant of each group is resolved, the later variants come back with their group's fix, and once
the agent reports the wrong fixes failed no hard negative gets its look-alike's fix (measure_with_feedback
in benchmarks/error_corpus.py, as the benchmark runs it).
"""

from __future__ import annotations

from benchmarks.error_corpus import groups, load_corpus, measure_with_feedback, split_corpus

from kgmem import KGMem

GROUPS = 3


def test_a_few_held_out_groups_with_feedback(mem: KGMem, ns: str) -> None:
    held_out = split_corpus(load_corpus(), "test")
    by_group = groups(held_out)
    negatives = {g: [r for r in held_out if r.kind == "n" and r.confusable_with == g] for g in by_group}
    # The smallest groups a hard negative imitates (fewest messages: the smoke test stays short).
    imitated = [g for g in by_group if negatives[g] and sum(r.kind == "v" for r in by_group[g]) >= 2]
    chosen = sorted(imitated, key=lambda g: (len(by_group[g]) + len(negatives[g]), g))[:GROUPS]
    rows = [r for r in held_out if r.group in chosen or r in [n for g in chosen for n in negatives[g]]]
    assert len(chosen) == GROUPS and any(r.kind == "n" for r in rows)

    feedback = measure_with_feedback(mem, ns, rows, "test")
    result = feedback.first
    print("smoke", result.summary(), feedback.summary())
    assert result.hard_negatives == sum(r.kind == "n" for r in rows) and result.messages == len(rows)
    assert result.variants_fixed > 0 and result.category_correct > 0, result.summary()
    files = result.by_file.values()  # the per-file breakdown adds up to the totals
    assert sum(f.variants for f in files) == result.variants and sum(f.messages for f in files) == result.messages
    assert sum(f.negatives_fixed for f in files) == len(result.negatives_fixed)
    # With feedback: no hard negative gets its look-alike's fix again, nor a fix its look-alike learns later;
    # the variants keep theirs (bounds set by the design, not by measured results).
    assert feedback.negatives_fixed == [] and feedback.new_fix_negatives == [], feedback.summary()
    assert feedback.variants_fixed >= result.variants_fixed, feedback.summary()
    assert feedback.new_fix_variants >= result.variants_fixed, feedback.summary()


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

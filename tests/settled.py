"""Measure a comparison between searches while the full-text statistics hold still.

A Neo4j full-text (BM25) index keeps its term statistics over every namespace, and under
``pytest -n 2`` (.ci/run) the other worker writes to the same server. A keyword score then moves
whenever that worker stores text, so two searches compared with each other (one setting against
another, the sync client against the async one) can see different statistics. :func:`settled` runs
the whole measurement again until two runs in a row agree: then no write moved the statistics
during the first, and its result is what the code under test does on fixed data. A difference the
code itself makes stays in both runs and fails the test's assertion; one that never settles fails
here. Scores are compared to 7 decimals: a search's quality factor ages with the clock, which moves
a score by about 1e-11 between two runs, while a statistics change moves a BM25 score by far more
and a fused (reciprocal-rank) score by a rank.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def rounded(scores: Any) -> Any:
    """``scores`` (numbers, or lists, tuples and dicts of them and of strings) to 7 decimals."""
    if isinstance(scores, float):
        return round(scores, 7)
    if isinstance(scores, dict):
        return {k: rounded(v) for k, v in scores.items()}
    if isinstance(scores, list | tuple):
        return [rounded(v) for v in scores]
    return scores


def hit_scores(result: Any) -> list[tuple[str, float]]:
    """A search result's hits as (id, score) (:func:`settled` compares the scores to 7 decimals)."""
    return [(hit.id, hit.score) for hit in result.hits]


def settled(measure: Callable[[], T], *, key: Callable[[T], Any] = lambda result: result, attempts: int = 6) -> T:
    """``measure()`` until two runs in a row have the same ``key`` (its floats to 7 decimals); returns the
    first of them."""
    previous = measure()
    for _ in range(attempts - 1):
        current = measure()
        if rounded(key(current)) == rounded(key(previous)):
            return previous
        previous = current
    raise AssertionError(f"the measurement never ran twice alike in {attempts} runs; last: {key(previous)!r}")

"""kgmem's log-template miner on a few real loghub-2k lines (a smoke test: behaviour, no quality level).

Grouping accuracy over the 16 loghub-2k datasets against drain3 (tuning and held-out halves) is a
benchmark: ``python -m benchmarks run loghub``. Here: the first lines of three datasets (read in place)
go through the stateless template and the corpus-level miner, as the benchmark does.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from kgmem.learning.templates import TemplateMiner, grouping_accuracy, template

LINES = 200


@pytest.fixture(scope="module")
def loghub(shared_data: Path) -> Path:
    if not (shared_data / "loghub-2k").is_dir():
        pytest.skip(f"loghub-2k not found in {shared_data}")
    return shared_data / "loghub-2k"


def _rows(loghub: Path, dataset: str) -> tuple[list[str], list[str]]:
    with (loghub / f"{dataset}_2k.log_structured.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))[:LINES]
    return [r["Content"] for r in rows], [r["EventId"] for r in rows]


def _groups(lines: list[str]) -> tuple[list[str], list[str]]:
    toks = [template(line).split(" ") for line in lines]
    return [" ".join(t) for t in toks], TemplateMiner().mine(toks)


@pytest.mark.parametrize("dataset", ["Proxifier", "Thunderbird", "OpenSSH"])
def test_the_miner_merges_templates_that_differ_in_word_variables_only(loghub: Path, dataset: str) -> None:
    lines, truth = _rows(loghub, dataset)
    stateless, mined = _groups(lines)
    assert len(mined) == len(lines) and all(mined)
    merged: dict[str, set[str]] = defaultdict(set)
    for one, group in zip(stateless, mined):
        merged[one].add(group)
    assert all(len(groups) == 1 for groups in merged.values())  # it merges stateless groups, never splits one
    assert len(set(mined)) < len(set(stateless))  # ... and these logs have word variables to merge
    assert grouping_accuracy(truth, mined) > grouping_accuracy(truth, stateless)


def test_proxifier_lines_fall_into_their_two_events(loghub: Path) -> None:
    lines, truth = _rows(loghub, "Proxifier")
    _, mined = _groups(lines)
    assert len(set(truth)) == 2 and grouping_accuracy(truth, mined) == 1.0

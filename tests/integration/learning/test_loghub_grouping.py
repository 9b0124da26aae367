"""Log-template grouping on loghub-2k: kgmem's template miner against drain3, in the same run.

Asserts on the HELD-OUT half of the datasets (split fixed in scripts/bench_learning.py before any
tuning) and on all 16; never on the tuning half alone. Figures: docs/learning.md,
"Log-template grouping (loghub-2k)". Needs no server; skipped only when the data is absent.
"""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
LOGHUB = ROOT.parent / "shared" / "data" / "loghub-2k"

pytestmark = pytest.mark.skipif(not LOGHUB.is_dir(), reason=f"loghub-2k not found at {LOGHUB}")


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_learning", ROOT / "scripts" / "bench_learning.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _bench()


@pytest.fixture(scope="module")
def scores(bench: ModuleType) -> dict[str, dict[str, float]]:
    return bench.loghub_scores(LOGHUB)


def _mean(scores: dict[str, dict[str, float]], names: tuple[str, ...], key: str) -> float:
    return statistics.fmean(scores[n][key] for n in names)


def test_split_is_fixed_and_disjoint(bench: ModuleType) -> None:
    tuning, held_out = set(bench.LOGHUB_TUNING), set(bench.LOGHUB_HELD_OUT)
    assert len(tuning) == len(held_out) == 8 and not tuning & held_out
    on_disk = {p.name.split("_2k")[0] for p in LOGHUB.glob("*_2k.log_structured.csv")}
    assert tuning | held_out == on_disk


def test_held_out_grouping_accuracy(bench: ModuleType, scores: dict[str, dict[str, float]]) -> None:
    kgmem = _mean(scores, bench.LOGHUB_HELD_OUT, "kgmem")
    drain = _mean(scores, bench.LOGHUB_HELD_OUT, "drain3")
    # Measured 0.874 (drain3 0.874 with its per-dataset benchmark settings); margin 0.03.
    assert kgmem >= 0.84, f"held-out GA {kgmem:.3f}"
    # On par with drain3 on the held-out half (0.8738 vs 0.8742 measured), not ahead: allow 0.005.
    assert kgmem >= drain - 0.005, f"held-out GA kgmem {kgmem:.4f} < drain3 {drain:.4f}"
    # ... and no worse than drain3 on most held-out logs (measured: 6 of 8).
    assert sum(scores[n]["kgmem"] >= scores[n]["drain3"] for n in bench.LOGHUB_HELD_OUT) >= 5


def test_average_over_all_sixteen_beats_drain3(bench: ModuleType, scores: dict[str, dict[str, float]]) -> None:
    names = bench.LOGHUB_TUNING + bench.LOGHUB_HELD_OUT
    kgmem, drain = _mean(scores, names, "kgmem"), _mean(scores, names, "drain3")
    # Measured 0.928 vs drain3 0.860; the goal is >= 0.90 and ahead of drain3.
    assert kgmem >= 0.90, f"GA over 16 datasets {kgmem:.3f}"
    assert kgmem > drain + 0.03, f"GA kgmem {kgmem:.3f} vs drain3 {drain:.3f}"


def test_miner_improves_on_stateless_templates(bench: ModuleType, scores: dict[str, dict[str, float]]) -> None:
    # The corpus-level miner must earn its keep over template() alone (held-out: 0.874 vs 0.711).
    names = bench.LOGHUB_HELD_OUT
    assert _mean(scores, names, "kgmem") >= _mean(scores, names, "template") + 0.08

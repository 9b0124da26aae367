"""Log-template grouping accuracy on the 16 labelled loghub-2k samples: kgmem's template miner (and the
stateless template alone) against drain3, on the tuning and the held-out datasets. Offline: no Neo4j.

    python -m benchmarks.loghub [--quick]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from benchmarks.learning import LOGHUB, LOGHUB_HELD_OUT, LOGHUB_TUNING, _mean_of, loghub_scores

QUICK_DATASETS = 2  # of each half


def measure(quick: bool = False) -> dict[str, Any]:
    """``average.<half>.<kgmem|template|drain3>`` and ``<dataset>.<kgmem|template|drain3>``."""
    if not LOGHUB.is_dir():
        raise FileNotFoundError(f"loghub-2k not found at {LOGHUB} (set KGMEM_BENCH_DATA)")
    tuning = LOGHUB_TUNING[:QUICK_DATASETS] if quick else LOGHUB_TUNING
    held_out = LOGHUB_HELD_OUT[:QUICK_DATASETS] if quick else LOGHUB_HELD_OUT
    scores = loghub_scores(LOGHUB, tuning + held_out)
    halves = {"tuning": tuning, "held_out": held_out, "all": tuning + held_out}
    out: dict[str, Any] = {
        "average": {
            h: {k: _mean_of(scores, names, k) for k in ("kgmem", "template", "drain3")} for h, names in halves.items()
        },
    }
    for name, row in scores.items():
        out[name] = {k: v for k, v in row.items() if not k.endswith("_s")}
    return out


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """Grouping accuracy per dataset and per half. Quick: two datasets of each half."""
    return measure(quick)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_DATASETS} datasets of each half")
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.quick), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

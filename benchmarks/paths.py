"""Where the benchmarks find their evaluation data.

The public data sets (LoCoMo, LongMemEval, loghub) are not copied into the repository: they lie in a
``shared/data`` directory next to (or above) the checkout. ``KGMEM_BENCH_DATA`` names that directory
explicitly; otherwise the first ``shared/data`` found walking up from the repository root is used.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_data() -> Path:
    """The evaluation-data directory (``KGMEM_BENCH_DATA`` or the nearest ``shared/data`` above the repo)."""
    explicit = os.environ.get("KGMEM_BENCH_DATA")
    if explicit:
        return Path(explicit)
    for parent in REPO.parents:
        candidate = parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "data"


SHARED_DATA = shared_data()

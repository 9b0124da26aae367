"""Bulk ingest rate: ``KGMem.ingest`` of the LoCoMo dev turns from a JSONL file (turns/s).

Beside the rate: the raw embedding rate of the same texts (the model's ceiling on this machine), the
share of the ingest's wall time spent inside the model, and an idempotent re-run of the same file.

    python -m benchmarks.ingest [--quick] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.locomo import DEFAULT_DATA
from benchmarks.retrieval import ingest_throughput

log = logging.getLogger(__name__)

QUICK_CONVERSATIONS = 1


def measure(settings: Any, data_path: Path, conversations: int = 0) -> dict[str, Any]:
    """Ingest the first ``conversations`` of ``data_path`` (0 = all) into a fresh namespace and a temporary
    Chroma directory; the namespace is dropped afterwards."""
    from kgmem import KGMem
    from kgmem.config import ChromaSettings
    from kgmem.graph.schema import apply_schema

    with tempfile.TemporaryDirectory(prefix="kgmem-bench-ingest-") as tmp:
        data = json.loads(data_path.read_text(encoding="utf-8"))
        if conversations:
            data = data[:conversations]
        sample = Path(tmp) / "data.json"
        sample.write_text(json.dumps(data), encoding="utf-8")
        mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=Path(tmp) / "chroma")}))
        try:
            apply_schema(mem.graph)
            out = ingest_throughput(mem, sample, Path(tmp))
        finally:
            mem.close()
    out["conversations"] = len(data)
    return out


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """Figures: ``ingest_turns_per_s``, ``raw_embed_per_s``, ``ratio``, ``embedding_share_of_ingest``, ..."""
    return measure(settings, DEFAULT_DATA, QUICK_CONVERSATIONS if quick else 0)


def main(argv: list[str] | None = None) -> int:
    from kgmem.config import load_settings

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--quick", action="store_true", help=f"only the first {QUICK_CONVERSATIONS} conversation")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    out = measure(load_settings(), args.data, QUICK_CONVERSATIONS if args.quick else 0)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""CPU time of the paraphrase / contradiction judge per statement pair, on the labelled pairs.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_judge.py [--rounds 5]

The offline extractor and the embedding model run once, untimed (the knowledge store has the
items and their vectors when it judges); then every pair is judged ``--rounds`` times, each round
with the judge's word caches emptied first, as a fresh process would start. Prints the median
CPU milliseconds per judged pair (process time, so other load on the machine counts little).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_knowledge  # noqa: E402

# the word caches of kgmem.analysis.parsing, where the judge spends most of its time
_CACHED = ("words_of", "parse", "_negative", "stem_of")


def pairs_to_judge(embedder: Any) -> list[tuple[Any, Any, float]]:
    """(new, old, cosine) for every extracted item pair of every labelled statement pair."""
    from kgmem.analysis.judge import Statement

    out = []
    for row in eval_knowledge.load(eval_knowledge.PAIRS, "all"):
        old, new = eval_knowledge.statements(row["a"]), eval_knowledge.statements(row["b"])
        vecs = embedder.embed([i.content for i in old] + [i.content for i in new])
        for j, item in enumerate(new):
            for i, prev in enumerate(old):
                out.append(
                    (
                        Statement(item.content, item.subject, item.predicate, item.object, item.type),
                        Statement(prev.content, prev.subject, prev.predicate, prev.object, prev.type),
                        float(vecs[i] @ vecs[len(old) + j]),
                    )
                )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    from kgmem.analysis import judge as module
    from kgmem.analysis import parsing
    from kgmem.config import Settings
    from kgmem.vectors import Embedder

    settings = Settings()
    calls = pairs_to_judge(Embedder(settings.embedding, settings.models_dir))
    limits = eval_knowledge.thresholds(settings)
    per_pair = []
    for _ in range(args.rounds):
        for name in _CACHED:
            getattr(parsing, name).cache_clear()
        start = time.process_time()
        for new, old, cosine in calls:
            module.judge(new, old, cosine, limits)
        per_pair.append((time.process_time() - start) / len(calls) * 1000)
    print(
        f"judge: {len(calls)} pairs, median {statistics.median(per_pair):.3f} ms CPU per pair "
        f"(rounds: {', '.join(f'{t:.3f}' for t in per_pair)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

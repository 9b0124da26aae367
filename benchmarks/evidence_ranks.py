#!/usr/bin/env python
"""Where the evidence of LoCoMo questions sits in kgmem's rankings.

A standalone study (listed by ``python -m benchmarks list``): the runner does not run it and its
figures are not recorded in benchmarks/results.json; no registered benchmark imports it.

For every evidence turn of the chosen categories: its position in the default search's first 100, and in
each leg's own first 100 (vector leg alone, keyword leg alone). The buckets say what kind of change
could find a missing turn: one ranked 11-100 by the default needs a better ordering of what is already
retrieved (a re-ranker); one that only a leg has needs fusion to trust that leg more; one in none of
them is not retrieved at all.

Runs on namespaces that ``benchmarks/locomo.py --keep --run-id ID --chroma DIR`` left behind:

    KGMEM_HOME=$BENCH_HOME .venv/bin/python -m benchmarks.evidence_ranks --run-id ot \
        --chroma $BENCH_HOME/chroma --categories 1 [--list]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from benchmarks.locomo import DEFAULT_DATA, conversation_ns, evidence_refs
from kgmem import KGMem
from kgmem.config import ChromaSettings, load_settings
from kgmem.retrieval.config import PRESETS

DEPTH = 100
# Beyond the default's first 100: in the vector leg's (whatever the keyword leg has), else the keyword leg's.
BUCKETS = ("top 10", "11-20", "21-100", "in the vector leg's first 100", "only in the keyword leg's first 100", "none")


def bucket(position: int | None, in_vector: bool, in_keyword: bool) -> str:
    """Which of :data:`BUCKETS` an evidence turn falls in (``position``: 1-based in the default's list)."""
    if position is not None:
        return "top 10" if position <= 10 else "11-20" if position <= 20 else "21-100"
    if in_vector:
        return "in the vector leg's first 100"
    return "only in the keyword leg's first 100" if in_keyword else "none"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--run-id", required=True, help="the --run-id of the eval_locomo run that kept its namespaces")
    ap.add_argument("--chroma", type=Path, required=True, help="the --chroma directory of that run")
    ap.add_argument("--categories", default="1", help="LoCoMo categories, comma-separated (1 = multi-hop)")
    ap.add_argument("--list", action="store_true", help="print every evidence turn outside the top 10")
    args = ap.parse_args(argv)
    categories = {int(c) for c in args.categories.split(",")}
    settings = load_settings().model_copy(update={"chroma": ChromaSettings(path=args.chroma)})
    default = PRESETS["balanced"]
    vector_only = default.with_overrides(use_keyword=False, use_graph=False)
    keyword_only = default.with_overrides(use_vector=False, use_graph=False)
    counts: Counter[str] = Counter()
    with KGMem(settings) as mem:
        for sample in json.loads(args.data.read_text()):
            ns = conversation_ns(sample["sample_id"], args.run_id)
            for qa in sample["qa"]:
                gold = evidence_refs(qa)
                if qa.get("category") not in categories or not gold:
                    continue
                ranked = [h.ref for h in mem.retrieval.search(qa["question"], ns, k=DEPTH, config=default).hits]
                vector = {h.ref for h in mem.retrieval.search(qa["question"], ns, k=DEPTH, config=vector_only).hits}
                keyword = {h.ref for h in mem.retrieval.search(qa["question"], ns, k=DEPTH, config=keyword_only).hits}
                for ref in sorted(gold):
                    position = ranked.index(ref) + 1 if ref in ranked else None
                    where = bucket(position, ref in vector, ref in keyword)
                    counts[where] += 1
                    if args.list and where != "top 10":
                        print(f"{sample['sample_id']} {ref}: {where} ({position}) | {qa['question']}")
    total = sum(counts.values())
    print(f"| where the evidence turn is (of {total}) | turns | share |\n|---|---|---|")
    for name in BUCKETS:
        print(f"| {name} | {counts[name]} | {counts[name] / max(total, 1):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

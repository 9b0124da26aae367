"""Search latency of kgmem against the peer, neo4j-graphrag's HybridRetriever, on the LoCoMo turns.

Both run on the same Neo4j, with the same embedder and text (benchmarks/locomo.py's ``Peer`` loads a
copy of each conversation for neo4j-graphrag). The systems are interleaved question by question, the
order rotated by one every question, after a warm-up of a few questions asked of every system untimed,
so no system pays the cold start alone. The query-embedding cache is off: every search embeds its
question, as a first question would. Recall@10 is reported beside the latency so the two are read
together.

    python -m benchmarks.peer_latency [--quick] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import uuid
from pathlib import Path
from typing import Any

from benchmarks.locomo import DEFAULT_DATA, Peer, Run, _pct, _prepare, mean_scores

log = logging.getLogger(__name__)

WARMUP = 5
QUICK_QUESTIONS = 40


def measure(settings: Any, data_path: Path, conversations: int = 0, questions: int = 0) -> dict[str, Any]:
    """kgmem (balanced and fast presets) and the peer's HybridRetriever, interleaved; flat figures."""
    import statistics

    from kgmem import KGMem
    from kgmem.config import ChromaSettings
    from kgmem.graph.schema import apply_schema
    from kgmem.maintenance import delete_namespace
    from kgmem.retrieval.config import PRESETS

    data = json.loads(data_path.read_text(encoding="utf-8"))
    if conversations:
        data = data[:conversations]
    systems = {"kg-balanced": PRESETS["balanced"], "kg-fast": PRESETS["fast"]}
    run_id = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory(prefix="kgmem-bench-peer-") as tmp:
        embedding = settings.embedding.model_copy(update={"query_cache_size": 0})
        mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=Path(tmp)), "embedding": embedding}))
        peer = None
        namespaces: list[str] = []
        run = Run()
        try:
            apply_schema(mem.graph)
            peer = Peer(mem)
            for sample in data:
                conv = _prepare(mem, sample, run_id, wanted={"none"})  # no in-script baselines
                namespaces.append(conv.ns)
                if questions:
                    conv.questions = conv.questions[:questions]
                peer.load(conv.ns, conv.peer_docs, conv.emb_texts)
                hybrid = {"peer-hybrid": peer.retrievers()["peer-hybrid"]}
                run.evaluate(mem, conv, systems, {}, hybrid, peer, warmup=WARMUP)
        finally:
            if peer is not None:
                peer.close()
            for ns in namespaces:
                delete_namespace(mem.graph, None, ns)
            mem.close()
    out: dict[str, Any] = {"questions": len(next(iter(run.per_system.values()), [])), "warmup": WARMUP}
    for name, rows in run.per_system.items():
        lat = run.latency[name]
        scores = mean_scores(rows)
        out[f"{name}.p50_ms"] = statistics.median(lat)
        out[f"{name}.p95_ms"] = _pct(lat, 95)
        out[f"{name}.mean_ms"] = statistics.fmean(lat)
        out[f"{name}.cpu_ms"] = statistics.fmean(run.cpu[name])
        out[f"{name}.recall_at_10"] = scores["recall@10"]
    return out


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """Figures ``<system>.p50_ms / p95_ms / mean_ms / cpu_ms / recall_at_10`` for kg-balanced, kg-fast and
    peer-hybrid. Quick: the first conversation, its first 40 questions."""
    if quick:
        return measure(settings, DEFAULT_DATA, conversations=1, questions=QUICK_QUESTIONS)
    return measure(settings, DEFAULT_DATA)


def main(argv: list[str] | None = None) -> int:
    from kgmem.config import load_settings

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--quick", action="store_true", help=f"first conversation, first {QUICK_QUESTIONS} questions")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    if args.quick:
        out = measure(load_settings(), args.data, conversations=1, questions=QUICK_QUESTIONS)
    else:
        out = measure(load_settings(), args.data)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

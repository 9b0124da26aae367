#!/usr/bin/env python
"""Search latency at 10 K / 100 K memories, and ingest throughput against raw embedding throughput.

A standalone study (listed by ``python -m benchmarks list``; its own figures are not recorded in
benchmarks/results.json) and a library: the registered ``scale`` and ``ingest`` benchmarks use its
corpus builders, latency and throughput helpers.

Memories are real text: the LoCoMo dev turns (read in place) and docstring sentences of the
installed Python packages. ``--distinct`` of them are embedded by the model; the rest of the
corpus are pairs of those texts ("a b") whose vector is the normalised mean of the two texts'
vectors — an approximation of the model's mean pooling, so that 100 K memories can be built
in minutes on a shared 2-core machine (embedding 100 K texts here would take ~40 min). The
Neo4j full-text index holds the real (paired) text. Queries are the LoCoMo questions
(k = 10, full pipeline including query embedding; "cold" = first time a query is seen,
"warm" = the query-embedding cache hit).

    .venv/bin/python -m benchmarks.retrieval [--sizes 10000,100000] [--distinct 5000] [--json OUT]
    .venv/bin/python -m benchmarks.retrieval --ingest-only
    .venv/bin/python -m benchmarks.retrieval --sizes 100000 --presets "" --overlay --skip-ingest \\
        [--overlay-reps 5] [--overlay-cold]
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.locomo import DEFAULT_DATA, conversation_events
from kgmem import KGMem
from kgmem.config import ChromaSettings, load_settings
from kgmem.conversation import Turn
from kgmem.graph.schema import apply_schema
from kgmem.maintenance import delete_namespace

log = logging.getLogger("bench_retrieval")
SESSION_LEN = 50


def docstring_sentences(limit: int) -> list[str]:
    """Sentences from docstrings of the installed packages (real English, agent-memory-like)."""
    import site

    out: list[str] = []
    seen: set[str] = set()
    for root in site.getsitepackages():
        for path in sorted(Path(root).rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8", errors="ignore"))
            except (SyntaxError, ValueError, RecursionError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef, ast.Module)):
                    doc = ast.get_docstring(node)
                    if not doc:
                        continue
                    for para in doc.split("\n\n"):
                        text = " ".join(para.split())
                        if 40 <= len(text) <= 300 and text not in seen and not text.startswith((">>>", ":", "..")):
                            seen.add(text)
                            out.append(text)
                            if len(out) >= limit:
                                return out
    return out


def locomo_texts(data_path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    data = json.loads(data_path.read_text(encoding="utf-8"))
    turns, questions = [], []
    for sample in data:
        for e in conversation_events(sample["conversation"]):
            if e["type"] == "turn":
                turns.append((e["role"], e["text"]))
        questions += [q["question"] for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)]
    return turns, questions


def build_corpus(mem: KGMem, distinct: int, data_path: Path) -> tuple[list[tuple[str, str]], np.ndarray, float]:
    """(role, text) pairs and their vectors; returns the raw embedding throughput (texts/s) too."""
    turns, _ = locomo_texts(data_path)
    docs = [("doc", t) for t in docstring_sentences(max(0, distinct - len(turns)))]
    corpus = (turns + docs)[:distinct]
    texts = [mem.turns.embedding_text(r, t) for r, t in corpus]
    t0 = time.perf_counter()
    vectors = mem.embedder.embed(texts)
    rate = len(texts) / (time.perf_counter() - t0)
    return corpus, vectors, rate


def expand(corpus: list[tuple[str, str]], vectors: np.ndarray, size: int, seed: int = 7):
    """Yield (role, text, vector, sources) for ``size`` memories: the corpus, then seeded random pairs
    of it; ``sources`` are the corpus indices the memory was made of."""
    rng = random.Random(seed)
    for i in range(min(size, len(corpus))):
        yield corpus[i][0], corpus[i][1], vectors[i], (i,)
    for _ in range(size - len(corpus)):
        a, b = rng.randrange(len(corpus)), rng.randrange(len(corpus))
        v = vectors[a] + vectors[b]
        yield corpus[a][0], f"{corpus[a][1]} {corpus[b][1]}", v / np.linalg.norm(v), (a, b)


def load(  # noqa: ANN201
    mem: KGMem,
    ns: str,
    corpus,  # noqa: ANN001
    vectors,  # noqa: ANN001
    size: int,
    batch: int = 2000,
    progress=None,  # noqa: ANN001
    concepts=None,  # noqa: ANN001
) -> float:
    """Store ``size`` memories in batches; ``progress(stored, seconds)`` after each batch. Returns seconds.

    ``concepts`` (one list of ConceptMention per corpus text) skips the concept extractor: a pair's
    concepts are those of its two texts (at most ``[concepts] max_per_memory``), as its vector is
    their mean."""
    from kgmem.concepts import merge_mentions

    cap = mem.settings.concepts.max_per_memory
    t0 = time.perf_counter()
    stored = 0
    turns: list[Turn] = []
    vecs: list[np.ndarray] = []
    found: list = []
    for i, (role, text, vec, sources) in enumerate(expand(corpus, vectors, size)):
        turns.append(Turn(f"s{i // SESSION_LEN}", role, text, ref=f"m{i}", ts="2024-01-01T00:00:00+00:00"))
        vecs.append(vec)
        if concepts is not None:
            found.append(merge_mentions(*(concepts[j] for j in sources), cap=cap))
        if len(turns) >= batch or stored + len(turns) == size:
            mem.turns.record(ns, turns, np.stack(vecs), found if concepts is not None else None)
            stored += len(turns)
            turns, vecs, found = [], [], []
            if progress is not None:
                progress(stored, time.perf_counter() - t0)
    return time.perf_counter() - t0


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def latency(mem: KGMem, ns: str, questions: list[str], preset: str) -> dict[str, float]:
    mem.search("warm up the connections", ns=ns, preset=preset)
    cold, warm = [], []
    parts: dict[str, list[float]] = {}
    for q in questions:
        t0 = time.perf_counter()
        result = mem.search(q, ns=ns, k=10, preset=preset)
        cold.append((time.perf_counter() - t0) * 1000)
        for key, value in result.timings_ms.items():
            parts.setdefault(key, []).append(value)
    for q in questions:
        t0 = time.perf_counter()
        mem.search(q, ns=ns, k=10, preset=preset)
        warm.append((time.perf_counter() - t0) * 1000)
    return {
        **{f"cold_{k}_p50": statistics.median(v) for k, v in parts.items()},
        "cold_p50": statistics.median(cold),
        "cold_p95": pct(cold, 95),
        "warm_p50": statistics.median(warm),
        "warm_p95": pct(warm, 95),
        "queries": len(questions),
    }


def ingest_throughput(mem: KGMem, data_path: Path, tmp: Path) -> dict[str, float]:
    """`KGMem.ingest` of the LoCoMo turns as a JSONL file vs embedding the same texts raw."""
    data = json.loads(data_path.read_text(encoding="utf-8"))
    ns = f"bench-ingest-{uuid.uuid4().hex[:6]}"
    path = tmp / "locomo.jsonl"
    texts = []
    with path.open("w", encoding="utf-8") as fh:
        for sample in data:
            for e in conversation_events(sample["conversation"]):
                if e["type"] == "turn":
                    e = {**e, "session": f"{sample['sample_id']}-{e['session']}"}
                    texts.append(mem.turns.embedding_text(e["role"], e["text"]))
                elif e["type"] == "session_end":
                    e = {**e, "session": f"{sample['sample_id']}-{e['session']}"}
                fh.write(json.dumps(e) + "\n")
    mem.embedder.embed(texts[:64])  # warm the model
    t0 = time.perf_counter()
    mem.embedder.embed(texts)
    raw = len(texts) / (time.perf_counter() - t0)
    # The machine is shared: besides the two rates (taken minutes apart), report the share of the
    # ingest's own wall time spent inside the model — the load-independent measure of overhead.
    spent = [0.0]
    embed = mem.embedder.embed

    def timed_embed(batch):  # noqa: ANN001, ANN202
        s = time.perf_counter()
        try:
            return embed(batch)
        finally:
            spent[0] += time.perf_counter() - s

    mem.embedder.embed = timed_embed  # type: ignore[method-assign]
    try:
        report = mem.ingest(path, ns=ns)
        rate = report.turns / report.seconds
        t0 = time.perf_counter()
        again = mem.ingest(path, ns=ns)
        rerun = time.perf_counter() - t0
    finally:
        mem.embedder.embed = embed  # type: ignore[method-assign]
        delete_namespace(mem.graph, None, ns)
    return {
        "turns": report.turns,
        "raw_embed_per_s": raw,
        "ingest_turns_per_s": rate,
        "ratio": rate / raw,
        "embedding_share_of_ingest": spent[0] / report.seconds,
        "rerun_s": rerun,
        "rerun_new_turns": again.turns_new,
    }


def overlay_latency(
    mem: KGMem,
    ns: str,
    questions: list[str],
    session: str = "s0",
    judged: int = 50,
    reps: int = 5,
    seed: int = 0,
    cold: bool = False,
) -> dict[str, float]:
    """What a BQAR session overlay adds to a search, in a paired design that survives a loaded machine.

    The same session searches with the overlay (and shift detection) on and off, back to back for each
    question, the order alternating per question and per repetition (so load swings and cache effects
    hit both arms alike), ``reps`` passes over the questions. First ``judged`` session searches get
    feedback, so the overlay has entries to read. Reported: both arms' p50/p95, the median and p95 of
    the per-pair difference (on − off), and bootstrap 95 % CIs (pairs resampled) of the median
    difference and of p95(on) − p95(off).

    ``cold``: every timed search embeds its query (as an agent's new question does): each arm and pass
    asks the question with its own number of trailing spaces — a different query-cache key, the same
    tokens for the model and for Lucene — so neither arm profits from the other's embedding."""
    from kgmem.retrieval import PRESETS

    on = PRESETS["balanced"].with_overrides(name="overlay-on")
    off = on.with_overrides(name="overlay-off", use_session_overlay=False)
    for q in questions[:judged]:
        result = mem.retrieval.search(q, ns, k=10, session=session, config=on)
        if result.hits:
            mem.retrieval.feedback(result.query_id, used=[result.hits[0].id], outcome="success")
    times: dict[str, list[float]] = {"on": [], "off": []}
    for rep in range(reps):
        for i, q in enumerate(questions):
            order = (("on", on), ("off", off)) if (i + rep) % 2 == 0 else (("off", off), ("on", on))
            for name, cfg in order:
                text = q + " " * (2 * rep + (1 if name == "on" else 2)) if cold else q
                t0 = time.perf_counter()
                mem.retrieval.search(text, ns, k=10, session=session, config=cfg)
                times[name].append((time.perf_counter() - t0) * 1000)
    state = mem.retrieval.session_state(ns, session)
    mem.retrieval.end_session(ns, session)
    on_ms, off_ms = np.asarray(times["on"]), np.asarray(times["off"])
    diff = on_ms - off_ms
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(diff), size=(2000, len(diff)))  # bootstrap: resample the pairs
    med = np.median(diff[draws], axis=1)
    p95_gap = np.percentile(on_ms[draws], 95, axis=1) - np.percentile(off_ms[draws], 95, axis=1)
    return {
        "on_p50": float(np.median(on_ms)),
        "on_p95": float(np.percentile(on_ms, 95)),
        "off_p50": float(np.median(off_ms)),
        "off_p95": float(np.percentile(off_ms, 95)),
        "p95_gap": float(np.percentile(on_ms, 95) - np.percentile(off_ms, 95)),
        "p95_gap_ci": [float(np.percentile(p95_gap, 2.5)), float(np.percentile(p95_gap, 97.5))],
        "paired_diff_p50": float(np.median(diff)),
        "paired_diff_p50_ci": [float(np.percentile(med, 2.5)), float(np.percentile(med, 97.5))],
        "paired_diff_p95": float(np.percentile(diff, 95)),
        "shifts": state.shifts,
        "queries": len(questions),
        "pairs": len(diff),
        "load_avg_1m": os.getloadavg()[0],
        "cold": cold,
    }


def overlay_line(size: int, r: dict[str, Any]) -> str:
    """The one line the overlay goal (≤ 2 ms on search p95) is read from."""
    return (
        f"overlay @ {size}{' (cold queries)' if r['cold'] else ''}: "
        f"p50 with {r['on_p50']:.1f} / without {r['off_p50']:.1f} ms "
        f"(diff {r['on_p50'] - r['off_p50']:+.2f}; paired median {r['paired_diff_p50']:+.2f} "
        f"[{r['paired_diff_p50_ci'][0]:+.2f}, {r['paired_diff_p50_ci'][1]:+.2f}]) | "
        f"p95 with {r['on_p95']:.1f} / without {r['off_p95']:.1f} ms "
        f"(diff {r['p95_gap']:+.2f} [{r['p95_gap_ci'][0]:+.2f}, {r['p95_gap_ci'][1]:+.2f}]) | "
        f"{r['pairs']} pairs, {r['shifts']} shifts, load avg {r['load_avg_1m']:.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--distinct", type=int, default=5000)
    ap.add_argument("--presets", default="balanced,fast")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--ingest-only", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--skip-ingest", action="store_true")
    ap.add_argument(
        "--overlay",
        action="store_true",
        help="also measure what a BQAR session overlay adds to "
        "search latency (same session searches with the overlay on/off, paired, alternating)",
    )
    ap.add_argument("--overlay-reps", type=int, default=5, help="passes over the questions for --overlay")
    ap.add_argument(
        "--overlay-cold",
        action="store_true",
        help="--overlay with every query embedded afresh (no query-embedding cache hits)",
    )
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)

    tmp = tempfile.TemporaryDirectory(prefix="kgmem-bench-")
    settings = load_settings().model_copy(update={"chroma": ChromaSettings(path=Path(tmp.name) / "chroma")})
    mem = KGMem(settings)
    apply_schema(mem.graph)
    results: dict[str, Any] = {}
    try:
        if not args.skip_ingest:
            results["ingest"] = ingest_throughput(mem, args.data, Path(tmp.name))
            print("ingest:", json.dumps(results["ingest"]))
        if not args.ingest_only:
            _, questions = locomo_texts(args.data)
            questions = questions[: args.queries]
            corpus, vectors, rate = build_corpus(mem, args.distinct, args.data)
            results["corpus"] = {"distinct": len(corpus), "embed_per_s": rate}
            for size in [int(s) for s in args.sizes.split(",")]:
                ns = f"bench-{size}-{uuid.uuid4().hex[:6]}"
                try:
                    secs = load(mem, ns, corpus, vectors, size)
                    row: dict[str, Any] = {"load_s": secs}
                    for preset in [p for p in args.presets.split(",") if p]:
                        row[preset] = latency(mem, ns, questions, preset)
                    if args.overlay:
                        row["overlay"] = overlay_latency(
                            mem, ns, questions, reps=args.overlay_reps, cold=args.overlay_cold
                        )
                    results[str(size)] = row
                    print(size, json.dumps(row))
                    if args.overlay:
                        print(overlay_line(size, row["overlay"]))
                finally:
                    delete_namespace(mem.graph, None, ns)
                    mem.vectors.drop_namespace(ns, ["message"])
    finally:
        mem.close()
        tmp.cleanup()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

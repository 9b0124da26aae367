"""Scale curve: search latency, store rate and memory at 10 K, 100 K and 1 M memories in one namespace.

Memories are real text — the LoCoMo dev turns and docstring sentences of the installed packages — and,
beyond the distinct texts, seeded pairs of them ("a b") whose vector is the normalised mean of the two
(only the distinct texts go through the models: embedding 1 M texts would take days on a small machine;
see benchmarks/retrieval.py). Their concepts likewise: the distinct texts go through the concept
extractor once, and a pair MENTIONS the concepts of its two texts. They are stored through kgmem's own
write path (``TurnStore.record``: Neo4j messages, sessions, concepts and their edges, the full-text index,
Chroma vectors), so the store rate is ingest without the models, whose cost per text does not grow
with the store (``embed_per_s`` and ``concepts_per_s`` give it here; the ingest benchmark measures it).

Each size runs in a fresh process so its peak memory (VmHWM: the client, with the embedded Chroma) is
that size's own; the Neo4j server's resident memory is read after the searches. Queries: the LoCoMo
questions, k = 10, the balanced preset; "search" = the first time a query is seen (embedding
included), "warm" = the same query again (query-embedding cache hit).

    python -m benchmarks.scale [--sizes 10000,100000,1000000] [--distinct 2000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.paths import REPO
from benchmarks.retrieval import DEFAULT_DATA, build_corpus, latency, load, locomo_texts

log = logging.getLogger(__name__)

FULL_SIZES = (10_000, 100_000, 1_000_000)
QUICK_SIZES = (10_000,)
PRESET = "balanced"


def _status_kb(pid: int | str, field: str) -> int:
    """A ``/proc/PID/status`` memory field in kB (0 when unreadable: another OS, a gone process)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _neo4j_pid(settings: Any) -> int | None:
    from kgmem.server import LocalNeo4j
    from kgmem.server.local import is_local

    if not is_local(settings):
        return None
    return LocalNeo4j(settings).status().pid


def prepare(settings: Any, directory: Path, distinct: int, data: Path) -> tuple[float, float]:
    """Embed the distinct texts and extract their concepts once into ``directory`` (corpus.json,
    vectors.npy, concepts.json, questions.json); returns the raw embedding rate (texts/s) and the
    concept extraction rate (texts/s)."""
    from kgmem import KGMem
    from kgmem.config import ChromaSettings

    mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=directory / "chroma-prepare")}))
    try:
        corpus, vectors, rate = build_corpus(mem, distinct, data)
        t0 = time.perf_counter()
        found = mem.turns.concepts.extract_many([text for _, text in corpus]) if mem.turns.concepts else []
        concepts_rate = len(corpus) / (time.perf_counter() - t0)
    finally:
        mem.close()
    _, questions = locomo_texts(data)
    (directory / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (directory / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
    (directory / "concepts.json").write_text(
        json.dumps([[[m.key, m.name, m.kind] for m in mentions] for mentions in found]), encoding="utf-8"
    )
    np.save(directory / "vectors.npy", vectors)
    return rate, concepts_rate


def measure_size(settings: Any, directory: Path, size: int, queries: int, ns: str) -> dict[str, Any]:
    """One size in this process: store ``size`` memories in ``ns``, search, read memory, drop the namespace.
    Progress (memories stored, seconds) goes to ``progress-SIZE.json`` after every batch."""
    from kgmem import KGMem
    from kgmem.concepts import ConceptMention
    from kgmem.config import ChromaSettings
    from kgmem.graph.schema import apply_schema

    corpus = [tuple(pair) for pair in json.loads((directory / "corpus.json").read_text(encoding="utf-8"))]
    questions = json.loads((directory / "questions.json").read_text(encoding="utf-8"))[:queries]
    vectors = np.load(directory / "vectors.npy")
    concepts = [
        [ConceptMention(*m) for m in mentions]
        for mentions in json.loads((directory / "concepts.json").read_text(encoding="utf-8"))
    ]
    mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=directory / f"chroma-{size}")}))
    progress_file = directory / f"progress-{size}.json"

    def progress(stored: int, seconds: float) -> None:
        progress_file.write_text(json.dumps({"stored": stored, "seconds": seconds}), encoding="utf-8")

    try:
        apply_schema(mem.graph)
        secs = load(mem, ns, corpus, vectors, size, progress=progress, concepts=concepts or None)
        lat = latency(mem, ns, questions, PRESET)
        pid = _neo4j_pid(settings)
        out = {
            "store_s": secs,
            "store_per_s": size / secs,
            "search_p50_ms": lat["cold_p50"],
            "search_p95_ms": lat["cold_p95"],
            "warm_p50_ms": lat["warm_p50"],
            "warm_p95_ms": lat["warm_p95"],
            "queries": lat["queries"],
            "client_peak_rss_mb": _status_kb("self", "VmHWM") / 1024,
            "neo4j_rss_mb": _status_kb(pid, "VmRSS") / 1024 if pid else "not local",
        }
    finally:
        mem.flush()  # the query log is written behind: flushed now, it is deleted with the namespace
        t0 = time.perf_counter()
        try:
            dropped = _drop(mem, size, ns)
        finally:
            mem.close()
    return {**out, **({"delete_s": time.perf_counter() - t0} if dropped else {"namespace_left": ns})}


def _drop(mem: Any, size: int, ns: str) -> bool:
    """Drop the namespace ``ns``; False (and a warning) when that fails: a failed clean-up must not lose
    the figures measured before it."""
    from kgmem.maintenance import delete_namespace

    try:
        delete_namespace(mem.graph, mem.vectors, ns)
    except Exception as exc:
        log.warning("scale %d: could not drop namespace %s (%s); drop it by hand", size, ns, exc)
        return False
    return True


def _child(settings: Any, directory: Path, size: int, queries: int, timeout: float | None) -> dict[str, Any]:
    """``measure_size`` in a fresh interpreter (its own peak memory); settings reach it through the
    environment (home and URI), as they reach any kgmem process. Past ``timeout`` seconds the child is
    killed, its namespace dropped, and the store rate so far is reported with the status."""
    out_file = directory / f"result-{size}.json"
    ns = f"bench-scale-{size}-{uuid.uuid4().hex[:6]}"
    env = {
        **os.environ,
        "KGMEM_HOME": str(settings.home),
        "KGMEM_NEO4J__URI": settings.neo4j.uri,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
    }
    cmd = [sys.executable, "-m", "benchmarks.scale", "--one", str(size), "--dir", str(directory)]
    cmd += ["--queries", str(queries), "--out", str(out_file), "--ns", ns]
    try:
        subprocess.run(cmd, env=env, cwd=REPO, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return _unfinished(settings, directory, size, ns, timeout or 0.0)
    return json.loads(out_file.read_text(encoding="utf-8"))


def _unfinished(settings: Any, directory: Path, size: int, ns: str, timeout: float) -> dict[str, Any]:
    """What a size that ran out of time leaves: its store rate so far; its namespace is dropped."""
    from kgmem import KGMem
    from kgmem.config import ChromaSettings

    row: dict[str, Any] = {"status": f"not finished in {timeout:.0f} s"}
    progress_file = directory / f"progress-{size}.json"
    if progress_file.exists():
        done = json.loads(progress_file.read_text(encoding="utf-8"))
        row.update(stored_before_timeout=done["stored"], store_per_s=done["stored"] / max(done["seconds"], 1e-9))
    mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=directory / f"chroma-{size}")}))
    try:
        if not _drop(mem, size, ns):
            row["namespace_left"] = ns
    finally:
        mem.close()
    return row


def measure(
    settings: Any,
    sizes: tuple[int, ...],
    distinct: int,
    queries: int,
    data: Path = DEFAULT_DATA,
    budget: float | None = None,
) -> dict[str, Any]:
    """Every size in its own process, smallest first, within ``budget`` seconds in all: a size still
    running when the budget is spent is recorded as not finished, and the larger ones as not run."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kgmem-bench-scale-") as tmp:
        directory = Path(tmp)
        embed_rate, concepts_rate = prepare(settings, directory, distinct, data)
        out: dict[str, Any] = {"distinct": distinct, "embed_per_s": embed_rate, "concepts_per_s": concepts_rate}
        if budget is not None:
            out["budget_s"] = budget
        for size in sizes:
            left = None if budget is None else budget - (time.perf_counter() - start)
            if left is not None and left <= 0:
                out[str(size)] = {"status": "not run: budget spent"}
                continue
            row = _child(settings, directory, size, queries, left)
            out[str(size)] = row
            log.warning("scale %d: %s", size, json.dumps(row))
    return out


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """Figures per size (``10000.search_p95_ms``, ``…store_per_s``, ``…client_peak_rss_mb``, ...). Quick: 10 K
    memories from 2,000 distinct texts, 50 queries; full: 10 K, 100 K and 1 M from the same 2,000 (more
    distinct texts would cost model time, not change the store's size), 200 queries,
    within ``KGMEM_BENCH_SCALE_BUDGET_S`` seconds (default 6 hours; recorded as ``budget_s``): a size
    the budget does not cover is recorded as not finished (with its store rate so far) or not run."""
    if quick:
        return measure(settings, QUICK_SIZES, distinct=2000, queries=50)
    budget = float(os.environ.get("KGMEM_BENCH_SCALE_BUDGET_S", "21600"))
    return measure(settings, FULL_SIZES, distinct=2000, queries=200, budget=budget)


def main(argv: list[str] | None = None) -> int:
    from kgmem.config import load_settings

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(str(s) for s in FULL_SIZES))
    ap.add_argument("--distinct", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--budget", type=float, default=None, help="seconds for all sizes (the rest: not finished/run)")
    ap.add_argument("--one", type=int, default=0, help=argparse.SUPPRESS)  # the child: one size
    ap.add_argument("--dir", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--ns", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    settings = load_settings()
    if args.one:
        if args.dir is None or args.out is None or not args.ns:
            ap.error("--one needs --dir, --out and --ns")
        row = measure_size(settings, args.dir, args.one, args.queries, args.ns)
        args.out.write_text(json.dumps(row), encoding="utf-8")
        return 0
    sizes = tuple(int(s) for s in args.sizes.split(","))
    print(json.dumps(measure(settings, sizes, args.distinct, args.queries, args.data, args.budget), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

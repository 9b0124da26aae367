"""Scale curve: search latency, store rate and memory at 10 K, 100 K and 1 M memories in one namespace.

Memories are real text — the LoCoMo dev turns and docstring sentences of the installed packages — and,
beyond the distinct texts, seeded pairs of them ("a b") whose vector is the normalised mean of the two
(only the distinct texts go through the model: embedding 1 M texts would take days on a small machine;
see benchmarks/retrieval.py). They are stored through kgmem's own write path (``TurnStore.record``:
Neo4j nodes, full-text index and Chroma vectors), so the store rate is ingest without the model.

Each size runs in a fresh process so its peak memory (VmHWM: the client, with the embedded Chroma) is
that size's own; the Neo4j server's resident memory is read after the searches. Queries: the LoCoMo
questions, k = 10, the balanced preset; "search" = the first time a query is seen (embedding
included), "warm" = the same query again (query-embedding cache hit).

    python -m benchmarks.scale [--sizes 10000,100000,1000000] [--distinct 5000] [--queries 200]
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


def prepare(settings: Any, directory: Path, distinct: int, data: Path) -> float:
    """Embed the distinct texts once into ``directory`` (corpus.json, vectors.npy, questions.json);
    returns the raw embedding rate (texts/s)."""
    from kgmem import KGMem
    from kgmem.config import ChromaSettings

    mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=directory / "chroma-prepare")}))
    try:
        corpus, vectors, rate = build_corpus(mem, distinct, data)
    finally:
        mem.close()
    _, questions = locomo_texts(data)
    (directory / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (directory / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
    np.save(directory / "vectors.npy", vectors)
    return rate


def measure_size(settings: Any, directory: Path, size: int, queries: int) -> dict[str, Any]:
    """One size in this process: store ``size`` memories, search, read memory, drop the namespace."""
    from kgmem import KGMem
    from kgmem.config import ChromaSettings
    from kgmem.graph.schema import apply_schema

    corpus = [tuple(pair) for pair in json.loads((directory / "corpus.json").read_text(encoding="utf-8"))]
    questions = json.loads((directory / "questions.json").read_text(encoding="utf-8"))[:queries]
    vectors = np.load(directory / "vectors.npy")
    mem = KGMem(settings.model_copy(update={"chroma": ChromaSettings(path=directory / f"chroma-{size}")}))
    ns = f"bench-scale-{size}-{uuid.uuid4().hex[:6]}"
    try:
        apply_schema(mem.graph)
        secs = load(mem, ns, corpus, vectors, size)
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
        t0 = time.perf_counter()
        mem.graph.write_autocommit("maintenance/delete_namespace", ns=ns)
        mem.vectors.drop_namespace(ns, ["message"])
        mem.close()
        log.info("dropped %s in %.0f s", ns, time.perf_counter() - t0)
    return out


def _child(settings: Any, directory: Path, size: int, queries: int, timeout: float | None) -> dict[str, Any]:
    """``measure_size`` in a fresh interpreter (its own peak memory); settings reach it through the
    environment (home and URI), as they reach any kgmem process."""
    out_file = directory / f"result-{size}.json"
    env = {
        **os.environ,
        "KGMEM_HOME": str(settings.home),
        "KGMEM_NEO4J__URI": settings.neo4j.uri,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
    }
    cmd = [sys.executable, "-m", "benchmarks.scale", "--one", str(size), "--dir", str(directory)]
    cmd += ["--queries", str(queries), "--out", str(out_file)]
    try:
        subprocess.run(cmd, env=env, cwd=REPO, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"not finished in {timeout:.0f} s"}
    return json.loads(out_file.read_text(encoding="utf-8"))


def measure(
    settings: Any,
    sizes: tuple[int, ...],
    distinct: int,
    queries: int,
    data: Path = DEFAULT_DATA,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Every size in its own process, smallest first; a size past ``timeout`` seconds is recorded as not
    finished and the larger ones are not tried."""
    with tempfile.TemporaryDirectory(prefix="kgmem-bench-scale-") as tmp:
        directory = Path(tmp)
        out: dict[str, Any] = {"distinct": distinct, "embed_per_s": prepare(settings, directory, distinct, data)}
        for size in sizes:
            row = _child(settings, directory, size, queries, timeout)
            out[str(size)] = row
            log.warning("scale %d: %s", size, json.dumps(row))
            if "status" in row:
                break
    return out


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """Figures per size (``10000.search_p95_ms``, ``…store_per_s``, ``…client_peak_rss_mb``, ...). Quick: 10 K
    memories from 2,000 distinct texts, 50 queries; full: 10 K, 100 K and 1 M from 5,000, 200 queries (a
    size that takes over 2 hours is recorded as not finished)."""
    if quick:
        return measure(settings, QUICK_SIZES, distinct=2000, queries=50)
    return measure(settings, FULL_SIZES, distinct=5000, queries=200, timeout=7200)


def main(argv: list[str] | None = None) -> int:
    from kgmem.config import load_settings

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(str(s) for s in FULL_SIZES))
    ap.add_argument("--distinct", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--timeout", type=float, default=None, help="seconds per size before it counts as not finished")
    ap.add_argument("--one", type=int, default=0, help=argparse.SUPPRESS)  # the child: one size
    ap.add_argument("--dir", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    settings = load_settings()
    if args.one:
        if args.dir is None or args.out is None:
            ap.error("--one needs --dir and --out")
        args.out.write_text(json.dumps(measure_size(settings, args.dir, args.one, args.queries)), encoding="utf-8")
        return 0
    sizes = tuple(int(s) for s in args.sizes.split(","))
    print(json.dumps(measure(settings, sizes, args.distinct, args.queries, args.data, args.timeout), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

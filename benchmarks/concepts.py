#!/usr/bin/env python
"""The concept graph: extraction speed, what the concepts connect, and what they cost at ingest.

A standalone study (listed by ``python -m benchmarks list``): the runner does not run it and its
figures are not recorded in benchmarks/results.json; no registered benchmark imports it.

    # extraction speed per turn and evidence connectivity on LoCoMo dev (no servers needed)
    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.concepts extract
    # the same connectivity for YAKE key phrases (pip install yake), for comparison
    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.concepts yake
    # one 256-turn TurnStore.record, concepts off vs on: graph write time and extraction CPU
    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.concepts record --runs 2
    # bulk ingest turns/s (`KGMem.ingest`, as `kgmem ingest` runs it), concepts off vs on alternating,
    # on a fresh Neo4j of its own (its server CPU is read from /proc) on ports BOLT:HTTP
    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.concepts ingest --runs 5 --private-neo4j 27301:27302

``extract`` splits the two dev conversations: rules were chosen looking at conv-26 only; conv-30
is reported beside it as the held-out half. For every multi-hop question (category 1) with two or
more evidence turns it reports the share of evidence-turn pairs that share a concept, the share of
questions whose evidence turns are all joined by shared concepts (one connected component), and
the same pair share for random turn pairs of the same conversation (how unspecific the links are).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.paths import SHARED_DATA
from benchmarks.scratch import private_server

DATA = SHARED_DATA / "locomo-dev.json"
TUNED, HELD_OUT = "conv-26", "conv-30"


def load(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def turns_of(conv: dict) -> list[tuple[str, str, str, str]]:
    """(session, dia_id, speaker, text) in order."""
    c = conv["conversation"]
    out = []
    sessions = sorted(
        (k for k in c if k.startswith("session_") and isinstance(c[k], list)), key=lambda k: int(k.split("_")[1])
    )
    for key in sessions:
        for t in c[key]:
            out.append((key, t["dia_id"], t["speaker"], t["text"]))
    return out


def bench_extract(data: list[dict], cap: int, max_df: int) -> None:
    from kgmem.concepts import ConceptExtractor, ConceptSettings, resolve_aliases

    extractor = ConceptExtractor(ConceptSettings(max_per_memory=cap))
    extractor.extract("warm up")  # the model loads on first use; not part of the per-turn figure
    for conv in data:
        turns = turns_of(conv)
        texts = [t[3] for t in turns]
        # CPU seconds of this process (what the extraction costs) beside wall seconds (what it
        # took on a shared machine); each pass on a fresh extractor, so its text cache is cold.
        one = ConceptExtractor(extractor.settings)
        one._nlp = extractor._nlp
        w0, c0 = time.perf_counter(), time.process_time()
        per = []
        for text in texts:
            s = time.process_time()
            one.extract(text)
            per.append(time.process_time() - s)
        single_wall, single_cpu = time.perf_counter() - w0, time.process_time() - c0
        many = ConceptExtractor(extractor.settings)
        many._nlp = extractor._nlp
        w0, c0 = time.perf_counter(), time.process_time()
        mentions = many.extract_many(texts)
        batch_wall, batch_cpu = time.perf_counter() - w0, time.process_time() - c0
        speakers = {t[2] for t in turns}
        mentions = resolve_aliases(mentions, names=speakers)
        keys = {t[1]: {m.key for m in ms} for t, ms in zip(turns, mentions)}
        per.sort()
        counts = [len(ms) for ms in mentions]
        name = conv["sample_id"]
        print(
            f"{name} ({'tuned' if name == TUNED else 'held out'}): {len(texts)} turns; CPU per turn one by one "
            f"p50 {1000 * per[len(per) // 2]:.2f} ms p95 {1000 * per[int(len(per) * 0.95)]:.2f} ms "
            f"({len(texts) / single_cpu:.0f} turns per CPU-second; wall {len(texts) / single_wall:.0f} turns/s), "
            f"batched {len(texts) / batch_cpu:.0f} turns per CPU-second (wall {len(texts) / batch_wall:.0f}); "
            f"concepts per turn mean {statistics.mean(counts):.1f} max {max(counts)}"
        )
        connectivity(conv, keys)
        df: dict[str, int] = {}
        for ks in keys.values():
            for k in ks:
                df[k] = df.get(k, 0) + 1
        specific = {d: {k for k in ks if df[k] <= max_df} for d, ks in keys.items()}
        print(
            f"  only concepts with df <= {max_df} ({sum(1 for v in df.values() if v <= max_df)} of {len(df)} "
            f"concepts; the {len(df) - sum(1 for v in df.values() if v <= max_df)} commonest dropped):"
        )
        connectivity(conv, specific)
        question_reach(conv, extractor, speakers, specific, df, max_df)


def bench_yake(data: list[dict]) -> None:
    """The same connectivity for YAKE key phrases (``pip install yake``; not a kgmem dependency)."""
    import yake

    from kgmem.concepts import normalise_key

    extractor = yake.KeywordExtractor(lan="en", n=2, top=5)
    for conv in data:
        turns = turns_of(conv)
        c0 = time.process_time()
        found = [extractor.extract_keywords(t[3]) for t in turns]
        cpu = time.process_time() - c0
        keys = {t[1]: {normalise_key(k) for k, _ in f} - {""} for t, f in zip(turns, found)}
        print(f"{conv['sample_id']} YAKE (n<=2, top 5): {len(turns) / cpu:.0f} turns per CPU-second")
        connectivity(conv, keys)


def connectivity(conv: dict, keys: dict[str, set[str]]) -> None:
    pair_hits = pairs = connected = questions = 0
    for qa in conv["qa"]:
        if qa.get("category") != 1:
            continue
        ev = [e for e in dict.fromkeys(qa.get("evidence", [])) if e in keys]
        if len(ev) < 2:
            continue
        questions += 1
        for a, b in itertools.combinations(ev, 2):
            pairs += 1
            pair_hits += bool(keys[a] & keys[b])
        connected += _one_component(ev, keys)
    rng = random.Random(7)
    ids = list(keys)
    random_pairs = [rng.sample(ids, 2) for _ in range(5000)]
    base = sum(bool(keys[a] & keys[b]) for a, b in random_pairs) / len(random_pairs)
    print(
        f"  multi-hop questions with >=2 evidence turns: {questions}; evidence pairs sharing a concept "
        f"{pair_hits}/{pairs} = {pair_hits / max(pairs, 1):.3f} (random turn pairs {base:.3f}); "
        f"all evidence joined by concepts: {connected}/{questions} = {connected / max(questions, 1):.3f}"
    )


def question_reach(
    conv: dict, extractor, speakers: set[str], keys: dict[str, set[str]], df: dict[str, int], max_df: int
) -> None:
    """Query side: the multi-hop question's own (specific) concepts, and which turns they reach."""
    from kgmem.concepts import resolve_aliases

    hit_ev = n_ev = reached = questions = 0
    for qa in conv["qa"]:
        if qa.get("category") != 1:
            continue
        ev = [e for e in dict.fromkeys(qa.get("evidence", [])) if e in keys]
        if not ev:
            continue
        questions += 1
        qkeys = {
            m.key
            for m in resolve_aliases([extractor.extract(qa["question"])], names=speakers)[0]
            if df.get(m.key, 0) <= max_df
        }
        turns = {d for d, ks in keys.items() if ks & qkeys}
        reached += len(turns)
        n_ev += len(ev)
        hit_ev += sum(1 for e in ev if e in turns)
    print(
        f"  question -> turns through the question's specific concepts: {hit_ev}/{n_ev} evidence turns "
        f"reached ({hit_ev / max(n_ev, 1):.3f}), {reached / max(questions, 1):.1f} turns reached per question "
        f"of {len(keys)}"
    )


def _one_component(ev: list[str], keys: dict[str, set[str]]) -> bool:
    seen, todo = {ev[0]}, [ev[0]]
    while todo:
        a = todo.pop()
        for b in ev:
            if b not in seen and keys[a] & keys[b]:
                seen.add(b)
                todo.append(b)
    return len(seen) == len(ev)


def bench_ingest(data: list[dict], runs: int, batch_size: int, private: str = "", limit: int = 0) -> None:
    """Bulk ingest turns/s with concept extraction off and on, alternating in one process (the order
    flips every pair), so both arms of a pair see the same machine load; each run into a fresh
    namespace, each "on" run with a fresh extractor (its text cache cold) on the one loaded spaCy
    pipeline. Reports turns/s per run, the on/off ratio of each pair (median and range), this
    process's CPU seconds per arm (the embedding model and spaCy run here) and, when the server's
    process is visible (a ``--private-neo4j`` one, or a local one), Neo4j's CPU seconds per arm
    (the graph writes, the MENTIONS and df included). ``limit``: only the first that many turns."""
    from kgmem import KGMem
    from kgmem.concepts import ConceptExtractor
    from kgmem.maintenance import delete_namespace

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "locomo.jsonl"
        n = 0
        with path.open("w") as f:
            for conv in data:
                for session, dia, speaker, text in turns_of(conv):
                    if limit and n >= limit:
                        break
                    f.write(
                        json.dumps(
                            {
                                "type": "turn",
                                "session": f"{conv['sample_id']}/{session}",
                                "role": speaker,
                                "text": text,
                                "ref": dia,
                            }
                        )
                        + "\n"
                    )
                    n += 1
        server = private_server(private, Path(tmp)) if private else None
        try:
            settings = None
            if server is not None:  # its own Chroma too, beside its Neo4j
                from kgmem.config import ChromaSettings

                settings = server.settings.model_copy(update={"chroma": ChromaSettings(path=Path(tmp) / "chroma")})
            with KGMem(settings) as mem:
                server_pid = _server_pid(mem.settings)
                if server is not None:
                    from kgmem.graph.schema import apply_schema

                    apply_schema(mem.graph)
                # Models load once per process (start-up, benchmarks/startup.py), not per turn.
                mem.embedder.embed(["warm up"])
                t0 = time.perf_counter()
                mem.concepts.extract("warm up")
                print(
                    f"concept model loaded in {time.perf_counter() - t0:.1f} s; Neo4j server pid "
                    f"{server_pid if server_pid else 'not visible (its CPU is not reported)'}"
                )
                rates: dict[str, list[float]] = {"off": [], "on": []}
                cpu: dict[str, list[float]] = {"off": [], "on": []}
                db_cpu: dict[str, list[float]] = {"off": [], "on": []}
                for run in range(runs):
                    for arm in ("off", "on") if run % 2 == 0 else ("on", "off"):
                        extractor = None
                        if arm == "on":
                            extractor = ConceptExtractor(mem.concepts.settings)
                            extractor._nlp = mem.concepts._nlp
                        mem.turns.concepts = extractor
                        ns = f"bench-concepts-{uuid.uuid4().hex[:8]}"
                        try:
                            d0 = _cpu_seconds(server_pid)
                            t0, c0 = time.perf_counter(), time.process_time()
                            mem.ingest(path, ns=ns, batch_size=batch_size, progress=False)
                            rates[arm].append(n / (time.perf_counter() - t0))
                            cpu[arm].append(time.process_time() - c0)
                            if server_pid:
                                db_cpu[arm].append(_cpu_seconds(server_pid) - d0)
                            print(
                                f"pair {run + 1} concepts {arm}: {rates[arm][-1]:.1f} turns/s, process CPU "
                                f"{cpu[arm][-1]:.1f} s"
                                + (f", Neo4j CPU {db_cpu[arm][-1]:.1f} s" if server_pid else ""),
                                flush=True,
                            )
                        finally:
                            delete_namespace(mem.graph, None, ns)
                            mem.vectors.drop_namespace(ns, ["message"])
                mem.turns.concepts = mem.concepts
        finally:
            if server is not None:
                server.down()
    for arm in ("off", "on"):
        db = f"; Neo4j CPU s per run {', '.join(f'{c:.1f}' for c in db_cpu[arm])}" if db_cpu[arm] else ""
        print(
            f"ingest {n} LoCoMo dev turns, batch {batch_size}, concepts {arm}: turns/s per run "
            f"{', '.join(f'{r:.1f}' for r in rates[arm])}; median {statistics.median(rates[arm]):.1f}; "
            f"process CPU s per run {', '.join(f'{c:.1f}' for c in cpu[arm])}{db}"
        )
    ratios = [on / off for on, off in zip(rates["on"], rates["off"])]
    db = ""
    if db_cpu["on"]:
        db = (
            f"; Neo4j CPU on / off (medians) {statistics.median(db_cpu['on']) / statistics.median(db_cpu['off']):.2f} "
            f"({statistics.median(db_cpu['on']):.1f} vs {statistics.median(db_cpu['off']):.1f} s)"
        )
    print(
        f"turns/s on / off, {len(ratios)} pairs: {', '.join(f'{r:.2f}' for r in ratios)}; "
        f"median {statistics.median(ratios):.2f}, range {min(ratios):.2f}-{max(ratios):.2f}; process CPU on / off "
        f"(medians) {statistics.median(cpu['on']) / statistics.median(cpu['off']):.2f}{db}"
    )


def _server_pid(settings) -> int | None:  # noqa: ANN001 - kgmem.config.Settings
    """The local Neo4j's java pid when this machine runs it (kgmem.server.LocalNeo4j), else None."""
    from kgmem.server import LocalNeo4j
    from kgmem.server.local import is_local

    if not is_local(settings):
        return None
    return LocalNeo4j(settings).status().pid


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (/proc/PID/stat), 0 when unknown."""
    if not pid:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_record(data: list[dict], runs: int) -> None:
    """One 256-turn ``TurnStore.record`` with the vectors given: concepts off vs on (graph write
    time, and the extraction's own CPU), alternating, each into a scratch namespace."""
    from kgmem import KGMem
    from kgmem.concepts import ConceptExtractor
    from kgmem.conversation import Turn, TurnStore
    from kgmem.maintenance import delete_namespace

    turns = [Turn(f"{c['sample_id']}/{s}", sp, tx, ref=d) for c in data for s, d, sp, tx in turns_of(c)][:256]
    with KGMem() as mem:
        vecs = mem.embedder.embed([t.text for t in turns])
        mem.concepts.extract("warm up")
        for _ in range(runs):
            for label in ("off", "on"):
                ns = f"bench-concepts-{uuid.uuid4().hex[:8]}"
                concepts = ConceptExtractor(mem.concepts.settings) if label == "on" else None
                if concepts is not None:
                    concepts._nlp = mem.concepts._nlp
                store = TurnStore(mem.graph, mem.vectors, mem.embedder, concepts)
                try:
                    c0 = time.process_time()
                    store._concepts_of(ns, turns)  # extraction alone (the write below hits its cache)
                    cpu = time.process_time() - c0
                    t0 = time.perf_counter()
                    store.record(ns, turns, vectors=vecs)
                    print(
                        f"concepts {label}: extraction {cpu:.2f} CPU-s, record (graph + Chroma) "
                        f"{time.perf_counter() - t0:.2f} s for {len(turns)} turns"
                    )
                finally:
                    delete_namespace(mem.graph, None, ns)
                    mem.vectors.drop_namespace(ns, ["message"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["extract", "ingest", "yake", "record"])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--runs", type=int, default=5, help="record: runs; ingest: alternating off/on pairs")
    ap.add_argument(
        "--private-neo4j",
        default="",
        metavar="BOLT:HTTP",
        help="ingest: run on a fresh Neo4j of its own on these ports (stopped at the end)",
    )
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--turns", type=int, default=0, help="ingest: only the first N dev turns (0 = all 788)")
    ap.add_argument("--cap", type=int, default=24, help="max concepts per memory (extract)")
    ap.add_argument("--max-df", type=int, default=20, help="'specific' concepts: mentioned by at most this many turns")
    opts = ap.parse_args()
    # A stopped run (SIGTERM) still stops its private Neo4j: the finally blocks run on SystemExit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    data = load(opts.data)
    if opts.what == "extract":
        bench_extract(data, opts.cap, opts.max_df)
    elif opts.what == "yake":
        bench_yake(data)
    elif opts.what == "record":
        bench_record(data, opts.runs)
    else:
        bench_ingest(data, opts.runs, opts.batch_size, opts.private_neo4j, opts.turns)
    sys.stdout.flush()


if __name__ == "__main__":
    main()

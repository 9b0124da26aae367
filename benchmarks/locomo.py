#!/usr/bin/env python
"""Evidence-retrieval quality of kgmem on LoCoMo (docs/retrieval.md has the figures).

Every turn of every conversation is ingested through ``KGMem.ingest`` (one namespace per
conversation, one session per ``session_N``, ``dia_id`` as ``ref``, the session date as
``ts``, the speaker as ``role``, a shared image's caption appended to the text). Every
answerable question (categories 1–4) is asked once per system; recall@k counts the share
of the question's evidence turns in the top k, hit@k whether any is there, MRR the
reciprocal rank of the first.

Systems, side by side in one run:
  bm25        plain Okapi BM25 (k1 1.2, b 0.75) in this script, same stop words as kgmem's query side
  dense       plain cosine over the same MiniLM embeddings, brute force, no threshold
  kg-vector   kgmem vector leg only (Chroma, distance threshold)
  kg-keyword  kgmem keyword leg only (Neo4j full-text, BM25)
  kg-hybrid   both legs, weighted RRF, no graph, no quality
  kg-graphrag the full pipeline, preset ``balanced`` (and ``--presets`` for more)
  peer-*      neo4j-graphrag VectorCypherRetriever / HybridRetriever on the same Neo4j, embedder and text

The data is read from where it lies (default ../shared/data/locomo-dev.json); nothing is copied.

    .venv/bin/python -m benchmarks.locomo [--data PATH] [--json OUT] [--peer] [--set key=value ...]
    .venv/bin/python -m benchmarks.locomo --peer --presets fast --stages --system hop:concept_hop=true
    .venv/bin/python -m benchmarks.locomo --peer --presets fast --stages --no-query-cache   # every search embeds
    .venv/bin/python -m benchmarks.locomo --two-fold --grid graph_margin=0,0.1 ...   # tune on one, report on the other
    .venv/bin/python -m benchmarks.locomo --tune-on conv-26 --eval-on conv-30 --grid ...
    .venv/bin/python -m benchmarks.locomo --two-fold --private-neo4j 22687:22474 ...   # reproducible BM25

The shared Neo4j has one full-text index for every namespace, so Lucene's IDF statistics include
whatever other test data is there at the time; ``--private-neo4j BOLT:HTTP`` starts a fresh server
of kgmem's own (temporary home, those ports), runs there and stops it, so figures do not depend on
what else the machine holds.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import statistics
import sys
import time
import uuid
from collections import Counter, defaultdict
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.paths import SHARED_DATA
from benchmarks.scratch import cli_main, scratch_memory
from kgmem import KGMem
from kgmem.retrieval.config import PRESETS, SearchConfig
from kgmem.retrieval.text import STOP_WORDS, escape
from kgmem.retrieval.timing import STAGES

log = logging.getLogger("eval_locomo")

DEFAULT_DATA = SHARED_DATA / "locomo-dev.json"
KS = (1, 5, 10, 20)
_WORD = re.compile(r"[\w']+")


# -- data ---------------------------------------------------------------------------------
def session_ts(value: str) -> str:
    """'1:56 pm on 8 May, 2023' → ISO-8601 UTC."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).isoformat()


def turn_text(turn: dict[str, Any]) -> str:
    text = turn["text"]
    if turn.get("blip_caption"):
        text = f"{text} [shares an image: {turn['blip_caption']}]"
    return text


def conversation_events(conv: dict[str, Any]) -> list[dict[str, Any]]:
    """LoCoMo conversation → kgmem ingest events (turns, then a session_end per session)."""
    events = []
    n = 1
    while f"session_{n}" in conv:
        key = f"session_{n}"
        ts = session_ts(conv[f"{key}_date_time"])
        for turn in conv[key]:
            events.append(
                {
                    "type": "turn",
                    "session": key,
                    "role": turn["speaker"],
                    "text": turn_text(turn),
                    "ref": turn["dia_id"],
                    "ts": ts,
                }
            )
        events.append({"type": "session_end", "session": key})
        n += 1
    return events


def evidence_refs(qa: dict[str, Any]) -> set[str]:
    refs = set()
    for item in qa.get("evidence", []):
        refs.update(r for r in re.split(r"[;,\s]+", item) if r)
    return refs


# -- metrics ------------------------------------------------------------------------------
def score(ranked: list[str], gold: set[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"recall@{k}"] = len(top & gold) / len(gold)
        out[f"hit@{k}"] = float(bool(top & gold))
    rr = 0.0
    for i, ref in enumerate(ranked, start=1):
        if ref in gold:
            rr = 1.0 / i
            break
    out["mrr"] = rr
    return out


def mean_scores(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: sum(r[key] for r in rows) / len(rows) for key in rows[0]} if rows else {}


# -- baselines in this script -----------------------------------------------------------------
def tokens(text: str) -> list[str]:
    return [w for w in (t.strip("'").lower() for t in _WORD.findall(text)) if w and w not in STOP_WORDS]


class PlainBM25:
    """Okapi BM25 over the turns of one conversation (k1 1.2, b 0.75)."""

    def __init__(self, docs: list[tuple[str, str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.refs = [r for r, _ in docs]
        self.tf = [Counter(tokens(t)) for _, t in docs]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / len(self.len)
        df = Counter(w for c in self.tf for w in c)
        n = len(docs)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.k1, self.b = k1, b

    def search(self, query: str, k: int) -> list[str]:
        q = tokens(query)
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for w in q:
                f = tf.get(w)
                if f:
                    s += (
                        self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.len[i] / self.avg))
                    )
            scores.append(s)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return [self.refs[i] for i in order[:k] if scores[i] > 0]


class PlainDense:
    """Brute-force cosine over the same embeddings kgmem stores."""

    def __init__(self, docs: list[tuple[str, str]], embedder) -> None:  # noqa: ANN001
        self.refs = [r for r, _ in docs]
        self.matrix = embedder.embed([t for _, t in docs])
        self.embedder = embedder

    def search(self, query: str, k: int) -> list[str]:
        sims = self.matrix @ self.embedder.embed_query(query)
        return [self.refs[i] for i in np.argsort(-sims)[:k]]


# -- the peer -------------------------------------------------------------------------------
class Peer:
    """neo4j-graphrag retrievers over a copy of one conversation on label LocomoPeerTurn."""

    VECTOR_INDEX = "locomo_peer_vec"
    FULLTEXT_INDEX = "locomo_peer_ft"

    def __init__(self, mem: KGMem) -> None:
        from neo4j_graphrag.embeddings.base import Embedder as PeerEmbedder
        from neo4j_graphrag.indexes import create_fulltext_index, create_vector_index

        class _Embedder(PeerEmbedder):
            def embed_query(self, text: str) -> list[float]:
                return mem.embedder.embed_query(text).tolist()

        self.mem = mem
        self.embedder = _Embedder()
        create_vector_index(mem.driver, self.VECTOR_INDEX, "LocomoPeerTurn", "embedding", mem.embedder.dim, "cosine")
        create_fulltext_index(mem.driver, self.FULLTEXT_INDEX, "LocomoPeerTurn", ["text"])

    def load(self, ns: str, docs: list[tuple[str, str]], texts_for_embedding: list[str]) -> None:
        self.mem.graph.write("retrieval/eval/peer_clear")
        vectors = self.mem.embedder.embed(texts_for_embedding)
        rows = [{"ref": r, "ns": ns, "text": t, "embedding": v.tolist()} for (r, t), v in zip(docs, vectors)]
        self.mem.graph.write("retrieval/eval/peer_load", rows=rows)
        self.mem.graph.write("retrieval/eval/await_indexes")

    def retrievers(self) -> dict[str, Any]:
        from neo4j_graphrag.retrievers import HybridRetriever, VectorCypherRetriever

        query = _peer_query()
        return {
            "peer-vectorcypher": VectorCypherRetriever(self.mem.driver, self.VECTOR_INDEX, query, self.embedder),
            "peer-hybrid": HybridRetriever(
                self.mem.driver, self.VECTOR_INDEX, self.FULLTEXT_INDEX, self.embedder, return_properties=["ref"]
            ),
        }

    def close(self) -> None:
        from neo4j_graphrag.indexes import drop_index_if_exists

        self.mem.graph.write("retrieval/eval/peer_clear")
        drop_index_if_exists(self.mem.driver, self.VECTOR_INDEX)
        drop_index_if_exists(self.mem.driver, self.FULLTEXT_INDEX)


def _peer_query() -> str:
    # VectorCypherRetriever takes its retrieval query as text: load it from cypher/ like all Cypher.
    from kgmem import cypher

    return cypher.load("retrieval/eval/peer_retrieval")


def peer_refs(result) -> list[str]:  # noqa: ANN001
    refs = []
    for item in result.records:
        data = item.data()
        node = data.get("node")
        ref = data.get("ref") or (node.get("ref") if isinstance(node, dict) else None)
        if ref is None and node is not None and hasattr(node, "get"):
            ref = node.get("ref")
        refs.append(ref)
    return refs


# -- main -----------------------------------------------------------------------------------
def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``key=value`` pairs: a value that reads as JSON (a number, true, [..]) is that, any other a string
    ("names", "thompson")."""
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def kgmem_systems(base: SearchConfig, presets: list[str], overrides: dict[str, Any]) -> dict[str, SearchConfig]:
    systems = {
        "kg-vector": base.with_overrides(name="vector", use_keyword=False, use_graph=False, use_quality=False),
        "kg-keyword": base.with_overrides(name="keyword", use_vector=False, use_graph=False, use_quality=False),
        "kg-hybrid": base.with_overrides(name="hybrid", use_graph=False, use_quality=False),
        "kg-graphrag": base.with_overrides(name="graphrag"),
    }
    for name in presets:
        systems[f"kg-{name}"] = PRESETS[name].with_overrides(**overrides)
    return systems


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", type=int, default=0, help="only the first N conversations (0 = all)")
    ap.add_argument("--questions", type=int, default=0, help="only the first N answerable questions of each")
    ap.add_argument("--warmup", type=int, default=3, help="questions asked of every system untimed first")
    ap.add_argument("--json", type=Path, help="write all figures here")
    ap.add_argument("--peer", action="store_true", help="also run neo4j-graphrag's retrievers")
    ap.add_argument("--presets", default="", help="extra presets to run, comma-separated (e.g. fast,deep)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SearchConfig override key=value")
    ap.add_argument(
        "--system",
        dest="variants",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE,...",
        help="one more system kg-NAME: the balanced preset (with --set) plus these overrides, e.g. "
        "hop:concept_hop=true (measured in the same run as the others)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the namespaces after the run")
    ap.add_argument(
        "--run-id",
        default=None,
        help="namespace suffix; with --keep and --chroma a re-run reuses the "
        "stored data (ingest is idempotent, so the second ingest only checks)",
    )
    ap.add_argument("--chroma", type=Path, default=None, help="Chroma directory (default: a temporary one)")
    ap.add_argument("--systems", default="", help="only these systems, comma-separated")
    ap.add_argument("--tune-on", default="", help="conversation ids (comma-separated) the --grid is tuned on")
    ap.add_argument("--eval-on", default="", help="conversation ids every system is reported on (held out)")
    ap.add_argument(
        "--two-fold",
        action="store_true",
        help="with two conversations: tune on each, report on the other (both directions in one run)",
    )
    ap.add_argument(
        "--shift-grid",
        default="",
        help="with --two-fold/--tune-on: BQAR shift_threshold values "
        "(0 = no shift detection) tuned on a simulated feedback session (see session_sim)",
    )
    ap.add_argument(
        "--private-neo4j",
        default="",
        metavar="BOLT:HTTP",
        help="run on a fresh private Neo4j on these ports (started in a temporary home, stopped at the end)",
    )
    ap.add_argument(
        "--stages",
        action="store_true",
        help="time every stage of the kgmem searches (explain=True) and print p50/p95 per stage and system",
    )
    ap.add_argument(
        "--no-query-cache",
        action="store_true",
        help="embed the question in every search (kgmem's "
        "query-embedding cache off; the peer embeds through the same embedder): latency as a first "
        "question sees it. Without it the embedding is cached for every system",
    )
    ap.add_argument(
        "--grid",
        action="append",
        default=[],
        help="tuning grid for kg-graphrag: key=v1,v2,... "
        "(values JSON); the combination with the best recall@10 (then MRR) on --tune-on is reported",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    return cli_main(evaluate, _parser().parse_args(argv))


def evaluate(args: argparse.Namespace, settings: Any = None) -> dict[str, Any]:
    """The whole evaluation ``args`` describes (the command line's options) on ``settings``' Neo4j
    (default: the environment's, or a private server with --private-neo4j); returns every figure."""
    data = json.loads(args.data.read_text(encoding="utf-8"))
    if args.conversations:
        data = data[: args.conversations]
    overrides = parse_overrides(args.overrides)
    base = PRESETS["balanced"].with_overrides(**overrides)
    systems = kgmem_systems(base, [p for p in args.presets.split(",") if p], overrides)
    for spec in args.variants:
        name, _, pairs = spec.partition(":")
        systems[f"kg-{name}"] = base.with_overrides(name=name, **parse_overrides(pairs.split(",") if pairs else []))
    wanted = set(args.systems.split(",")) if args.systems else set()
    if wanted:
        systems = {k: v for k, v in systems.items() if k in wanted}
    folds = _folds(args, [s["sample_id"] for s in data])
    run_id = args.run_id or uuid.uuid4().hex[:6]
    with scratch_memory(
        settings,
        private_neo4j=args.private_neo4j,
        chroma=args.chroma,
        query_cache=not args.no_query_cache,
        keep=args.keep,
    ) as scratch:
        mem, namespaces = scratch.mem, scratch.namespaces
        peer = Peer(mem) if args.peer and not folds else None
        ingest_stats = []
        all_figures: dict[str, Any] = {}
        try:
            convs = {}
            samples = {sample["sample_id"]: sample for sample in data}
            sim_convs: dict[str, Conversation] = {}
            # (conversation, setting) → scores: both folds share them
            sim_cache: dict[tuple[str, str], dict[str, float]] = {}
            for sample in data:
                conv = _prepare(mem, sample, run_id, wanted)
                if args.questions:
                    conv.questions = conv.questions[: args.questions]
                namespaces.append(conv.ns)
                ingest_stats.append(conv.ingest)
                convs[sample["sample_id"]] = conv
            if not folds:
                run = Run(stages=args.stages)
                for conv in convs.values():
                    peer_r = {}
                    if peer is not None:
                        peer.load(conv.ns, conv.peer_docs, conv.emb_texts)
                        peer_r = peer.retrievers()
                    run.evaluate(mem, conv, systems, conv.baselines, peer_r, peer, warmup=args.warmup)
                all_figures = _report(run, ingest_stats, base, ", ".join(convs))
            for tune_ids, eval_ids in folds:
                grid = _grid(args.grid)
                print(f"\n## fold: tune on {', '.join(tune_ids)}, report on {', '.join(eval_ids)}")
                best, rows = _tune(mem, [convs[i] for i in tune_ids], base, grid)
                print("| grid point (tune fold) | recall@10 | MRR | >= hybrid in every category |\n|---|---|---|---|")
                for combo, m in rows:
                    print(
                        f"| {json.dumps(combo)} | {m['recall@10']:.3f} | {m['mrr']:.3f} | "
                        f"{'yes' if m['ge_hybrid_every_category'] else 'no'} |"
                    )
                print(f"chosen on {', '.join(tune_ids)}: {json.dumps(best)}")
                fold_systems = {**systems, "kg-tuned": base.with_overrides(name="tuned", **best)}
                run = Run()
                for i in eval_ids:
                    run.evaluate(mem, convs[i], fold_systems, convs[i].baselines, {}, None)
                key = f"tune:{'+'.join(tune_ids)}->eval:{'+'.join(eval_ids)}"
                all_figures[key] = {
                    "chosen": best,
                    "grid": [{"point": c, **m} for c, m in rows],
                    **_report(run, ingest_stats, base, ", ".join(eval_ids) + " (held out)"),
                }
            # After every fold's figures: the simulation's copies of the conversations would otherwise be in
            # the full-text index (BM25 statistics) while a later fold is measured.
            for tune_ids, eval_ids in folds if args.shift_grid else []:
                sims = {
                    i: sim_convs.get(i) or _prepare_sim(mem, samples[i], run_id, namespaces)
                    for i in tune_ids + eval_ids
                }
                sim_convs.update(sims)
                key = f"tune:{'+'.join(tune_ids)}->eval:{'+'.join(eval_ids)}"
                all_figures[key]["shift"] = _tune_shift(
                    mem,
                    [sims[i] for i in tune_ids],
                    [sims[i] for i in eval_ids],
                    base,
                    [float(v) for v in args.shift_grid.split(",")],
                    sim_cache,
                )
        finally:
            if peer is not None:
                peer.close()
    return all_figures


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """The default evaluation (every system, the fast preset too) as flat figures: ``<system>.<measure>``
    (``kg-graphrag.recall_at_10``, ``bm25.mrr``, ``kg-fast.p95_ms``, ...), ``<system>.category_<c>.recall_at_10``,
    ``questions``, ``ingest_turns_per_s``. Quick: the first conversation, its first 40 questions."""
    argv = ["--presets", "fast"] + (["--conversations", "1", "--questions", "40"] if quick else [])
    return figures_of(evaluate(_parser().parse_args(argv), settings))


def figures_of(report: dict[str, Any]) -> dict[str, Any]:
    """A ``_report`` dict as benchmark figures (metric names without ``@``; no rankings or stages)."""
    out: dict[str, Any] = {"questions": report["questions"], "ingest_turns_per_s": report["ingest_turns_per_s"]}
    for name, measures in report["systems"].items():
        for key, value in measures.items():
            out[f"{name}.{key.replace('@', '_at_')}"] = value
    for name, cats in report["categories"].items():
        for cat, value in cats.items():
            out[f"{name}.category_{cat}.recall_at_10"] = value
    return out


# -- BQAR shift threshold: a simulated session with feedback ----------------------------------------
SIM_SESSION = "sim"


def _prepare_sim(mem: KGMem, sample: dict[str, Any], run_id: str, namespaces: list[str]) -> Conversation:
    """The conversation again, every turn in one kgmem session (``session=`` also restricts which
    turns a search sees, so the simulated BQAR session must hold them all)."""
    ns = f"eval-locomo-sim-{sample['sample_id']}-{run_id}"
    namespaces.append(ns)
    events = [{**e, "session": SIM_SESSION} for e in conversation_events(sample["conversation"]) if e["type"] == "turn"]
    report = mem.ingest(events, ns=ns)
    if report.errors:
        raise SystemExit(f"ingest errors: {report.errors[:3]}")
    questions = [q for q in sample["qa"] if q.get("category") in (1, 2, 3, 4) and evidence_refs(q)]
    return Conversation(sample["sample_id"], ns, questions, {}, [], [], (report.turns, report.seconds))


def session_sim(mem: KGMem, conv: Conversation, cfg: SearchConfig) -> dict[str, float]:
    """One agent session asking the conversation's questions in order, with oracle feedback after each
    search (the evidence turns it found in the top 10 ``success``, the other hits "retrieved, not
    used" −0.1), through a fresh retrieval engine and an empty overlay. Returns the mean scores of the
    searches (each ranked by the feedback of the ones before it) and the shifts detected."""
    from kgmem.retrieval import Retrieval

    engine = Retrieval(mem.graph, mem.vectors, mem.embedder)
    mem.graph.write("retrieval/eval/drop_overlays", ns=conv.ns, session=SIM_SESSION)
    rows = []
    try:
        for q in conv.questions:
            gold = evidence_refs(q)
            result = engine.search(q["question"], conv.ns, k=20, session=SIM_SESSION, config=cfg)
            rows.append(score([h.ref for h in result.hits if h.kind == "message"], gold))
            used = [h.id for h in result.hits[:10] if h.ref in gold]
            engine.feedback(result.query_id, used=used, outcome="success")
        shifts = engine.session_state(conv.ns, SIM_SESSION).shifts
    finally:
        engine.close()
        mem.graph.write("retrieval/eval/drop_overlays", ns=conv.ns, session=SIM_SESSION)
    return {**mean_scores(rows), "shifts": float(shifts)}


def _tune_shift(
    mem: KGMem,
    tune: list[Conversation],
    held: list[Conversation],
    base: SearchConfig,
    grid: list[float],
    cache: dict[tuple[str, str], dict[str, float]],
) -> dict[str, Any]:
    """shift_threshold chosen by the simulated session's recall@10 (then MRR) on ``tune``; every value
    (and the overlay off) reported on ``held`` too."""
    settings = {"overlay off": base.with_overrides(name="no-overlay", use_session_overlay=False)}
    settings.update({f"shift_threshold={t}": base.with_overrides(name=f"shift-{t}", shift_threshold=t) for t in grid})

    def run(convs: list[Conversation], name: str) -> dict[str, float]:
        for c in convs:
            if (c.sample_id, name) not in cache:
                cache[(c.sample_id, name)] = session_sim(mem, c, settings[name])
        per = [cache[(c.sample_id, name)] for c in convs]
        return {k: sum(p[k] for p in per) / len(per) for k in per[0]}

    rows = {name: {"tune": run(tune, name), "held": run(held, name)} for name in settings}
    chosen = max(
        (n for n in rows if n != "overlay off"),
        key=lambda n: (round(rows[n]["tune"]["recall@10"], 4), rows[n]["tune"]["mrr"]),
    )
    print(f"\n### shift threshold (simulated feedback session), tuned on {', '.join(c.sample_id for c in tune)}")
    print("| setting | tune recall@10 | tune MRR | tune shifts | held-out recall@10 | held-out MRR | held-out shifts |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        t, h = r["tune"], r["held"]
        print(
            f"| {name}{' (chosen)' if name == chosen else ''} | {t['recall@10']:.3f} | {t['mrr']:.3f} | "
            f"{t['shifts']:.0f} | {h['recall@10']:.3f} | {h['mrr']:.3f} | {h['shifts']:.0f} |"
        )
    return {"chosen": chosen, "rows": rows}


class Conversation:
    """One LoCoMo conversation ingested into its namespace, with its questions and in-script baselines."""

    def __init__(
        self,
        sample_id: str,
        ns: str,
        questions: list[dict[str, Any]],
        baselines: dict[str, Any],
        peer_docs: list[tuple[str, str]],
        emb_texts: list[str],
        ingest: tuple[int, float],
    ) -> None:
        self.sample_id, self.ns, self.questions, self.baselines = sample_id, ns, questions, baselines
        self.peer_docs, self.emb_texts, self.ingest = peer_docs, emb_texts, ingest


def conversation_ns(sample_id: str, run_id: str) -> str:
    """The namespace a run (``--run-id``) ingests a LoCoMo conversation into; ``--keep`` leaves it there."""
    return f"eval-locomo-{sample_id}-{run_id}"


def _prepare(mem: KGMem, sample: dict[str, Any], run_id: str, wanted: set[str]) -> Conversation:
    ns = conversation_ns(sample["sample_id"], run_id)
    events = conversation_events(sample["conversation"])
    report = mem.ingest(events, ns=ns)
    if report.errors:
        raise SystemExit(f"ingest errors: {report.errors[:3]}")
    turn_events = [e for e in events if e["type"] == "turn"]
    emb_texts = [mem.turns.embedding_text(e["role"], e["text"]) for e in turn_events]
    baselines = {}
    if not wanted or "bm25" in wanted:
        baselines["bm25"] = PlainBM25([(e["ref"], f"{e['role']} {e['text']}") for e in turn_events]).search
    if not wanted or "dense" in wanted:
        baselines["dense"] = PlainDense(list(zip([e["ref"] for e in turn_events], emb_texts)), mem.embedder).search
    questions = [q for q in sample["qa"] if q.get("category") in (1, 2, 3, 4) and evidence_refs(q)]
    return Conversation(
        sample["sample_id"],
        ns,
        questions,
        baselines,
        [(e["ref"], f"{e['role']}: {e['text']}") for e in turn_events],
        emb_texts,
        (report.turns, report.seconds),
    )


class Run:
    """Per-question scores of every system over some conversations."""

    def __init__(self, stages: bool = False) -> None:
        self.per_system: dict[str, list[dict[str, float]]] = defaultdict(list)
        self.per_cat: dict[tuple[str, int], list[dict[str, float]]] = defaultdict(list)
        self.latency: dict[str, list[float]] = defaultdict(list)
        # Process CPU ms per search (every thread of this process: the client's share of a search, which the
        # machine's load inflates least) and each search's ranked hit ids (to compare two runs' rankings).
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.rankings: dict[str, list[list[str]]] = defaultdict(list)
        # With stages: system → stage → ms per question (SearchResult.timings_ms of explain=True).
        self.stages: dict[str, dict[str, list[float]]] | None = (
            defaultdict(lambda: defaultdict(list)) if stages else None
        )

    def evaluate(
        self,
        mem: KGMem,
        conv: Conversation,
        systems: dict[str, SearchConfig],
        baselines: dict[str, Any],
        peer_r: dict[str, Any],
        peer: Peer | None,
        warmup: int = 0,
    ) -> None:
        """Every system on every question of ``conv``. The systems are interleaved question by question
        and their order rotates by one each question, so none always pays for what the one before it
        warmed (the embedding cache, Neo4j's page cache, the JIT); ``warmup`` questions are first asked of
        every system untimed and unscored."""
        searchers = self._searchers(mem, conv, systems, baselines, peer_r, peer)
        for q in conv.questions[:warmup]:
            for _, _, fn in searchers:
                fn(q["question"])
        for i, q in enumerate(conv.questions):
            gold = evidence_refs(q)
            shift = i % len(searchers) if searchers else 0
            for name, kind, fn in searchers[shift:] + searchers[:shift]:
                c0, t0 = time.process_time(), time.perf_counter()
                out = fn(q["question"])
                self.latency[name].append((time.perf_counter() - t0) * 1000)
                if kind == "baseline":
                    ranked = out
                elif kind == "peer":
                    self.cpu[name].append((time.process_time() - c0) * 1000)
                    ranked = peer_refs(out)
                else:
                    self.cpu[name].append((time.process_time() - c0) * 1000)
                    self.rankings[name].append([h.id for h in out.hits])
                    if self.stages is not None:
                        for stage in STAGES:
                            if f"{stage}_ms" in out.timings_ms:
                                self.stages[name][stage].append(out.timings_ms[f"{stage}_ms"])
                    ranked = [h.ref for h in out.hits if h.kind == "message"]
                _record(name, q, score(ranked, gold), self.per_system, self.per_cat)

    def _searchers(
        self,
        mem: KGMem,
        conv: Conversation,
        systems: dict[str, SearchConfig],
        baselines: dict[str, Any],
        peer_r: dict[str, Any],
        peer: Peer | None,
    ) -> list[tuple[str, str, Any]]:
        """(name, kind, question → result) for every system: kind is baseline, kg or peer."""
        out: list[tuple[str, str, Any]] = [(name, "baseline", partial(fn, k=20)) for name, fn in baselines.items()]
        explain = self.stages is not None
        for name, cfg in systems.items():
            out.append((name, "kg", partial(_kg_search, mem, ns=conv.ns, cfg=cfg, explain=explain)))
        for name, retriever in peer_r.items():
            out.append((name, "peer", partial(_peer_search, retriever, peer, hybrid=name == "peer-hybrid")))
        return out


def _kg_search(mem: KGMem, question: str, ns: str, cfg: SearchConfig, explain: bool):  # noqa: ANN202
    return mem.retrieval.search(question, ns, k=20, config=cfg, explain=explain)


def _peer_search(retriever: Any, peer: Peer | None, question: str, hybrid: bool):  # noqa: ANN202
    # The peer hands query_text to Lucene unescaped ("/bands" is a syntax error there): escape it for the
    # peer; the vector is embedded from the raw question.
    if hybrid and peer is not None:
        return retriever.get_search_results(
            query_text=escape(question), query_vector=peer.embedder.embed_query(question), top_k=20
        )
    return retriever.get_search_results(query_text=question, top_k=20)


def _folds(args: argparse.Namespace, ids: list[str]) -> list[tuple[list[str], list[str]]]:
    """(tune ids, eval ids) pairs from --tune-on/--eval-on or --two-fold; [] = no tuning."""
    if args.two_fold:
        if len(ids) != 2:
            raise SystemExit(f"--two-fold needs exactly two conversations, the data has {len(ids)}")
        return [([ids[0]], [ids[1]]), ([ids[1]], [ids[0]])]
    if bool(args.tune_on) != bool(args.eval_on):
        raise SystemExit("give both --tune-on and --eval-on")
    if not args.tune_on:
        return []
    tune, held = args.tune_on.split(","), args.eval_on.split(",")
    unknown = [i for i in tune + held if i not in ids]
    if unknown or set(tune) & set(held):
        raise SystemExit(f"--tune-on/--eval-on: unknown or overlapping ids {unknown or sorted(set(tune) & set(held))}")
    return [(tune, held)]


def _grid(specs: list[str]) -> list[dict[str, Any]]:
    """``["a=1,2", "b=x"]`` → every combination as override dicts (one empty dict without a grid)."""
    import itertools

    axes = []
    for spec in specs:
        key, _, values = spec.partition("=")
        axes.append([(key, parse_overrides([f"{key}={v}"])[key]) for v in values.split(",")])
    return [dict(combo) for combo in itertools.product(*axes)] if axes else [{}]


def _tune(mem: KGMem, convs: list[Conversation], base: SearchConfig, grid: list[dict[str, Any]]):  # noqa: ANN202
    """Every grid point on the tuning conversations. The best is the one with the highest recall@10 (then
    MRR) among those at least as good as plain hybrid in every question category on these conversations
    (the issue's goal, asked of the tuning data first); if none is, the best overall."""
    hybrid = Run()
    for conv in convs:
        hybrid.evaluate(
            mem, conv, {"hybrid": base.with_overrides(name="hybrid", use_graph=False, use_quality=False)}, {}, {}, None
        )
    floor = _by_category(hybrid, "hybrid")
    rows = []
    for combo in grid:
        run = Run()
        cfg = base.with_overrides(name="tune", **combo)
        for conv in convs:
            run.evaluate(mem, conv, {"tune": cfg}, {}, {}, None)
        m = mean_scores(run.per_system["tune"])
        cats = _by_category(run, "tune")
        m["ge_hybrid_every_category"] = float(all(cats[c] >= floor[c] - 1e-9 for c in floor))
        rows.append((combo, m))
    best = max(rows, key=lambda r: (r[1]["ge_hybrid_every_category"], round(r[1]["recall@10"], 4), r[1]["mrr"]))
    return best[0], rows


def _by_category(run: Run, name: str) -> dict[int, float]:
    return {c: mean_scores(rows)["recall@10"] for (n, c), rows in run.per_cat.items() if n == name}


def _record(name: str, q: dict[str, Any], s: dict[str, float], per_system, per_cat) -> None:  # noqa: ANN001
    per_system[name].append(s)
    per_cat[(name, q["category"])].append(s)


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _report(run: Run, ingest_stats, base: SearchConfig, where: str) -> dict[str, Any]:  # noqa: ANN001
    per_system, per_cat, latency = run.per_system, run.per_cat, run.latency
    n = len(next(iter(per_system.values())))
    print(f"\nLoCoMo {where}: {n} answerable questions; search k=20")
    print(f"config: balanced preset + overrides {base.model_dump(exclude_defaults=True)}")
    cols = ["recall@1", "recall@5", "recall@10", "recall@20", "hit@1", "hit@5", "hit@10", "mrr"]
    print("| system | " + " | ".join(cols) + " | p50 ms | p95 ms | CPU ms/search |")
    print("|---" * (len(cols) + 4) + "|")
    figures: dict[str, Any] = {"questions": n, "systems": {}, "categories": {}}
    for name, rows in per_system.items():
        m = mean_scores(rows)
        lat = latency[name]
        cpu = statistics.fmean(run.cpu[name]) if run.cpu.get(name) else float("nan")
        figures["systems"][name] = {**m, "p50_ms": statistics.median(lat), "p95_ms": _pct(lat, 95), "cpu_ms": cpu}
        print(
            f"| {name} | "
            + " | ".join(f"{m[c]:.3f}" for c in cols)
            + f" | {statistics.median(lat):.1f} | {_pct(lat, 95):.1f} | {cpu:.1f} |"
        )
    print("\nrecall@10 by category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop):")
    cats = sorted({c for _, c in per_cat})
    print("| system | " + " | ".join(f"cat {c} (n={len(per_cat[(next(iter(per_system)), c)])})" for c in cats) + " |")
    print("|---" * (len(cats) + 1) + "|")
    for name in per_system:
        vals = {c: mean_scores(per_cat[(name, c)])["recall@10"] for c in cats}
        figures["categories"][name] = vals
        print(f"| {name} | " + " | ".join(f"{vals[c]:.3f}" for c in cats) + " |")
    figures["rankings"] = dict(run.rankings)
    if run.stages:
        figures["stages"] = _stage_table(run.stages, n)
    turns = sum(t for t, _ in ingest_stats)
    secs = sum(s for _, s in ingest_stats)
    print(f"\ningest: {turns} turns in {secs:.1f}s ({turns / max(secs, 1e-9):.0f} turns/s)")
    figures["ingest_turns_per_s"] = turns / max(secs, 1e-9)
    return figures


def _stage_table(stages: dict[str, dict[str, list[float]]], n: int) -> dict[str, dict[str, dict[str, float]]]:
    """Print stage → p50 / p95 ms per kgmem system (a stage that did not run in a search counts 0 there:
    e.g. the keyword leg of a question with only stop words)."""
    names = list(stages)
    print("\nstages (ms, p50 / p95 per question; legs run concurrently, so `legs` ≈ the slower leg):")
    print("| stage | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    out: dict[str, dict[str, dict[str, float]]] = {name: {} for name in names}
    for stage in STAGES:
        cells = []
        for name in names:
            values = stages[name].get(stage)
            if not values:
                cells.append("—")
                continue
            values = values + [0.0] * (n - len(values))
            out[name][stage] = {"p50_ms": statistics.median(values), "p95_ms": _pct(values, 95)}
            cells.append(f"{statistics.median(values):.1f} / {_pct(values, 95):.1f}")
        print(f"| {stage} | " + " | ".join(cells) + " |")
    return out


if __name__ == "__main__":
    sys.exit(main())

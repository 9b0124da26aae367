#!/usr/bin/env python
"""Start-up costs of the client and the CLI: where the seconds go.

Each figure is measured in a fresh interpreter (a subprocess), so imports are cold in
the sense Python sees them (the OS file cache stays warm, as on a real machine after
the first run). Prints one JSON line per probe, then a summary table.

    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.startup [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

PROBES: dict[str, str] = {
    "import kgmem.client": "import kgmem.client",
    "import sentence_transformers": "import sentence_transformers",
    "import torch": "import torch",
    "import chromadb": "import chromadb",
    "import onnxruntime": "import onnxruntime",
    "KGMem()": "from kgmem import KGMem\nm = KGMem()\nm.close()",
    "KGMem() + first embed": "from kgmem import KGMem\nm = KGMem()\nm.embedder.embed(['x'])\nm.close()",
    "Embedder() + first embed": (
        "from kgmem.config import load_settings\nfrom kgmem.vectors import Embedder\n"
        "s = load_settings()\nEmbedder(s.embedding, s.models_dir).embed(['x'])"
    ),
}
TIMER = "import time\n_t0 = time.perf_counter()\n{body}\nprint(time.perf_counter() - _t0)\n"


def probe(body: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", TIMER.format(body=body)],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    return float(out.stdout.strip().splitlines()[-1])


def cli(args: list[str]) -> float:
    exe = os.path.join(os.path.dirname(sys.executable), "kgmem")
    t0 = time.perf_counter()
    subprocess.run([exe, *args], check=True, capture_output=True, env=os.environ.copy())
    return time.perf_counter() - t0


def measure(runs: int, names: list[str], with_cli: bool = True) -> dict[str, list[float]]:
    """Seconds per probe (each in a fresh interpreter), ``runs`` times, probes interleaved."""
    rows: dict[str, list[float]] = {}
    for _ in range(runs):
        for name in names:
            rows.setdefault(name, []).append(probe(PROBES[name]))
        if with_cli:
            rows.setdefault("CLI: kgmem search", []).append(cli(["search", "database refuses connections", "--k", "3"]))
            rows.setdefault("CLI: kgmem --help", []).append(cli(["--help"]))
    return rows


def run(settings: object = None, quick: bool = False) -> dict[str, float]:
    """Median seconds per probe (``<probe>.median_s``): imports, client construction, first embedding, CLI.
    Quick: one run of each; full: three. The environment's settings (KGMEM_HOME) reach the subprocesses."""
    rows = measure(1 if quick else 3, list(PROBES))
    return {f"{name}.median_s": statistics.median(values) for name, values in rows.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=None, help="comma-separated probe names")
    ap.add_argument("--no-cli", action="store_true")
    opts = ap.parse_args()
    names = opts.only.split(",") if opts.only else list(PROBES)
    rows = measure(opts.runs, names, with_cli=not opts.no_cli)
    for name, values in rows.items():
        print(
            json.dumps(
                {"probe": name, "median_s": round(statistics.median(values), 2), "runs": [round(v, 2) for v in values]}
            )
        )


if __name__ == "__main__":
    main()

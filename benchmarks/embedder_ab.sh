#!/bin/bash
# Default-path embedding cost, A/B between two checkouts run alternately (6 rounds): Embedder() +
# first embedding in a fresh interpreter, then 200 distinct single-query embeddings (p50, min).
#   PYTHON=.venv/bin/python benchmarks/embedder_ab.sh CHECKOUT_A CHECKOUT_B
set -e
a=$(realpath "$1"); b=$(realpath "$2"); python=$(realpath "${PYTHON:-.venv/bin/python}")
for i in 1 2 3 4 5 6; do
  for tree in "$a" "$b"; do
    (cd "$tree" && PYTHONPATH="$tree" "$python" -c "
import time; t0=time.perf_counter()
from kgmem.config import load_settings
from kgmem.vectors import Embedder
s=load_settings(); e=Embedder(s.embedding, s.models_dir); e.embed(['x']); t1=time.perf_counter()
ts=[]
for j in range(200):
    a=time.perf_counter(); e.embed_query(f'query number {j} about a failing build'); ts.append(time.perf_counter()-a)
ts.sort(); print('$tree', f'first={1000*(t1-t0):.0f}ms', f'query_p50={1000*ts[100]:.2f}ms', f'min={1000*ts[0]:.2f}ms')
")
  done
done

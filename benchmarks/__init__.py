"""kgmem's benchmarks: retrieval quality (LoCoMo, LongMemEval), the learning engine (error corpus,
loghub), latency against a peer, ingest rate and the scale curve.

Run them with ``python -m benchmarks list | run NAME [--quick] | all [--quick] | render``. Each
benchmark is a module with ``run(settings, quick=False) -> dict`` (its figures, flat keys) and a
``main()`` of its own (``python -m benchmarks.NAME``). The runner writes every figure to
``benchmarks/results.json``; ``render`` regenerates docs/benchmarks.md and the README's figures block
from that file.
"""

"""Reliability suite (docs/reliability.md): faults (kill -9 of Neo4j) and hostile or malformed
input against the real Neo4j, Chroma and embedding model. Every test asserts that nothing was
lost and nothing was counted twice — by comparing against a fault-free control where it can."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # ingest_data helpers

"""Learning integration tests: make the shared test data module (near_twins.py) and the error-corpus
harness (scripts/error_corpus.py) importable (--import-mode=importlib leaves sys.path alone)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2] / "scripts"))

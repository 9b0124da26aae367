"""Learning integration tests: make the shared test data module (near_twins.py) importable
(--import-mode=importlib leaves sys.path alone). The error-corpus harness is ``benchmarks.error_corpus``."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

"""Learning unit tests: make the error-corpus harness (scripts/error_corpus.py) importable
(--import-mode=importlib leaves sys.path alone)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))

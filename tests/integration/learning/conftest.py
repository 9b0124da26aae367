"""Learning integration tests: make the shared test data module (near_twins.py) importable
(--import-mode=importlib leaves sys.path alone)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

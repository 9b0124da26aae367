"""One analyst fixture graph per module (building it costs a few seconds of embeddings)."""

import sys
from pathlib import Path

# --import-mode=importlib leaves sys.path alone: make the shared fixture module importable.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from analyst_fixture import analyst, analyst_mem, concepts  # type: ignore[import-not-found]  # noqa: E402,F401

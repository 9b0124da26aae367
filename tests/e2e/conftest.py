"""e2e tests reuse the analyst fixture graph of tests/integration/reports and the headless helper."""

import sys
from pathlib import Path

# --import-mode=importlib leaves sys.path alone: make the shared helper modules importable.
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "integration" / "reports"))

from analyst_fixture import analyst, analyst_mem, concepts  # type: ignore[import-not-found]  # noqa: E402,F401

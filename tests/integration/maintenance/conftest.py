"""Maintenance tests reuse the analyst fixture graph of tests/integration/reports."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "reports"))

from analyst_fixture import analyst, analyst_mem  # type: ignore[import-not-found]  # noqa: E402,F401

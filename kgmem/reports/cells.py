"""One report value as text: the cell format every output (table, CSV, HTML) shares."""

from __future__ import annotations

import json
from typing import Any


def cell_text(value: Any) -> str:
    """One value as text: lists/maps as JSON, floats to 3 decimals, None as empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value == value else "NaN"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)

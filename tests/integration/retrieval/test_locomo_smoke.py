"""A LoCoMo slice through ingest and search (a smoke test: behaviour, no quality level).

The held-out evaluation (the default preset against plain hybrid on the conversation its settings were
not tuned on, every question) is a benchmark: ``python -m benchmarks run locomo``. Here: one session of
that conversation (conv-30, read in place) is ingested as LoCoMo turns, and both systems must answer
its questions from those turns and find a turn at the head when asked with its own words.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgmem.retrieval import PRESETS

HELD_OUT, SESSION = "conv-30", "session_1"


@pytest.fixture(scope="module")
def sample(shared_data: Path) -> dict:
    data = shared_data / "locomo-dev.json"
    if not data.is_file():
        pytest.skip(f"{data} not present (LoCoMo is read in place, never copied)")
    found = next((s for s in json.loads(data.read_text(encoding="utf-8")) if s["sample_id"] == HELD_OUT), None)
    if found is None:
        pytest.skip(f"{HELD_OUT} not in {data}")
    return found


def _events(conv: dict) -> list[dict]:
    """One LoCoMo session as ingest events (as the benchmark builds them: turns, then its end)."""
    ts = datetime.strptime(conv[f"{SESSION}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).isoformat()
    turns = [
        {"type": "turn", "session": SESSION, "role": t["speaker"], "text": t["text"], "ref": t["dia_id"], "ts": ts}
        for t in conv[SESSION]
    ]
    return [*turns, {"type": "session_end", "session": SESSION}]


def test_a_locomo_session_is_searchable_by_both_systems(mem, ns: str, sample: dict) -> None:
    events = _events(sample["conversation"])
    report = mem.ingest(events, ns=ns)
    assert not report.errors and report.turns == len(events) - 1
    refs = {e["ref"] for e in events if e["type"] == "turn"}
    questions = [
        q
        for q in sample["qa"]
        if q.get("category") in (1, 2, 3, 4) and q.get("evidence") and all(e.startswith("D1:") for e in q["evidence"])
    ]
    assert len(questions) >= 5
    default = PRESETS["balanced"]
    hybrid = default.with_overrides(name="hybrid", use_graph=False, use_quality=False)
    for cfg in (default, hybrid):
        found = 0
        for q in questions:
            hits = [h for h in mem.retrieval.search(q["question"], ns, k=10, config=cfg).hits if h.kind == "message"]
            assert hits and {h.ref for h in hits} <= refs, (cfg.name, q["question"])
            gold = {r for e in q["evidence"] for r in re.split(r"[;,\s]+", e) if r}
            found += bool({h.ref for h in hits} & gold)
        assert found, f"{cfg.name}: no question found its evidence among the session's turns"
        for turn in sample["conversation"][SESSION][5:8]:  # a turn's own words find it at the head
            top = [h for h in mem.retrieval.search(turn["text"], ns, k=5, config=cfg).hits if h.kind == "message"]
            assert turn["dia_id"] in [h.ref for h in top[:3]], (cfg.name, turn["text"])

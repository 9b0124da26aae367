"""The default preset is not worse than plain hybrid on the LoCoMo conversation its expansion
settings were NOT tuned on (tuned on conv-26, docs/retrieval.md; this test reads conv-30)."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from kgmem.retrieval import PRESETS

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
HELD_OUT = "conv-30"


@pytest.fixture(scope="module")
def locomo():
    if not DATA.is_file():
        pytest.skip(f"{DATA} not present")
    sys.path.insert(0, str(ROOT / "scripts"))
    import eval_locomo

    sample = next((s for s in json.loads(DATA.read_text(encoding="utf-8")) if s["sample_id"] == HELD_OUT), None)
    if sample is None:
        pytest.skip(f"{HELD_OUT} not in {DATA}")
    return eval_locomo, sample


def test_default_preset_not_worse_than_hybrid_on_the_held_out_conversation(mem, ns, locomo):
    ev, sample = locomo
    report = mem.ingest(ev.conversation_events(sample["conversation"]), ns=ns)
    assert not report.errors
    default = PRESETS["balanced"]
    hybrid = default.with_overrides(name="hybrid", use_graph=False, use_quality=False)
    scores: dict[str, dict[int, list[float]]] = {"default": defaultdict(list), "hybrid": defaultdict(list)}
    for q in sample["qa"]:
        if q.get("category") not in (1, 2, 3, 4) or not ev.evidence_refs(q):
            continue
        for name, cfg in (("default", default), ("hybrid", hybrid)):
            hits = mem.retrieval.search(q["question"], ns, k=10, config=cfg).hits
            recall = ev.score([h.ref for h in hits if h.kind == "message"], ev.evidence_refs(q))["recall@10"]
            scores[name][q["category"]].append(recall)

    def mean(values):
        return sum(values) / len(values)

    overall = {name: mean([v for vals in cats.values() for v in vals]) for name, cats in scores.items()}
    # Measured (docs/retrieval.md): default 0.713 vs hybrid 0.683. Margins: 0.01 overall (BM25 statistics
    # move with other namespaces' documents), one question's worth per category.
    assert overall["default"] >= overall["hybrid"] - 0.01, overall
    for cat, values in scores["hybrid"].items():
        assert mean(scores["default"][cat]) >= mean(values) - 1.0 / len(values), (cat, overall)

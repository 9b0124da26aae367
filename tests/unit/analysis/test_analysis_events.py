"""Event counters: structured lines, snapshot, persistence across clients."""

import json
import logging
import threading

from kgmem.analysis.events import EVENTS, AnalysisStats, read_persisted


def test_emit_counts_and_logs_one_json_line(caplog):
    stats = AnalysisStats(extractor="offline")
    with caplog.at_level(logging.INFO, logger="kgmem.analysis.events"):
        stats.emit("merged", "ns1", id="k1", old_confidence=0.5, new_confidence=0.59)
        stats.emit("dropped", "ns1", level=logging.WARNING, session="s")
    (merged, dropped) = caplog.records
    assert merged.levelno == logging.INFO and dropped.levelno == logging.WARNING
    payload = json.loads(merged.getMessage().split(" ", 1)[1])
    assert payload == {
        "event": "knowledge.merged",
        "ns": "ns1",
        "id": "k1",
        "old_confidence": 0.5,
        "new_confidence": 0.59,
    }
    snap = stats.snapshot("ns1")
    assert set(EVENTS) <= set(snap) and snap["merged"] == 1 and snap["dropped"] == 1 and snap["inserted"] == 0
    assert stats.snapshot("other")["merged"] == 0 and stats.snapshot()["merged"] == 1


def test_persist_adds_across_clients_and_threads(tmp_path):
    a, b = AnalysisStats(), AnalysisStats(extractor="anthropic:m")
    a.count("ns", "dropped", 2)
    b.count("ns", "dropped", 3)
    b.count("other", "inserted")
    threads = [threading.Thread(target=s.persist, args=(tmp_path,)) for s in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    a.persist(tmp_path)  # nothing new: no double counting
    saved = read_persisted(tmp_path, "ns")
    assert saved["dropped"] == 5 and saved["merged"] == 0
    assert read_persisted(tmp_path)["other"]["inserted"] == 1
    assert read_persisted(tmp_path / "missing", "ns")["dropped"] == 0

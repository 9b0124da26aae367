"""The leak scan with the forget racing what was recorded before it: an analysis job whose LLM
answer arrives after the forget, a spooled segment another process still held during the forget and
replayed afterwards, and a second process re-ingesting the session's turns while the forget runs;
for an entity, other sessions' analysis windows naming it, queued or in flight, whose knowledge
names it without a triple. After everything settles no store holds the canary or the name."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import textwrap
import time

import pytest

from kgmem import KGMem

from .conftest import canary, client_env, person, scan


@pytest.fixture
def fmem(fsettings, driver, embedder, graph, scripted):
    client = KGMem(fsettings, driver=driver, embedder=embedder, generator=scripted.generator(fsettings))
    yield client
    client.close()


def _ingest_worker(settings, path, marker, rounds: int) -> subprocess.Popen:
    """Another process re-ingesting ``path`` ``rounds`` times (it writes ``marker`` after the first)."""
    env = client_env(settings)
    code = textwrap.dedent(
        f"""
        import pathlib, time
        from kgmem import KGMem
        with KGMem() as mem:
            for i in range({rounds}):
                mem.ingest({str(path)!r})
                mem.flush()
                pathlib.Path({str(marker)!r}).write_text(str(i))
                time.sleep(0.2)
        """
    )
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_forget_racing_analysis_spool_and_another_writer(fmem, fsettings, scripted, ns, driver, tmp_path):
    secret = canary()
    turns = [
        {
            "type": "turn",
            "session": "s1",
            "role": "user",
            "text": f"my badge number is {secret}, note {i}",
            "ref": f"b{i}",
        }
        for i in range(6)
    ]
    source = tmp_path / "s1.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in turns))
    fmem.ingest(str(source))  # the session as it was before the forget

    # 1. an analysis job in flight: its LLM answer (with the canary) comes back after the forget
    scripted.gate = __import__("threading").Event()
    scripted.then(
        scripted.items(
            {
                "type": "fact",
                "content": f"The badge number is {secret}",
                "confidence": 0.9,
                "subject": "user",
                "predicate": "has badge",
                "object": secret,
            }
        )
    )
    for i in range(5):
        fmem.turn(session="s1", role="user", text=f"again, badge {secret} part {i}", ref=f"q{i}")
    assert scripted.entered.wait(60)

    # 2. a segment another process spooled and still holds open while the forget runs
    spool = fsettings.spool_dir
    spool.mkdir(parents=True, exist_ok=True)
    segment = spool / "learning-424242-cafebabe0000.jsonl"
    event = {
        "ns": ns,
        "kind": "turn",
        "seq": 0,
        "session": "s1",
        "role": "user",
        "text": f"spooled {secret}",
        "ref": "sp",
        "at_ms": int(time.time() * 1000) - 1000,
    }
    segment.write_text(json.dumps(event) + "\n")
    held = open(segment, encoding="utf-8")  # noqa: SIM115 - the other process's shared lock
    fcntl.flock(held.fileno(), fcntl.LOCK_SH)

    # 3. another process re-ingesting the same turns (same refs) while the forget runs
    marker = tmp_path / "started"
    worker = _ingest_worker(fsettings, source, marker, rounds=6)
    deadline = time.time() + 120
    while not marker.exists() and time.time() < deadline and worker.poll() is None:
        time.sleep(0.2)
    assert marker.exists(), worker.stdout.read().decode() if worker.stdout else ""

    fmem.forget(session="s1")

    scripted.gate.set()  # the late LLM answer
    assert fmem.wait_for_analysis(60)
    out, _ = worker.communicate(timeout=300)
    assert worker.returncode == 0, out.decode()
    fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    held.close()
    fmem.replay_spool()  # the held segment, replayed after the forget
    fmem.flush()

    after = scan(fmem, driver, ns, [secret])
    assert after == dict.fromkeys(after, 0), after
    assert not segment.exists()  # replayed (its event dropped) and retired


def test_an_entity_forget_voids_other_sessions_windows_and_late_knowledge(fmem, scripted, ns, driver):
    who = person()
    fmem.turn(session="s1", role="user", text=f"I had lunch with {who} today", ref="1")
    # a job of another session in flight: its window names the person, its late answer too (no triple)
    scripted.gate = __import__("threading").Event()
    scripted.then(scripted.items({"type": "fact", "content": f"{who} prefers green tea", "confidence": 0.9}))
    for i in range(5):
        fmem.turn(session="s3", role="user", text=f"{who} told me about tea, part {i}", ref=f"t{i}")
    assert scripted.entered.wait(60)
    # a third session's window, queued (not full yet) when the forget runs
    fmem.turn(session="s2", role="user", text=f"{who} moved to a new flat", ref="w1")
    fmem.turn(session="s2", role="user", text="the weather is fine", ref="w2")
    scripted.then(scripted.items({"type": "fact", "content": f"{who} lives in a new flat", "confidence": 0.9}))

    result = fmem.forget(entity=who)
    assert result.counts["analysis"] == {"windows": 3}  # the queued windows of s1 (1 turn) and s2 (2)

    scripted.gate.set()  # the late answer of s3's job
    assert not any(fmem.analysis.buffer.flush(ns, s) for s in ("s1", "s2"))  # nothing left to analyse
    assert fmem.wait_for_analysis(60)
    fmem.flush()
    after = scan(fmem, driver, ns, [who])
    assert after == dict.fromkeys(after, 0), after
    assert len(scripted.requests) == 1  # the queued windows never reached the LLM

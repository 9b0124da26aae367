"""A writer whose graph write commits before the forget marks the session but whose vector upsert (the
turn's text is its Chroma document) lands after the forget deleted that id's vectors: the writer's
check after its upsert finds the id tombstoned and deletes the vector, so nothing of the forgotten
session stays in Chroma (no ``kgmem reindex`` needed)."""

from __future__ import annotations

import threading

import pytest

from kgmem import KGMem

from .conftest import canary, scan


@pytest.fixture
def fmem(fsettings, driver, embedder, graph):
    client = KGMem(fsettings, driver=driver, embedder=embedder)
    yield client
    client.close()


def test_a_vector_upserted_after_the_forget_does_not_stay(fmem, ns, driver, monkeypatch):
    secret = canary()
    fmem.turn(session="s1", role="user", text=f"the vault code is {secret}", ref="1")
    fmem.turn(session="s2", role="user", text="an unrelated turn", ref="1")
    fmem.flush()

    held, release = threading.Event(), threading.Event()
    upsert = fmem.vectors.upsert

    def held_upsert(*args, **kwargs):
        if threading.current_thread().name == "late-writer":  # its graph write is committed by now
            held.set()
            assert release.wait(120)
        return upsert(*args, **kwargs)

    monkeypatch.setattr(fmem.vectors, "upsert", held_upsert)
    failed: list[BaseException] = []

    def write() -> None:
        try:
            fmem.turn(session="s1", role="user", text=f"late: the vault code is {secret}", ref="late")
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failed.append(exc)

    writer = threading.Thread(target=write, name="late-writer", daemon=True)
    writer.start()
    assert held.wait(120)
    result = fmem.forget(session="s1")  # plans the writer's committed turn, deletes its (absent) vector
    assert result.counts["graph"]["Message"] == 2
    release.set()  # ... and only now does the writer's vector, with the text, reach Chroma
    writer.join(120)
    assert not writer.is_alive() and not failed, failed

    after = scan(fmem, driver, ns, [secret])
    assert after == dict.fromkeys(after, 0), after
    assert fmem.vectors.count(ns, "message") == 1  # the other session's turn

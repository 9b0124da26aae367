"""The checks where events enter skip hashing a text's word runs in a namespace without entity-name
tombstones — a client remembers what its last check saw. Another process's entity forget since must
still be caught: the check's own read says the namespace has a name tombstone now."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kgmem import KGMem
from kgmem.runner import run
from kgmem.tombstones import now_ms

from .conftest import client_env, person


@pytest.fixture
def fmem(fsettings, driver, embedder, graph):
    client = KGMem(fsettings, driver=driver, embedder=embedder)
    yield client
    client.close()


def _forget_elsewhere(settings, name: str) -> str:
    """``forget(entity=name)`` in another process (its own client: nothing of this one's memory)."""
    env = client_env(settings)
    code = f"from kgmem import KGMem\nwith KGMem() as mem:\n    print(mem.forget(entity={name!r}).counts)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_name_another_process_forgot_is_caught_by_a_client_that_had_seen_none(fmem, fsettings, ns):
    who = person()
    fmem.turn(session="s1", role="user", text=f"I met {who} at the market", ref="1")
    fmem.flush()
    screen, io = fmem.engines.replayer.screen, fmem.learning.io
    assert screen is not None
    spooled = {"session": "s2", "role": "user", "text": f"{who} called again", "ref": "x", "at_ms": now_ms()}
    other = {"session": "s2", "role": "user", "text": "the garden needs water", "ref": "y", "at_ms": now_ms()}

    assert run(screen(ns, "turn", [spooled, other]), io) == [spooled, other]
    assert fmem.engines.names.none_known(ns)  # from now on this client's checks hash no word run

    assert "Message" in _forget_elsewhere(fsettings, who)
    assert fmem.engines.names.none_known(ns)  # nothing told this client

    # its next check reads that the namespace has a name tombstone now, and drops the line naming him
    assert run(screen(ns, "turn", [spooled, other]), io) == [other]
    assert not fmem.engines.names.none_known(ns)

"""Helpers shared by the retrieval integration tests (BQAR overlays, feedback from other processes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# --import-mode=importlib leaves sys.path alone: the near-twin error texts (test_contradicted_links.py)
# are shared with the learning tests.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "learning"))


@pytest.fixture
def counts(driver):
    """``counts(item_id)`` → a Knowledge item's global usage counts (alpha, beta) as stored (None = never judged)."""

    def read(item_id):
        records, _, _ = driver.execute_query(
            "MATCH (n:Knowledge {id: $id}) RETURN n.alpha AS a, n.beta AS b", id=item_id
        )
        return records[0]["a"], records[0]["b"]

    return read


@pytest.fixture
def cli(settings):
    """``cli(*args)`` → the `kgmem` CLI run in-process (click's runner) on this test's namespace and Chroma:
    ``.exit_code``, ``.stdout``, ``.stderr``."""
    from click.testing import CliRunner

    from kgmem.cli import main

    env = {"KGMEM_NAMESPACE": settings.namespace, "KGMEM_CHROMA__PATH": str(settings.chroma.path)}
    return lambda *args: CliRunner().invoke(main, list(args), env=env)


@pytest.fixture
def run_cli(settings):
    """``run_cli(*args)`` → the `kgmem` CLI run in a second process on this test's namespace and Chroma
    (for tests about another process: feedback counted across processes)."""

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "KGMEM_NAMESPACE": settings.namespace,
            "KGMEM_CHROMA__PATH": str(settings.chroma.path),
        }
        return subprocess.run(
            [sys.executable, "-m", "kgmem.cli", *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT
        )

    return call

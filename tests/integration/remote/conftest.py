"""A Chroma server of the tests' own (``chroma run`` from the chromadb package; port
``KGMEM_TEST_CHROMA_PORT``, default 18800), started once per module and stopped afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from ports import free_ports  # type: ignore[import-not-found]  # noqa: E402


def _chroma_port() -> int:
    """``KGMEM_TEST_CHROMA_PORT`` (default 18800); a free port of its own under pytest-xdist, where each
    worker that runs these tests starts a server."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return free_ports(1)[0]
    return int(os.environ.get("KGMEM_TEST_CHROMA_PORT", "18800"))


def _chroma_exe() -> str:
    exe = Path(sys.executable).with_name("chroma")
    found = str(exe) if exe.is_file() else shutil.which("chroma")
    if not found:
        pytest.fail("the `chroma` command of the chromadb package is not installed")
    return found


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("chroma-server")
    port = _chroma_port()
    log = (data / "server.log").open("w")
    proc = subprocess.Popen(
        [_chroma_exe(), "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"chroma run exited: {(data / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("chroma run did not answer its heartbeat within 120 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()

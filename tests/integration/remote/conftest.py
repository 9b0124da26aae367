"""A Chroma server of the tests' own (``chroma run`` from the chromadb package, port 18800),
started once per module and stopped afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMA_PORT = int(os.environ.get("KGMEM_TEST_CHROMA_PORT", "18800"))


def _chroma_exe() -> str:
    exe = Path(sys.executable).with_name("chroma")
    found = str(exe) if exe.is_file() else shutil.which("chroma")
    if not found:
        pytest.fail("the `chroma` command of the chromadb package is not installed")
    return found


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("chroma-server")
    log = (data / "server.log").open("w")
    proc = subprocess.Popen(
        [_chroma_exe(), "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(CHROMA_PORT)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{CHROMA_PORT}"
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

"""One main Neo4j per pytest-xdist worker (``pytest -n N``; ``.ci/run`` runs two workers).

A Neo4j full-text (BM25) index keeps its term statistics over every namespace, so a worker's writes
change the keyword scores the other worker's test sees between two searches. Each worker therefore
talks to a server of its own: the first worker (``gw0``) keeps the session's server (``KGMEM_HOME`` as
given); every other worker gets a home of its own in the temp dir (``TMPDIR``; ``.ci/run`` removes it
and stops whatever runs from it), with

* the session home's Neo4j jars (one link per jar: tests/shared_jars.py) and model exports linked,
  not copied (no Maven download, no second ONNX export),
* a copy of its ``kgmem.toml`` (the same settings and password),
* two free ports (tests/ports.py), set as ``KGMEM_NEO4J__*`` in the worker's environment before any
  test module is imported, so every ``load_settings()`` and every child process a test starts sees them.

The worker starts its server in the background while it collects the tests (:func:`start`), the
``base_settings`` fixture waits for it, and the worker stops it when its session finishes (:func:`stop`).
The private fault-test servers (tests/private_neo4j.py) already take free ports per worker.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from kgmem.config import load_settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ports import free_ports  # type: ignore[import-not-found]  # noqa: E402
from shared_jars import link_jars  # type: ignore[import-not-found]  # noqa: E402

log = logging.getLogger(__name__)


def own_home(worker: str | None) -> Path | None:
    """Give xdist worker ``worker`` its own home and ports (see the module docstring) and return the home;
    None for the first worker and outside xdist, which use the session's server."""
    if not worker or worker == "gw0":
        return None
    base = load_settings()
    home = Path(tempfile.mkdtemp(prefix=f"kgmem-{worker}-"))  # mode 0700, as kgmem's homes are
    (home / "neo4j").mkdir(mode=0o700)
    link_jars(base.neo4j_home / "lib", home / "neo4j" / "lib")
    base.models_dir.mkdir(parents=True, exist_ok=True)  # an export either worker makes serves both
    (home / "models").symlink_to(base.models_dir, target_is_directory=True)
    if base.config_file.is_file():
        shutil.copy2(base.config_file, home / base.config_file.name)
    bolt, http = free_ports(2)
    os.environ.update(
        KGMEM_HOME=str(home),
        KGMEM_NEO4J__BOLT_PORT=str(bolt),
        KGMEM_NEO4J__HTTP_PORT=str(http),
        KGMEM_NEO4J__URI=f"bolt://127.0.0.1:{bolt}",
    )
    log.info("xdist worker %s: own Neo4j in %s on bolt %d", worker, home, bolt)
    return home


def start(home: Path) -> Future | None:
    """Start the server of ``home`` (``kgmem up``) in a background thread while the worker collects its
    tests; None (the ``base_settings`` fixture starts it when a test first needs it) when the session's
    Neo4j is not installed: a worker that runs unit tests only never installs or starts one."""
    from kgmem.server import LocalNeo4j

    if not (home / "neo4j" / "lib").exists():
        return None
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worker-neo4j")
    future = pool.submit(LocalNeo4j(load_settings(home=home)).up)
    pool.shutdown(wait=False)  # the start runs on; the fixture waits for its result
    return future


def stop(home: Path) -> None:
    """Stop the server of ``home`` (when it runs) and remove the home."""
    from kgmem.server import LocalNeo4j

    server = LocalNeo4j(load_settings(home=home))
    pid = server.status().pid
    try:
        server.down()
    finally:
        _wait_gone(pid)  # `down` returns once Bolt closes; the JVM still writes its checkpoint after that
        shutil.rmtree(home, ignore_errors=True)


def _wait_gone(pid: int | None, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while pid is not None and time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return  # gone (or no /proc: nothing to wait on)
        if state == "Z":
            return  # exited; its parent has not reaped it yet
        time.sleep(0.2)

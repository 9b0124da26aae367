"""An xdist worker past the first gets a Neo4j home and ports of its own (tests/worker_neo4j.py); ports
named in the environment are never handed out again (tests/ports.py)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ports  # type: ignore[import-not-found]  # noqa: E402
import worker_neo4j  # type: ignore[import-not-found]  # noqa: E402

ENV = ("KGMEM_HOME", "KGMEM_NEO4J__BOLT_PORT", "KGMEM_NEO4J__HTTP_PORT", "KGMEM_NEO4J__URI")


@pytest.fixture
def session_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A session home with Neo4j's jars installed and a config file; the worker's own home goes to tmp_path."""
    home = tmp_path / "session"
    (home / "neo4j" / "lib").mkdir(parents=True)
    for jar in ("neo4j-kernel-5.26.30.jar", "neo4j-browser-5.24.0.jar", ".kgmem-dist.json"):
        (home / "neo4j" / "lib" / jar).write_text(jar)
    (home / "kgmem.toml").write_text('[neo4j]\npassword = "pw"\n')
    for name in ENV + ports.RESERVED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KGMEM_HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return home


def test_first_worker_and_no_worker_keep_the_session_server(session_home: Path) -> None:
    assert worker_neo4j.own_home(None) is None
    assert worker_neo4j.own_home("gw0") is None
    assert os.environ["KGMEM_HOME"] == str(session_home)
    assert "KGMEM_NEO4J__BOLT_PORT" not in os.environ


def test_second_worker_gets_its_own_home_and_ports(session_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGMEM_TEST_PRIVATE_PORTS", "20001:20002")
    home = worker_neo4j.own_home("gw1")
    assert home is not None and home != session_home and home.name.startswith("kgmem-gw1-")
    lib, session_lib = home / "neo4j" / "lib", session_home / "neo4j" / "lib"
    assert not lib.is_symlink() and {p.name: p.resolve() for p in lib.iterdir()} == {
        p.name: p for p in session_lib.iterdir()
    }
    # `kgmem up` renames a copy over its Browser jar: the session's jar stays as it was
    (lib / "browser.tmp").write_text("guide of another namespace")
    os.replace(lib / "browser.tmp", lib / "neo4j-browser-5.24.0.jar")
    assert (session_lib / "neo4j-browser-5.24.0.jar").read_text() == "neo4j-browser-5.24.0.jar"
    assert (home / "models").resolve() == (session_home / "models").resolve()
    assert (home / "kgmem.toml").read_text() == (session_home / "kgmem.toml").read_text()
    bolt, http = int(os.environ["KGMEM_NEO4J__BOLT_PORT"]), int(os.environ["KGMEM_NEO4J__HTTP_PORT"])
    assert os.environ["KGMEM_HOME"] == str(home)
    assert os.environ["KGMEM_NEO4J__URI"] == f"bolt://127.0.0.1:{bolt}"
    assert bolt != http and not {bolt, http} & {20001, 20002}
    assert {bolt, http} <= ports.reserved()  # a port a test picks next is never the worker server's


def test_free_ports_skip_the_ports_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    low = ports.LOW
    monkeypatch.setattr(ports, "HIGH", low + 6)
    monkeypatch.setattr(ports, "is_free", lambda port: True)
    monkeypatch.setenv("KGMEM_NEO4J__BOLT_PORT", str(low))
    monkeypatch.setenv("KGMEM_TEST_PRIVATE_PORTS", f"{low + 1}:{low + 2}")
    monkeypatch.setenv("KGMEM_TEST_CHROMA_PORT", "")
    assert sorted(ports.free_ports(3)) == [low + 3, low + 4, low + 5]
    with pytest.raises(RuntimeError, match="fewer than 4 free ports"):
        ports.free_ports(4)

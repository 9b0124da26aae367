"""Clear errors when Maven Central is unreachable or the server cannot start."""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from kgmem.config import load_settings
from kgmem.errors import MavenUnreachable, ServerStartFailed
from kgmem.server import LocalNeo4j, local
from kgmem.server.install import ensure_installed
from kgmem.server.jar_lock import MavenSource

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from ports import free_ports  # type: ignore[import-not-found]  # noqa: E402

BOLT, HTTP = 18697, 18484


def test_unreachable_maven_central_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Maven reads settings and its local repository from user.home: point both at an
    # empty place whose only mirror is a closed local port (kgmem then leaves the install to Maven).
    fake_home = tmp_path / "user"
    (fake_home / ".m2").mkdir(parents=True)
    (fake_home / ".m2" / "settings.xml").write_text(
        "<settings><mirrors><mirror><id>dead</id><mirrorOf>*</mirrorOf>"
        "<url>http://127.0.0.1:9/maven2</url></mirror></mirrors></settings>"
    )
    monkeypatch.setenv("MAVEN_OPTS", f"-Duser.home={fake_home}")
    source = MavenSource(url="http://127.0.0.1:9/maven2", local_repository=fake_home / ".m2" / "repository")
    with pytest.raises(MavenUnreachable, match="Maven Central"):
        ensure_installed(tmp_path / "neo4j", "5.26.30", "5.24.0", source)
    assert not (tmp_path / "neo4j" / "lib").exists(), "a failed install leaves no half-written lib/"


def test_server_that_cannot_start_points_at_its_log(tmp_path: Path) -> None:
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", BOLT)) == 0:
            pytest.skip(f"port {BOLT} busy")
    # A heap far below what Neo4j needs makes the JVM/server exit during start-up.
    settings = load_settings(
        home=tmp_path, neo4j={"bolt_port": BOLT, "http_port": HTTP, "heap": "2m", "start_timeout_s": 60}
    )
    server = LocalNeo4j(settings)
    try:
        with pytest.raises(ServerStartFailed) as info:
            server.up()
        assert str(server.home / "logs") in str(info.value)
    finally:
        server.down()


def _processes_of(home: Path) -> list[int]:
    """The processes whose command line names ``home`` (the JVM has it in its class path)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(home) in cmdline.read_bytes().decode(errors="replace"):
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


def test_a_start_that_times_out_stops_the_server_it_launched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real start that does not finish within ``start_timeout_s`` fails naming the log, and stops the
    JVM it launched. The readiness probe never sees the Bolt port, so the start times out however fast
    the machine is: in the boot command (which waits for the server) or in the wait for Bolt after it."""
    bolt, http = free_ports(2)
    settings = load_settings(home=tmp_path, neo4j={"bolt_port": bolt, "http_port": http, "start_timeout_s": 15})
    server = LocalNeo4j(settings)
    monkeypatch.setattr(local, "_port_open", lambda port: False)
    running_when_stopped: list[int | None] = []
    stop_group = local._stop_group

    def spy(group: int, *args: float) -> None:
        running_when_stopped.append(server._pid())
        stop_group(group, *args)

    monkeypatch.setattr(local, "_stop_group", spy)
    try:
        with pytest.raises(ServerStartFailed) as info:
            server.up()
        assert str(server.log_file) in str(info.value)
        jvm = running_when_stopped[-1] if running_when_stopped else None
        assert jvm is not None, "no JVM was running when the start timed out: the test proved nothing"
        assert _processes_of(server.home) == [], "a process of the failed start is still running"
        assert not server.status().running
    finally:
        for pid in _processes_of(server.home):
            os.kill(pid, signal.SIGKILL)

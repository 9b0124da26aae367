"""Clear errors when Maven Central is unreachable or the server cannot start."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from kgmem.config import load_settings
from kgmem.errors import MavenUnreachable, ServerStartFailed
from kgmem.server import LocalNeo4j
from kgmem.server.install import ensure_installed

BOLT, HTTP = 18697, 18484


def test_unreachable_maven_central_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Maven reads settings and its local repository from user.home: point both at an
    # empty place whose only mirror is a closed local port.
    fake_home = tmp_path / "user"
    (fake_home / ".m2").mkdir(parents=True)
    (fake_home / ".m2" / "settings.xml").write_text(
        "<settings><mirrors><mirror><id>dead</id><mirrorOf>*</mirrorOf>"
        "<url>http://127.0.0.1:9/maven2</url></mirror></mirrors></settings>"
    )
    monkeypatch.setenv("MAVEN_OPTS", f"-Duser.home={fake_home}")
    with pytest.raises(MavenUnreachable, match="Maven Central"):
        ensure_installed(tmp_path / "neo4j", "5.26.30", "5.24.0")
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

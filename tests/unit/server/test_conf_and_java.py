from pathlib import Path

import pytest

from kgmem.config import Neo4jSettings
from kgmem.config_file import read_config, update_config
from kgmem.errors import JavaNotFound
from kgmem.server import java as java_mod
from kgmem.server.conf import render_conf


def test_conf_listens_on_loopback_with_configured_ports() -> None:
    text = render_conf(Neo4jSettings(bolt_port=17687, http_port=17474, heap="768m"))
    assert "server.bolt.listen_address=127.0.0.1:17687" in text
    assert "server.http.listen_address=127.0.0.1:17474" in text
    assert "server.default_listen_address=127.0.0.1" in text
    assert "server.memory.heap.max_size=768m" in text
    assert "0.0.0.0" not in text


@pytest.mark.parametrize(("heap", "limit"), [("1g", "512m"), ("4g", "2g"), ("768m", "384m"), ("3m", "1536k")])
def test_transaction_memory_is_half_the_heap(heap: str, limit: str) -> None:
    assert f"dbms.memory.transaction.total.max={limit}\n" in render_conf(Neo4jSettings(heap=heap))


@pytest.mark.parametrize(("version", "quiet"), [("5.26.30", True), ("5.1.0", True), ("2025.01.0", False)])
def test_bolt_stops_without_the_quiet_period_where_the_version_knows_the_setting(version: str, quiet: bool) -> None:
    text = render_conf(Neo4jSettings(version=version))
    assert ("internal.dbms.bolt.netty_server_shutdown_quiet_period=0\n" in text) is quiet


def test_config_file_is_private_and_merges(tmp_path: Path) -> None:
    path = tmp_path / "kgmem.toml"
    update_config(path, "neo4j", {"password": "p1"})
    update_config(path, "neo4j", {"bolt_port": 1})
    update_config(path, "chroma", {"url": "http://x"})
    assert read_config(path) == {"neo4j": {"password": "p1", "bolt_port": 1}, "chroma": {"url": "http://x"}}
    assert path.stat().st_mode & 0o777 == 0o600


def test_old_java_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "java"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(JavaNotFound, match="Java 11"):
        java_mod.check_java()


def test_missing_java_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(JavaNotFound, match="none was found"):
        java_mod.check_java()

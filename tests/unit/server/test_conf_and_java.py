from pathlib import Path

import pytest

from kgmem.config import Neo4jSettings, load_settings
from kgmem.config_file import read_config, update_config
from kgmem.errors import ConfigError, JavaNotFound
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


def test_extra_conf_lines_follow_kgmem_s_own() -> None:
    text = render_conf(
        Neo4jSettings(extra_conf={"dbms.cypher.min_replan_interval": "1h", "db.logs.query.enabled": "OFF"})
    )
    assert text.endswith("dbms.cypher.min_replan_interval=1h\ndb.logs.query.enabled=OFF\n")


def test_extra_conf_cannot_take_a_setting_kgmem_writes() -> None:
    cfg = Neo4jSettings(extra_conf={"server.bolt.listen_address": "0.0.0.0:7687"})
    with pytest.raises(ConfigError, match="server.bolt.listen_address, which kgmem writes itself"):
        render_conf(cfg)


@pytest.mark.parametrize(
    ("extra", "named"),
    [({"Not A Key": "1"}, "not a neo4j.conf setting name"), ({"dbms.x": "1\nserver.y=2"}, "spans lines")],
)
def test_extra_conf_that_is_not_one_conf_line_is_refused(extra: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        load_settings(neo4j={"extra_conf": extra})


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

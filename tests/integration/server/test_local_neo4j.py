"""The local Neo4j lifecycle, on a private second server (own home, two free ports: tests/ports.py) so
the shared test server is never disturbed. `kgmem up` / `status` / `down` run as the separate processes
a user starts: whether a second process finds the first one's server is the point."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import neo4j
import pytest

from kgmem.config import Settings, load_settings
from kgmem.config_file import read_config, update_config
from kgmem.server import LocalNeo4j

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from ports import free_ports  # type: ignore[import-not-found]  # noqa: E402

BOLT, HTTP = free_ports(2)
pytestmark = pytest.mark.slow  # starts and stops a server of its own


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture(scope="module")
def private_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A home whose kgmem.toml names the two ports, as `kgmem up --bolt-port/--http-port` leaves it: every
    CLI process (which gets only KGMEM_HOME) uses them, whichever test runs first (or alone, under xdist)."""
    home = tmp_path_factory.mktemp("kgmem-home")
    ports = {"bolt_port": BOLT, "http_port": HTTP, "uri": f"bolt://127.0.0.1:{BOLT}"}
    update_config(home / "kgmem.toml", "neo4j", {**ports, "extra_conf": {"db.transaction.timeout": "42s"}})
    return load_settings(home=home, neo4j=ports)


def _cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"KGMEM_HOME": str(settings.home), "PATH": __import__("os").environ["PATH"]}
    return subprocess.run(
        [sys.executable, "-m", "kgmem.cli", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_up_twice_is_one_server_then_down_frees_the_port(private_settings: Settings) -> None:
    if not (_free(BOLT) and _free(HTTP)):
        pytest.skip(f"ports {BOLT}/{HTTP} busy on this machine")
    server = LocalNeo4j(private_settings)
    try:
        first = server.up()
        assert first.running and not first.reused and first.pid
        # password generated, stored 0600, never the default
        cfg_file = Path(first.config_file)
        assert cfg_file.stat().st_mode & 0o777 == 0o600
        password = read_config(cfg_file)["neo4j"]["password"]
        assert password and password != "neo4j"
        assert password not in (Path(first.home) / "logs" / "neo4j.log").read_text(errors="replace")
        # [neo4j.extra_conf] of kgmem.toml reaches the server
        with neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{BOLT}", auth=("neo4j", password)) as drv:
            rows, _, _ = drv.execute_query(
                "SHOW SETTINGS YIELD name, value WHERE name = $name RETURN value", name="db.transaction.timeout"
            )
        assert [r["value"] for r in rows] == ["42s"]

        second = _cli(private_settings, "up")
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stdout and str(first.pid) in second.stdout
        assert password not in second.stdout + second.stderr

        status = _cli(private_settings, "status")
        assert f"bolt://127.0.0.1:{BOLT}" in status.stdout and f"http://127.0.0.1:{HTTP}/browser/" in status.stdout
        assert "5.26" in status.stdout and str(first.pid) in status.stdout

        page = urllib.request.urlopen(f"http://127.0.0.1:{HTTP}/browser/", timeout=10).read().decode()
        assert "<title>Neo4j Browser</title>" in page
    finally:
        down = _cli(private_settings, "down")
    assert down.returncode == 0 and "stopped" in down.stdout
    assert _free(BOLT)
    assert not LocalNeo4j(private_settings).status().running


def test_up_with_bolt_port_taken_fails_clearly(private_settings: Settings) -> None:
    with socket.socket() as blocker:
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            blocker.bind(("127.0.0.1", BOLT))
        except OSError:
            pytest.skip(f"port {BOLT} busy on this machine")
        blocker.listen(1)
        result = _cli(private_settings, "up")
    assert result.returncode != 0
    assert f"port {BOLT}" in result.stderr and "already in use" in result.stderr
    assert "Traceback" not in result.stderr

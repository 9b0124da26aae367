"""Manage kgmem's local Neo4j: install from Maven Central, configure, start, stop, report status.

The server is Neo4j's own boot class (``org.neo4j.server.startup.Neo4jCommand``,
what the tarball's ``bin/neo4j`` wraps) run from the jars Maven resolved, with
``NEO4J_HOME=$KGMEM_HOME/neo4j``. It writes its pid to ``run/neo4j.pid`` and its
logs to ``logs/``. The initial password is generated on first start, set over
Bolt (never on a command line) and stored in ``$KGMEM_HOME/kgmem.toml`` (0600).
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import neo4j
from neo4j.exceptions import AuthError, ServiceUnavailable

from kgmem import cypher
from kgmem.config import Settings
from kgmem.config_file import read_config, update_config
from kgmem.errors import PortInUse, ServerError, ServerStartFailed
from kgmem.paths import private_dir
from kgmem.server.conf import render_conf
from kgmem.server.install import ensure_installed, installed_version
from kgmem.server.java import check_java

log = logging.getLogger(__name__)

BOOT_CLASS = "org.neo4j.server.startup.Neo4jCommand"
DEFAULT_PASSWORD = "neo4j"


@dataclass(frozen=True)
class ServerStatus:
    """What `kgmem status` prints."""

    running: bool
    pid: int | None
    version: str | None
    bolt_port: int
    http_port: int
    home: str
    bolt_uri: str
    browser_url: str
    log_file: str
    config_file: str
    reused: bool = False
    start_seconds: float | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class LocalNeo4j:
    """The local server described by ``settings`` (its home is ``settings.neo4j_home``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cfg = settings.neo4j
        self.home = settings.neo4j_home

    # -- public --------------------------------------------------------------------
    def up(self) -> ServerStatus:
        """Install if needed, start unless running, wait for Bolt, set the initial password."""
        java, _ = check_java()
        private_dir(self.settings.home)  # the store, its logs and the password file: not for other users
        private_dir(self.home)
        current = self.status()
        if current.running and _port_open(self.cfg.bolt_port):
            self._ensure_password()
            return replace(current, reused=True)
        for port in (self.cfg.bolt_port, self.cfg.http_port):
            if _port_open(port):
                raise PortInUse(
                    f"port {port} on 127.0.0.1 is already in use by another process; stop it or choose other "
                    "ports (KGMEM_NEO4J__BOLT_PORT / KGMEM_NEO4J__HTTP_PORT, or `kgmem up --bolt-port/--http-port`)"
                )
        ensure_installed(self.home, self.cfg.version, self.cfg.browser_version)
        self._write_conf()
        started = time.monotonic()
        self._boot(java, "start", timeout=self.cfg.start_timeout_s)  # a loaded machine boots slowly
        try:
            self._wait_for_bolt(started)
            self._ensure_password()
        except ServerStartFailed:
            self._stop_unfinished_start()
            raise
        elapsed = time.monotonic() - started
        log.info("Neo4j %s started in %.1f s", self.cfg.version, elapsed)
        return replace(self.status(), start_seconds=round(elapsed, 2))

    def down(self) -> bool:
        """Stop the server cleanly. Returns False when it was not running."""
        if self._pid() is None:
            return False
        java, _ = check_java()
        self._boot(java, "stop", timeout=180)
        deadline = time.monotonic() + 30
        while _port_open(self.cfg.bolt_port) and time.monotonic() < deadline:
            time.sleep(0.2)
        return True

    def status(self) -> ServerStatus:
        """Current state, from the pid file and the process table (no Java start-up)."""
        pid = self._pid()
        dist = installed_version(self.home)
        return ServerStatus(
            running=pid is not None,
            pid=pid,
            version=dist["neo4j"] if dist else None,
            bolt_port=self.cfg.bolt_port,
            http_port=self.cfg.http_port,
            home=str(self.home),
            bolt_uri=f"bolt://127.0.0.1:{self.cfg.bolt_port}",
            browser_url=f"http://127.0.0.1:{self.cfg.http_port}/browser/",
            log_file=str(self.log_file),
            config_file=str(self.settings.config_file),
        )

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "neo4j.log"

    # -- internals -----------------------------------------------------------------
    def _write_conf(self) -> None:
        for sub in ("conf", "data", "logs", "run", "plugins", "import"):
            private_dir(self.home / sub)
        (self.home / "conf" / "neo4j.conf").write_text(render_conf(self.cfg, self._browser_conf_lines()))

    def _browser_conf_lines(self) -> list[str]:
        """Browser style + guide for analysts, when the reports package provides them."""
        try:
            from kgmem.reports.browser import install_browser_assets
        except ImportError:
            return []
        return install_browser_assets(self.home, self.cfg.http_port, namespace=self.settings.namespace)

    def _boot(self, java: Path, command: str, timeout: float = 120) -> str:
        """Run the boot class's ``command`` in a session of its own: the server ``start`` launches is then
        in a process group of its own, which a failed start can stop without touching the caller's."""
        env = child_env(os.environ, NEO4J_HOME=str(self.home), NEO4J_CONF=str(self.home / "conf"))
        with subprocess.Popen(
            [str(java), "-cp", str(self.home / "lib" / "*"), BOOT_CLASS, command],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        ) as proc:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _stop_group(proc.pid)  # the launcher, and the server if it got as far as starting one
                proc.communicate()
                raise ServerStartFailed(
                    f"`neo4j {command}` did not finish within {timeout:g} s (stopped); see {self.log_file}"
                ) from None
        out = (stdout + stderr).strip()
        if proc.returncode != 0:
            raise ServerStartFailed(
                f"`neo4j {command}` failed (exit {proc.returncode}): {out[-800:]}\nsee {self.log_file}"
            )
        return out

    def _stop_unfinished_start(self) -> None:
        """Stop the server this ``up`` launched that did not become ready (and its process group)."""
        pid = self._pid()
        if pid is None:
            return
        group = os.getpgid(pid)
        log.warning("stopping the Neo4j (pid %d) that did not finish starting; its log: %s", pid, self.log_file)
        if group == os.getpgrp():  # never the caller's own group (cannot happen: _boot starts a new session)
            os.kill(pid, signal.SIGKILL)
        else:
            _stop_group(group)

    def _pid(self) -> int | None:
        pid_file = self.home / "run" / "neo4j.pid"
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        # A stale pid file may name an unrelated process: make sure it is our Neo4j.
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            return pid
        return pid if str(self.home) in cmdline else None

    def _wait_for_bolt(self, started: float) -> None:
        deadline = started + self.cfg.start_timeout_s
        while time.monotonic() < deadline:
            if self._pid() is None and time.monotonic() - started > 3:
                raise ServerStartFailed(f"Neo4j exited during start-up; see {self.log_file}\n{_tail(self.log_file)}")
            if _port_open(self.cfg.bolt_port):
                return
            time.sleep(0.25)
        raise ServerStartFailed(
            f"Neo4j did not open Bolt port {self.cfg.bolt_port} within {self.cfg.start_timeout_s:.0f} s; "
            f"see {self.log_file}\n{_tail(self.log_file)}"
        )

    def _ensure_password(self) -> None:
        """Generate and set the initial password once; later starts just check the stored one works."""
        stored = read_config(self.settings.config_file).get("neo4j", {}).get("password")
        configured = self.cfg.password.get_secret_value() if self.cfg.password else None
        password = configured or stored
        uri = f"bolt://127.0.0.1:{self.cfg.bolt_port}"
        if password and self._auth_works(uri, password):
            if not stored and not configured:
                update_config(self.settings.config_file, "neo4j", {"password": password})
            return
        if not self._auth_works(uri, DEFAULT_PASSWORD):
            raise ServerError(
                f"cannot log in to the local Neo4j: the password in {self.settings.config_file} does not match and "
                f"the server no longer accepts its default one. To reset, run `kgmem down` and delete "
                f"{self.home / 'data' / 'dbms'}"
            )
        new = password or secrets.token_urlsafe(24)
        with neo4j.GraphDatabase.driver(uri, auth=(self.cfg.user, DEFAULT_PASSWORD)) as drv:
            drv.execute_query(
                cypher.load("server/set_initial_password"), old=DEFAULT_PASSWORD, new=new, database_="system"
            )
        values = {"password": new, "uri": uri, "bolt_port": self.cfg.bolt_port, "http_port": self.cfg.http_port}
        update_config(self.settings.config_file, "neo4j", values)
        log.info("initial Neo4j password set and stored in %s (mode 0600)", self.settings.config_file)

    def _auth_works(self, uri: str, password: str) -> bool:
        """True when Bolt accepts ``password`` (an expired default password counts as accepted)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                with neo4j.GraphDatabase.driver(uri, auth=(self.cfg.user, password)) as drv:
                    return drv.verify_authentication()
            except AuthError:
                return False
            except (ServiceUnavailable, OSError) as exc:
                if time.monotonic() > deadline:
                    raise ServerStartFailed(
                        f"Neo4j opened its port but does not answer Bolt; see {self.log_file}"
                    ) from exc
                time.sleep(0.5)


# What the Neo4j JVM may see of our environment. Everything else (ANTHROPIC_API_KEY,
# KGMEM_NEO4J__PASSWORD, cloud tokens, NEO4J_AUTH ...) stays in this process: the server neither
# needs nor should hold the client's secrets (they would show in its /proc/<pid>/environ).
CHILD_ENV_ALLOWED = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "JAVA_HOME")


def is_local(settings: Settings) -> bool:
    """True when ``settings.neo4j.uri`` is the server `kgmem up` manages (loopback, its bolt port)."""
    uri = settings.neo4j.uri
    return uri.split("://", 1)[1].split(":")[0] in ("127.0.0.1", "localhost") and (
        uri.rsplit(":", 1)[-1] == str(settings.neo4j.bolt_port)
    )


def child_env(environ: os._Environ[str] | dict[str, str], **extra: str) -> dict[str, str]:
    """The allow-listed part of ``environ`` (plus ``LC_*`` locale variables) and ``extra``."""
    env = {k: v for k, v in environ.items() if k in CHILD_ENV_ALLOWED or k.startswith("LC_")}
    env.update(extra)
    return env


def _port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def _stop_group(group: int, grace_s: float = 30.0) -> None:
    """Stop process group ``group``: SIGTERM (a JVM shuts down cleanly), SIGKILL after ``grace_s``."""
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while _group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _group_alive(group: int) -> bool:
    """True while a process of ``group`` runs (zombies, waiting for their parent, do not count)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            state, _, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]  # after "pid (comm)"
        except (OSError, IndexError, ValueError):
            continue
        if int(pgrp) == group and state != "Z":
            return True
    return False


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log written)"

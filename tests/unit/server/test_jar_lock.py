"""The locked Neo4j jars: the lock file, the parallel fetch from a Maven repository (a real HTTP server on
loopback), the local repository as cache, and the fall-back to Maven."""

from __future__ import annotations

import hashlib
import shutil
import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kgmem.config import Neo4jSettings
from kgmem.errors import ServerError
from kgmem.server import install, jar_lock
from kgmem.server.jar_lock import JarFetchFailed, LockedJar, MavenSource, fetch_locked, read_lock

JARS = {
    "org/example/core/1.0/core-1.0.jar": b"core bytes",
    "org/example/extra/2.1/extra-2.1-linux.jar": b"native bytes",
    "com/other/tool/3/tool-3.jar": b"tool bytes" * 1000,
}


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def _locked() -> list[LockedJar]:
    return [LockedJar(path=p, sha1=_sha1(data)) for p, data in JARS.items()]


class _Repo:
    """A Maven repository served over HTTP on loopback; ``requests`` counts the paths asked for, and each
    answer waits ``delay_s``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[str] = []
        self.delay_s = 0.0
        repo = self

        class Handler(SimpleHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                repo.requests.append(self.path)
                time.sleep(repo.delay_s)
                super().do_GET()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/maven2"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.01,), daemon=True)

    def put(self, path: str, data: bytes) -> None:
        target = self.root / "maven2" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[_Repo]:
    served = _Repo(tmp_path / "remote")
    for path, data in JARS.items():
        served.put(path, data)
    served.thread.start()
    yield served
    served.server.shutdown()
    served.server.server_close()


def test_the_default_versions_have_a_lock_whose_jars_have_distinct_names() -> None:
    defaults = Neo4jSettings()
    jars = jar_lock.locked_jars(defaults.version, defaults.browser_version)
    assert jars, f"no jar lock for Neo4j {defaults.version}: run scripts/lock_neo4j_jars.py"
    names = [jar.name for jar in jars]
    assert len(set(names)) == len(names), "two jars would be copied onto one file name in lib/"
    assert any(name == f"neo4j-{defaults.version}.jar" for name in names)
    assert any(name == f"neo4j-browser-{defaults.browser_version}.jar" for name in names)


def test_a_malformed_lock_line_is_named(tmp_path: Path) -> None:
    lock = tmp_path / "lock.txt"
    lock.write_text(f"# comment\n{'a' * 40}  org/x/1/x-1.jar\nnot-a-sha  ../../etc/passwd\n")
    with pytest.raises(ServerError, match=r"lock.txt:3: expected"):
        read_lock(lock)


def test_locked_jars_are_fetched_into_staging_and_the_local_repository(tmp_path: Path, repo: _Repo) -> None:
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    fetch_locked(_locked(), tmp_path / "staging", source)
    for path, data in JARS.items():
        assert (tmp_path / "staging" / path.rsplit("/", 1)[-1]).read_bytes() == data
        assert (source.local / path).read_bytes() == data
    assert sorted(repo.requests) == sorted(f"/maven2/{p}" for p in JARS)
    assert not list(source.local.rglob(".*")), "a partial download was left in the local repository"


def test_a_second_install_takes_the_jars_from_the_local_repository(tmp_path: Path, repo: _Repo) -> None:
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    fetch_locked(_locked(), tmp_path / "first", source)
    repo.requests.clear()
    fetch_locked(_locked(), tmp_path / "second", source)
    assert repo.requests == []
    assert sorted(p.name for p in (tmp_path / "second").iterdir()) == sorted(p.rsplit("/", 1)[-1] for p in JARS)


def test_a_local_copy_that_does_not_match_its_sha1_is_downloaded_again(tmp_path: Path, repo: _Repo) -> None:
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    stale = source.local / "org/example/core/1.0/core-1.0.jar"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"truncated")
    fetch_locked(_locked(), tmp_path / "staging", source)
    assert stale.read_bytes() == JARS["org/example/core/1.0/core-1.0.jar"]
    assert "/maven2/org/example/core/1.0/core-1.0.jar" in repo.requests


def test_a_jar_that_does_not_match_the_lock_fails_and_is_not_cached(tmp_path: Path, repo: _Repo) -> None:
    repo.put("com/other/tool/3/tool-3.jar", b"tampered")
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    with pytest.raises(JarFetchFailed, match=r"tool-3\.jar does not match the SHA-1"):
        fetch_locked(_locked(), tmp_path / "staging", source)
    assert not (source.local / "com/other/tool/3/tool-3.jar").exists()
    assert not list(source.local.rglob(".*")), "a partial download was left in the local repository"


def test_a_missing_jar_fails_naming_its_url(tmp_path: Path, repo: _Repo) -> None:
    (repo.root / "maven2" / "org/example/core/1.0/core-1.0.jar").unlink()
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    with pytest.raises(JarFetchFailed, match=r"could not download http://127\.0\.0\.1:\d+/maven2/org/example/core"):
        fetch_locked(_locked(), tmp_path / "staging", source)


def test_the_first_failure_stops_the_fetches_not_yet_started(tmp_path: Path, repo: _Repo) -> None:
    many = [LockedJar(path=f"org/many/j{i}/1/j{i}-1.jar", sha1=_sha1(b"x")) for i in range(64)]
    for jar in many[1:]:
        repo.put(jar.path, b"x")  # the first is missing: its 404 comes first
    repo.delay_s = 0.05
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    with pytest.raises(JarFetchFailed, match="j0-1.jar"):
        fetch_locked(many, tmp_path / "staging", source)
    assert len(repo.requests) < len(many), "every jar was still fetched after the first failed"


@pytest.fixture
def fake_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A lock for made-up versions 9.9.9 + 8.8.8 listing the test jars."""
    locks = tmp_path / "locks"
    locks.mkdir()
    monkeypatch.setattr(jar_lock, "LOCKS", locks)
    jar_lock.lock_path("9.9.9", "8.8.8").write_text("".join(f"{j.sha1}  {j.path}\n" for j in _locked()))
    return "9.9.9", "8.8.8"


def test_ensure_installed_uses_the_lock_without_maven(
    tmp_path: Path, repo: _Repo, fake_lock: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(install.shutil, "which", lambda name: None)  # Maven is not needed
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    assert install.ensure_installed(tmp_path / "neo4j", *fake_lock, source=source)
    lib = tmp_path / "neo4j" / "lib"
    assert sorted(p.name for p in lib.iterdir() if p.suffix == ".jar") == sorted(p.rsplit("/", 1)[-1] for p in JARS)
    assert install.installed_version(tmp_path / "neo4j") == {"neo4j": "9.9.9", "browser": "8.8.8"}
    assert not install.ensure_installed(tmp_path / "neo4j", *fake_lock, source=source), "installed twice"


def test_a_failed_fetch_falls_back_to_maven_and_leaves_no_lib(
    tmp_path: Path, repo: _Repo, fake_lock: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.rmtree(repo.root / "maven2" / "com")
    monkeypatch.setattr(install.shutil, "which", lambda name: None)
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    with pytest.raises(ServerError, match=r"Maven \(`mvn`\) is required"):
        install.ensure_installed(tmp_path / "neo4j", *fake_lock, source=source)
    assert not (tmp_path / "neo4j" / "lib").exists()
    assert not (tmp_path / "neo4j" / "lib.staging").exists()


def test_maven_settings_beside_the_local_repository_leave_the_install_to_maven(
    tmp_path: Path, repo: _Repo, fake_lock: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "m2").mkdir()
    (tmp_path / "m2" / "settings.xml").write_text("<settings><mirrors/></settings>")
    monkeypatch.setattr(install.shutil, "which", lambda name: None)
    source = MavenSource(url=repo.url, local_repository=tmp_path / "m2" / "repository")
    with pytest.raises(ServerError, match=r"Maven \(`mvn`\) is required"):
        install.ensure_installed(tmp_path / "neo4j", *fake_lock, source=source)
    assert repo.requests == [], "the lock was fetched past the user's Maven settings"

"""Fetch a locked set of Neo4j jars from a Maven repository in parallel, checked against their SHA-1s.

Maven resolves Neo4j's dependency tree one POM at a time: about 580 requests before the first jar, over
a minute on a fresh machine. The jars themselves (about 215, 137 MB) come in seconds when fetched side by
side. A lock file (``locks/neo4j-<version>_browser-<version>.txt``, written from a Maven resolution by
``scripts/lock_neo4j_jars.py``) lists each jar's repository path and SHA-1, so ``kgmem up`` can skip the
resolution for the versions kgmem ships a lock for. Fetched jars go into the local Maven repository as
Maven lays it out, so Maven and the next install find them there.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pwd
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from kgmem.errors import ServerError

log = logging.getLogger(__name__)

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
LOCKS = Path(__file__).resolve().parent / "locks"
_PARALLEL = 8
_TIMEOUT_S = 30.0


class JarFetchFailed(ServerError):
    """A locked jar could not be fetched or did not match its SHA-1 (the caller falls back to Maven)."""


@dataclass(frozen=True)
class LockedJar:
    """One jar: its path in a Maven repository (``org/neo4j/neo4j/5.26.30/neo4j-5.26.30.jar``) and SHA-1."""

    path: str
    sha1: str

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class MavenSource:
    """Where jars come from: a remote repository and the local repository Maven caches them in."""

    url: str = MAVEN_CENTRAL
    local_repository: Path | None = None  # None: Maven's default, ~/.m2/repository

    @property
    def local(self) -> Path:
        # Java takes user.home from the password database, not $HOME: use the home Maven uses.
        return self.local_repository or Path(pwd.getpwuid(os.getuid()).pw_dir) / ".m2" / "repository"

    def routed_elsewhere(self) -> bool:
        """True when the user's Maven settings may route downloads (a mirror, a proxy, another local
        repository): then Maven, which reads them, does the install."""
        return (self.local.parent / "settings.xml").is_file()


def lock_path(version: str, browser_version: str) -> Path:
    return LOCKS / f"neo4j-{version}_browser-{browser_version}.txt"


def read_lock(path: Path) -> list[LockedJar]:
    """The jars a lock file lists (``<sha1>  <repository path>`` per line, ``#`` comments)."""
    jars = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or len(parts[0]) != 40 or not parts[1].endswith(".jar") or ".." in parts[1]:
            raise ServerError(f"{path}:{number}: expected '<sha1>  <repository path of a jar>', got {line!r}")
        jars.append(LockedJar(path=parts[1], sha1=parts[0].lower()))
    return jars


def locked_jars(version: str, browser_version: str) -> list[LockedJar] | None:
    """The locked jars of these versions, or None when kgmem ships no lock for them."""
    path = lock_path(version, browser_version)
    return read_lock(path) if path.is_file() else None


def _sha1(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, lambda: hashlib.sha1(usedforsecurity=False)).hexdigest()


def _fetch_one(jar: LockedJar, source: MavenSource) -> Path:
    """The jar in the local repository, downloaded there first unless a copy with its SHA-1 is there."""
    target = source.local / jar.path
    if target.is_file() and _sha1(target) == jar.sha1:
        return target
    url = f"{source.url.rstrip('/')}/{jar.path}"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{jar.name}.", delete=False) as tmp:
        part = Path(tmp.name)
        try:
            with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response:  # noqa: S310 - https from the lock
                shutil.copyfileobj(response, tmp, 1 << 20)
        except (urllib.error.URLError, OSError) as exc:
            part.unlink(missing_ok=True)
            raise JarFetchFailed(f"could not download {url}: {exc}") from exc
    if _sha1(part) != jar.sha1:
        part.unlink(missing_ok=True)
        raise JarFetchFailed(f"{url} does not match the SHA-1 in the lock ({jar.sha1})")
    part.replace(target)  # atomic: a reader never sees half a jar
    return target


def fetch_locked(jars: list[LockedJar], staging: Path, source: MavenSource) -> None:
    """Copy every locked jar into ``staging``, fetching those the local repository lacks in parallel.
    Raises :class:`JarFetchFailed` naming the first jar that could not be had."""
    staging.mkdir(parents=True, exist_ok=True)
    missing = [jar for jar in jars if not (source.local / jar.path).is_file()]
    if missing:
        log.info("downloading %d of %d Neo4j jars from %s", len(missing), len(jars), source.url)
    with ThreadPoolExecutor(_PARALLEL) as pool:
        # map's results come in order; the first failure ends the loop and cancels the fetches not yet
        # started (each would wait out its own timeout on an unreachable network).
        for jar, local in zip(jars, pool.map(lambda j: _fetch_one(j, source), jars), strict=True):
            shutil.copyfile(local, staging / jar.name)


def write_lock(version: str, browser_version: str, pom: str, out: Path) -> int:
    """Resolve ``pom`` with Maven and write its runtime jars' lock to ``out``; returns the jar count."""
    with tempfile.TemporaryDirectory() as build:
        (Path(build) / "pom.xml").write_text(pom)
        listing = Path(build) / "list.txt"
        subprocess.run(
            [
                "mvn",
                "-B",
                "-q",
                "-f",
                f"{build}/pom.xml",
                "dependency:list",
                "-DincludeScope=runtime",
                f"-DoutputFile={listing}",
                "-DoutputAbsoluteArtifactFilename=true",
            ],
            check=True,
        )
        local = MavenSource().local
        files = sorted(
            {Path(line.rsplit(":", 1)[-1].strip()) for line in listing.read_text().splitlines() if ".jar" in line}
        )
    lines = [f"{_sha1(f)}  {f.relative_to(local).as_posix()}" for f in files]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        f"# Neo4j {version} + Browser {browser_version}: the runtime jars Maven resolves for kgmem's install,\n"
        "# as '<sha1>  <path in a Maven repository>'. Written by `scripts/lock_neo4j_jars.py VERSION BROWSER`.\n"
        + "\n".join(lines)
        + "\n"
    )
    return len(lines)

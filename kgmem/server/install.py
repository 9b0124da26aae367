"""Install Neo4j community server + Neo4j Browser jars from Maven Central into ``<neo4j_home>/lib``.

For the versions kgmem ships a lock for (jar_lock.py), the locked jars are fetched in parallel; otherwise,
or when that fails, or when the user's ``~/.m2/settings.xml`` may route Maven elsewhere, Maven resolves
the dependency tree. Both cache in ``~/.m2``, so a reinstall (or a second home) takes seconds.
``scripts/lock_neo4j_jars.py VERSION BROWSER_VERSION`` writes the lock of other versions with Maven.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from pathlib import Path

from kgmem.errors import MavenUnreachable, ServerError
from kgmem.server.jar_lock import JarFetchFailed, MavenSource, fetch_locked, locked_jars

log = logging.getLogger(__name__)

MARKER = ".kgmem-dist.json"

# neo4j-server declares a test-only artifact that is not published; the `org.neo4j:neo4j`
# artifact carries the boot classes (Neo4jCommand, CommunityEntryPoint).
_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kgmem.local</groupId><artifactId>neo4j-dist</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j</groupId><artifactId>neo4j</artifactId><version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.neo4j.app</groupId><artifactId>neo4j-server</artifactId><version>{version}</version>
      <exclusions>
        <exclusion><groupId>org.neo4j</groupId><artifactId>log-test-utils</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency>
      <groupId>org.neo4j.client</groupId><artifactId>neo4j-browser</artifactId><version>{browser}</version>
    </dependency>
  </dependencies>
</project>
"""

_NETWORK_HINTS = (
    "Could not transfer",
    "UnknownHostException",
    "Connection refused",
    "Connect to repo",
    "timed out",
    "Network is unreachable",
    "Could not resolve",
    "Failed to read artifact descriptor",
    "No plugin found for prefix",  # a fresh ~/.m2 cannot even fetch the dependency plugin
)


def installed_version(neo4j_home: Path) -> dict[str, str] | None:
    """The versions installed in ``neo4j_home``, or None."""
    marker = neo4j_home / "lib" / MARKER
    if not marker.is_file():
        return None
    return json.loads(marker.read_text())


def pom(version: str, browser_version: str) -> str:
    """The POM whose runtime dependencies are the server and the Browser."""
    return _POM.format(version=version, browser=browser_version)


def ensure_installed(neo4j_home: Path, version: str, browser_version: str, source: MavenSource | None = None) -> bool:
    """Install the jars unless this exact version is there. Returns True when it installed.
    ``source``: where jars come from (Maven Central and ``~/.m2/repository`` by default)."""
    wanted = {"neo4j": version, "browser": browser_version}
    if installed_version(neo4j_home) == wanted:
        return False
    source = source or MavenSource()
    staging = neo4j_home / "lib.staging"
    shutil.rmtree(staging, ignore_errors=True)
    log.info("installing Neo4j %s + Browser %s from Maven Central into %s", version, browser_version, neo4j_home)
    if not _fetch_locked(version, browser_version, staging, source):
        shutil.rmtree(staging, ignore_errors=True)
        _resolve_with_maven(neo4j_home, version, browser_version, staging)
    (staging / MARKER).write_text(json.dumps(wanted))
    lib = neo4j_home / "lib"
    old = neo4j_home / "lib.old"
    shutil.rmtree(old, ignore_errors=True)
    if lib.exists():
        lib.rename(old)
    staging.rename(lib)
    shutil.rmtree(old, ignore_errors=True)
    return True


def _fetch_locked(version: str, browser_version: str, staging: Path, source: MavenSource) -> bool:
    """The locked jars into ``staging``; False when there is no lock, Maven settings may route elsewhere,
    or a jar could not be had (Maven then installs, and its error is the one the user sees)."""
    jars = locked_jars(version, browser_version)
    if jars is None or source.routed_elsewhere():
        return False
    try:
        fetch_locked(jars, staging, source)
    except JarFetchFailed as exc:
        log.warning("fetching the locked Neo4j jars failed (%s); resolving them with Maven instead", exc)
        return False
    return True


def _resolve_with_maven(neo4j_home: Path, version: str, browser_version: str, staging: Path) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError("Maven (`mvn`) is required to install Neo4j from Maven Central and was not found on PATH")
    build = neo4j_home / "dist-build"
    build.mkdir(parents=True, exist_ok=True)
    (build / "pom.xml").write_text(pom(version, browser_version))
    proc = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "-f",
            str(build / "pom.xml"),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={staging}",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).strip()
        tail = "\n".join(output.splitlines()[-15:])
        if any(h in output for h in _NETWORK_HINTS):
            raise MavenUnreachable(f"could not download Neo4j {version} from Maven Central (is it reachable?):\n{tail}")
        raise ServerError(f"Maven failed to install Neo4j {version}:\n{tail}")

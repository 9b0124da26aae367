"""Install Neo4j community server + Neo4j Browser jars from Maven Central with Maven.

Maven resolves the server's dependency tree into ``<neo4j_home>/lib``; ``~/.m2``
caches the downloads, so a reinstall (or a second home) takes seconds.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from pathlib import Path

from kgmem.errors import MavenUnreachable, ServerError

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


def ensure_installed(neo4j_home: Path, version: str, browser_version: str) -> bool:
    """Install the jars unless this exact version is there. Returns True when it installed."""
    wanted = {"neo4j": version, "browser": browser_version}
    if installed_version(neo4j_home) == wanted:
        return False
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError("Maven (`mvn`) is required to install Neo4j from Maven Central and was not found on PATH")
    build = neo4j_home / "dist-build"
    build.mkdir(parents=True, exist_ok=True)
    (build / "pom.xml").write_text(_POM.format(version=version, browser=browser_version))
    staging = neo4j_home / "lib.staging"
    shutil.rmtree(staging, ignore_errors=True)
    log.info("installing Neo4j %s + Browser %s from Maven Central into %s", version, browser_version, neo4j_home)
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
    (staging / MARKER).write_text(json.dumps(wanted))
    lib = neo4j_home / "lib"
    old = neo4j_home / "lib.old"
    shutil.rmtree(old, ignore_errors=True)
    if lib.exists():
        lib.rename(old)
    staging.rename(lib)
    shutil.rmtree(old, ignore_errors=True)
    return True

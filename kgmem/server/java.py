"""Find a Java runtime new enough for Neo4j 5.26 (Java 17)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from kgmem.errors import JavaNotFound

MIN_JAVA = 17


def find_java() -> Path:
    """The ``java`` executable ($JAVA_HOME first, then PATH); raises :class:`JavaNotFound`."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return Path(java_home) / "bin" / "java"
    found = shutil.which("java")
    if not found:
        raise JavaNotFound(
            f"Java {MIN_JAVA}+ is required for the local Neo4j and none was found "
            "(set JAVA_HOME or install OpenJDK 17, e.g. `apt-get install openjdk-17-jre-headless`)"
        )
    return Path(found)


def java_major(java: Path) -> int:
    """Major version of ``java`` (8 for 1.8, 17 for 17.0.x)."""
    out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    text = out.stderr + out.stdout
    match = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if not match:
        raise JavaNotFound(f"could not read the Java version from `{java} -version`: {text.strip()[:200]}")
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def check_java() -> tuple[Path, int]:
    """Return (java, major version); raise :class:`JavaNotFound` when missing or older than 17."""
    java = find_java()
    major = java_major(java)
    if major < MIN_JAVA:
        raise JavaNotFound(f"Neo4j 5.26 needs Java {MIN_JAVA}+, but {java} is Java {major} (set JAVA_HOME to a JDK 17)")
    return java, major

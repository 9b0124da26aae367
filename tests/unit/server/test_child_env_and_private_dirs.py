"""The local Neo4j gets an allow-listed environment (no client secrets); kgmem's data dirs are 0700."""

from __future__ import annotations

import os
import stat

from kgmem.paths import private_dir
from kgmem.server.local import child_env


def test_child_env_keeps_only_what_java_needs() -> None:
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "JAVA_HOME": "/jvm",
        "ANTHROPIC_API_KEY": "sk-secret",
        "KGMEM_NEO4J__PASSWORD": "pw",
        "NEO4J_AUTH": "neo4j/x",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "GITHUB_TOKEN": "gh",
    }
    env = child_env(environ, NEO4J_HOME="/h")
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "JAVA_HOME": "/jvm",
        "NEO4J_HOME": "/h",
    }


def test_private_dir_creates_0700_whatever_the_umask_and_tightens_existing(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        made = private_dir(tmp_path / "home" / "a" / "b")
    finally:
        os.umask(old)
    for path in (tmp_path / "home", tmp_path / "home" / "a", made):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    os.chmod(loose, 0o755)
    private_dir(loose)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700

"""`kgmem demo` end to end, as a user runs it (own namespace, shared server)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

from kgmem.config import Settings


def test_demo_learns_the_fix_and_prints_where_to_browse(base_settings: Settings, graph) -> None:
    ns = f"test-demo-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, KGMEM_HOME=str(base_settings.home))
    try:
        run = subprocess.run(
            [sys.executable, "-m", "kgmem.cli", "demo", "--ns", ns],
            capture_output=True, text=True, env=env, timeout=600,
        )
    finally:
        graph.write_autocommit("maintenance/delete_namespace", ns=ns)
    out = run.stdout
    assert run.returncode == 0, run.stderr[-2000:]
    assert "no known fix yet" in out  # first occurrence
    assert "kgmem hands back: suggest" in out  # second occurrence gets the fix
    assert "kgmem hands back: AUTO-APPLY" in out  # confidence crossed 0.7
    assert "suggested via a similar error" in out  # SIMILAR_TO: the fix comes attenuated
    assert f"http://127.0.0.1:{base_settings.neo4j.http_port}/browser/" in out
    assert "user: neo4j" in out and "kgmem.toml" in out
    password = base_settings.neo4j.password.get_secret_value() if base_settings.neo4j.password else None
    assert not password or password not in out + run.stderr

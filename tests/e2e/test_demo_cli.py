"""`kgmem demo` end to end, as a first-time user runs it: a fresh interpreter and home (what a first run
prints on stderr is part of the point), its own namespace on the shared server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid

from kgmem.config import Settings
from kgmem.maintenance import delete_namespace


def test_first_demo_run_learns_the_fix_quietly_and_says_where_to_browse(
    base_settings: Settings, graph, tmp_path
) -> None:
    """A first-time user's run: a fresh KGMEM_HOME, so the model is exported to ONNX (torch, optimum
    and transformers warn while doing it). The demo learns the fix (suggested, then auto-applied, and
    via a similar error) and says where to browse without printing the password; stderr holds no
    warning or progress bar of a library. The URI names the shared server on a port other than this
    home's bolt port, so the demo uses it as it would a remote server (no second Neo4j started)."""
    ns = f"test-demo-{uuid.uuid4().hex[:8]}"
    cfg = base_settings.neo4j
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGMEM_", "TQDM_", "HF_", "TRANSFORMERS_"))}
    env.update(
        KGMEM_HOME=str(tmp_path / "home"),
        KGMEM_NEO4J__URI=cfg.uri,
        KGMEM_NEO4J__BOLT_PORT=str(cfg.bolt_port + 1),
        KGMEM_NEO4J__HTTP_PORT=str(cfg.http_port),
        KGMEM_NEO4J__PASSWORD=cfg.password.get_secret_value() if cfg.password else "",
    )
    env.pop("ANTHROPIC_API_KEY", None)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "kgmem.cli", "demo", "--ns", ns],
            capture_output=True,
            text=True,
            env=env,
            timeout=1200,
            cwd=tmp_path,
        )
    finally:
        delete_namespace(graph, None, ns)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "home" / "models").is_dir()  # the export ran: the noisy path was taken
    out = run.stdout
    assert "no known fix yet" in out  # first occurrence
    assert "kgmem hands back: suggest" in out  # second occurrence gets the fix
    assert "kgmem hands back: AUTO-APPLY" in out  # confidence crossed 0.7
    assert "suggested via a similar error" in out  # SIMILAR_TO: the fix comes attenuated
    assert "Prompt context" in out
    assert f"http://127.0.0.1:{cfg.http_port}/browser/" in out
    assert "user: neo4j" in out and "kgmem.toml" in out
    password = cfg.password.get_secret_value() if cfg.password else None
    assert not password or password not in out + run.stderr
    noise = [
        line
        for line in run.stderr.splitlines()
        if re.search(r"warn|deprecat|it/s\]|\d+%\|", line, re.I)
        and not line.startswith(("WARNING kgmem", "ERROR kgmem"))
    ]
    assert not noise, "\n".join(noise)
    assert "Loading the embedding model" in run.stdout + run.stderr

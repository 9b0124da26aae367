"""The one results file every figure comes from: ``benchmarks/results.json``.

Schema 1: ``{"schema": 1, "runs": {NAME: {"command", "date", "commit", "machine", "load", "quick",
"wall_s", "figures": {KEY: VALUE}}}}`` — one entry per benchmark, its latest recorded run.
"""

from __future__ import annotations

import json
import logging
import math
import os
import platform
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.paths import REPO

log = logging.getLogger(__name__)

RESULTS = REPO / "benchmarks" / "results.json"
SCHEMA = 1

Figure = float | int | str


class ResultsError(ValueError):
    """The results file is not what schema 1 describes."""


@dataclass(frozen=True)
class RunRecord:
    """One benchmark run as the results file keeps it."""

    command: str
    date: str
    commit: str
    machine: str
    load: str
    quick: bool
    wall_s: float
    figures: dict[str, Figure]

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "date": self.date,
            "commit": self.commit,
            "machine": self.machine,
            "load": self.load,
            "quick": self.quick,
            "wall_s": self.wall_s,
            "figures": self.figures,
        }


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Figure]:
    """Nested figures as flat dotted keys. Lists are left out (rankings, grids: not figures); floats are
    rounded to 4 decimals; NaN and infinities become strings (JSON has no such numbers)."""
    out: dict[str, Figure] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, bool):
            out[name] = int(value)
        elif isinstance(value, int | float) or hasattr(value, "item"):
            number = value.item() if hasattr(value, "item") else value
            if isinstance(number, float):
                out[name] = round(number, 4) if math.isfinite(number) else str(number)
            else:
                out[name] = number
        elif isinstance(value, str):
            out[name] = value
    return out


def machine() -> str:
    """A one-line description of this machine: CPU model and count, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) / 1024 / 1024:.0f} GB RAM"
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    return f"{cpu} × {os.cpu_count()}{memory}, {system}"


def load_average() -> float:
    """The 1-minute load average (0 where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def commit() -> str:
    """The checkout's commit (12 hex digits), ``+dirty`` when kgmem/, cypher/ or benchmarks/ code differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "kgmem", "benchmarks/*.py"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read(path: Path = RESULTS) -> dict[str, RunRecord]:
    """Every recorded run by benchmark name ({} when the file does not exist yet)."""
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: not JSON ({exc})") from exc
    if doc.get("schema") != SCHEMA:
        raise ResultsError(f"{path}: schema {doc.get('schema')!r}, expected {SCHEMA}")
    runs = {}
    for name, run in doc.get("runs", {}).items():
        try:
            runs[name] = RunRecord(**run)
        except TypeError as exc:
            raise ResultsError(f"{path}: run {name!r}: {exc}") from exc
    return runs


def write(runs: Mapping[str, RunRecord], path: Path = RESULTS) -> None:
    doc = {"schema": SCHEMA, "runs": {name: runs[name].to_json() for name in sorted(runs)}}
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def record(name: str, run: RunRecord, path: Path = RESULTS, force: bool = False) -> bool:
    """Store ``run`` as ``name``'s latest run. A quick run does not replace a full one unless ``force``;
    returns whether it was stored. Benchmarks may finish in parallel: the read-modify-write holds a lock."""
    import fcntl

    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        runs = read(path)
        old = runs.get(name)
        if old is not None and run.quick and not old.quick and not force:
            log.warning("%s: a full run is recorded; this quick run is not stored (use --force)", name)
            return False
        runs[name] = run
        write(runs, path)
    return True

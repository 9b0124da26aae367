"""Read and update kgmem's own config file (``$KGMEM_HOME/kgmem.toml``), always mode 0600:
it holds the generated Neo4j password."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from kgmem.paths import private_dir


def read_config(path: Path) -> dict[str, Any]:
    """The parsed file, or ``{}`` when it does not exist."""
    if not path.is_file():
        return {}
    with path.open("rb") as fh:
        return tomllib.load(fh)


def update_config(path: Path, section: str, values: dict[str, Any]) -> None:
    """Merge ``values`` into ``[section]``, keeping every other key, and write atomically with mode 0600."""
    data = read_config(path)
    data.setdefault(section, {}).update(values)
    private_dir(path.parent)  # $KGMEM_HOME: mode 0700
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        tomli_w.dump(data, fh)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)

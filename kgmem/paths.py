"""kgmem's data directories are private: created (and kept) mode 0700.

``$KGMEM_HOME`` holds the Neo4j store and its password file, Chroma's files, the learning spool and
the model export — none of it is for other local users. Directories are made 0700 whatever the
umask, and an existing one is tightened to 0700 (it may predate this rule).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with mode 0700 and make sure ``path`` itself is 0700."""
    path = Path(path)
    missing = []
    parent = path
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        directory.mkdir(mode=PRIVATE_MODE, exist_ok=True)
        os.chmod(directory, PRIVATE_MODE)  # mkdir's mode is masked by the umask
    try:
        if path.stat().st_mode & 0o777 != PRIVATE_MODE:
            os.chmod(path, PRIVATE_MODE)
    except PermissionError:  # not ours (e.g. a shared mount): leave it, but say so
        log.warning("cannot make %s private (mode 0700): not owned by this user", path)
    return path

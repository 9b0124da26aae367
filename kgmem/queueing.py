"""Queue helpers shared by the worker threads (turn write-behind, the analysis buffer)."""

from __future__ import annotations

import queue
import time
from typing import Any


def join_with_timeout(q: "queue.Queue[Any]", timeout: float | None = None) -> bool:
    """Like ``Queue.join()`` but gives up after ``timeout`` seconds; True when every task is done."""
    deadline = None if timeout is None else time.monotonic() + timeout
    cond = q.all_tasks_done
    with cond:
        while q.unfinished_tasks:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            cond.wait(remaining)
    return True

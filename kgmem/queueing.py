"""Queue helpers shared by the worker threads and tasks (turn write-behind, the analysis buffer)."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import time
from typing import Any


def join_with_timeout(q: queue.Queue[Any], timeout: float | None = None) -> bool:
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


async def join_async(q: asyncio.Queue[Any], timeout: float | None = None) -> bool:
    """``await q.join()`` giving up after ``timeout`` seconds; True when every task is done."""
    try:
        await asyncio.wait_for(q.join(), timeout)
    except TimeoutError:
        return False
    return True


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel a worker task and wait until it has stopped."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

"""The two runners of kgmem.runner drive the same operation to the same result (stand-in stores:
this tests the driving — results sent back, errors thrown in, gather order, background writes)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from kgmem.errors import BackendUnavailable
from kgmem.runner import AsyncIO, Background, Flush, Gather, Op, Read, SyncIO, Write, arun, run


class Graph:
    """Records the statements it is asked to run; ``down`` names statements that fail."""

    def __init__(self, down: tuple[str, ...] = ()) -> None:
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.down = down

    def _run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if name in self.down:
            raise BackendUnavailable(f"{name}: unreachable")
        self.log.append((name, params))
        return [{"name": name, **params}]

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self._run(name, params)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self._run(name, params)


class AsyncGraph(Graph):
    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        await asyncio.sleep(0)
        return self._run(name, params)

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        await asyncio.sleep(0)
        return self._run(name, params)


def _leaf(i: int) -> Op[int]:
    rows = yield Read("leaf", {"i": i})
    return rows[0]["i"] * 10


def operation() -> Op[dict[str, Any]]:
    """Reads, a caught failure, a gather, a background write and a flush — what the engines use."""
    first = yield Read("first", {"x": 1})
    try:
        yield Write("broken", {})
        degraded = False
    except BackendUnavailable:
        degraded = True
    gathered = yield Gather(tuple(_leaf(i) for i in range(5)))
    yield Background(_write_op("log"))
    yield Flush()
    return {"first": first[0]["x"], "degraded": degraded, "gathered": gathered}


def _write_op(name: str) -> Op[Any]:
    return (yield Write(name, {}))


def _run_both(op_factory) -> tuple[Any, Any, Graph, Graph]:  # noqa: ANN001
    sync_graph, async_graph = Graph(down=("broken",)), AsyncGraph(down=("broken",))
    sync_io = SyncIO(sync_graph, None, None)
    try:
        sync_result = run(op_factory(), sync_io)
    finally:
        sync_io.close()

    async def main() -> Any:
        io = AsyncIO(async_graph, None, None)
        try:
            return await arun(op_factory(), io)
        finally:
            await io.close()

    return sync_result, asyncio.run(main()), sync_graph, async_graph


def test_both_runners_give_the_same_result_and_the_same_statements() -> None:
    sync_result, async_result, sync_graph, async_graph = _run_both(operation)
    assert sync_result == async_result == {"first": 1, "degraded": True, "gathered": [0, 10, 20, 30, 40]}
    assert sorted(n for n, _ in sync_graph.log) == sorted(n for n, _ in async_graph.log)
    assert ("log", {}) in sync_graph.log and ("log", {}) in async_graph.log  # flushed before returning


def test_an_uncaught_backend_error_reaches_the_caller_from_both_runners() -> None:
    def failing() -> Op[None]:
        yield Write("broken", {})

    with pytest.raises(BackendUnavailable, match="broken"):
        run(failing(), SyncIO(Graph(down=("broken",)), None, None))
    with pytest.raises(BackendUnavailable, match="broken"):
        asyncio.run(arun(failing(), AsyncIO(AsyncGraph(down=("broken",)), None, None)))


def test_a_failed_background_write_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def op() -> Op[str]:
        yield Background(_write_op("broken"), "query log write")
        yield Flush()
        return "done"

    sync_result, async_result, _, _ = _run_both(op)
    assert sync_result == async_result == "done"
    assert sum("query log write failed" in r.getMessage() for r in caplog.records) == 2


def test_an_unknown_request_is_a_type_error() -> None:
    def op() -> Op[None]:
        yield "not a request"

    with pytest.raises(TypeError, match="unknown I/O request"):
        run(op(), SyncIO(Graph(), None, None))


def test_local_io_is_called_by_both_runners_and_off_the_event_loop_by_the_async_one() -> None:
    import threading

    from kgmem.runner import LocalIO

    def op() -> Op[tuple[int, int]]:
        try:
            yield LocalIO(lambda: (_ for _ in ()).throw(OSError("disk full")))
        except OSError:
            pass  # thrown back into the operation, as a backend error is
        return (yield LocalIO(lambda a, b: (a + b, threading.get_ident()), (2, 3)))

    caller = threading.get_ident()
    sync_result, async_result, _, _ = _run_both(op)
    assert sync_result == (5, caller)
    assert async_result[0] == 5 and async_result[1] != caller  # a worker thread, not the loop's


class RendezvousGraph(Graph):
    """Each read waits until ``parties`` reads are in flight at once: reads run one after another fail."""

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=10)

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.barrier.wait()  # BrokenBarrierError unless the other branches run at the same time
        return super().read(name, **params)


def _read_op(name: str) -> Op[Any]:
    return (yield Read(name, {}))


def test_sync_gather_runs_its_branches_concurrently() -> None:
    # The legs of a search are one Gather: under KGMem (threads) the keyword leg's round trip must
    # overlap the vector leg, or a search pays the sum of the legs instead of the slower one.
    graph = RendezvousGraph(3)
    io = SyncIO(graph, None, None)
    try:
        out = run(_gather_reads(3), io)
    finally:
        io.close()
    assert [rows[0]["name"] for rows in out] == ["r0", "r1", "r2"]


def _gather_reads(n: int) -> Op[Any]:
    return (yield Gather(tuple(_read_op(f"r{i}") for i in range(n))))


def test_each_runner_has_one_handler_for_every_request_type() -> None:
    from typing import get_args

    from kgmem.runner import Request

    assert set(SyncIO.HANDLERS) == set(get_args(Request))
    assert set(AsyncIO.HANDLERS) == set(get_args(Request))


def test_a_flush_wakes_a_background_operation_that_waits_on_purpose() -> None:
    """A background write that waits up to a minute for more work (as the query log does) is sent by
    the next flush of either runner: the flush calls the operation's ``wake`` before it waits. Without
    the wake the flush (10 s at most) would return with nothing written."""
    from kgmem.runner import LocalIO

    def op(event: threading.Event) -> Op[str]:
        def waiting() -> Op[Any]:
            yield LocalIO(event.wait, (60.0,))
            return (yield Write("gathered", {}))

        yield Background(waiting(), "query log write", wake=event.set)
        yield Flush(10.0)
        return "done"

    sync_graph, async_graph = Graph(), AsyncGraph()
    sync_io = SyncIO(sync_graph, None, None)
    try:
        assert run(op(threading.Event()), sync_io) == "done"
        assert sync_graph.log == [("gathered", {})]
    finally:
        sync_io.close()

    async def main() -> str:
        io = AsyncIO(async_graph, None, None)
        try:
            return await arun(op(threading.Event()), io)
        finally:
            await io.close()

    assert asyncio.run(main()) == "done"
    assert async_graph.log == [("gathered", {})]

"""Keyword-only client arguments: old positional calls get an error naming the keywords."""

from __future__ import annotations

import pytest

from kgmem.errors import KGMemError, PositionalArgumentError
from kgmem.kwonly import keyword_only


class _Client:
    @keyword_only
    def turn(self, *, session: str, role: str, text: str) -> str:
        return f"{session}/{role}/{text}"

    @keyword_only
    def search(self, query: str, k: int = 10, *, ns: str | None = None) -> tuple:
        return query, k, ns


def test_keyword_calls_pass_through() -> None:
    assert _Client().turn(session="s", role="user", text="hi") == "s/user/hi"
    assert _Client().search("q", 3, ns="x") == ("q", 3, "x")
    assert _Client.turn.__name__ == "turn" and "session" in (_Client.turn.__doc__ or "session")


def test_positional_calls_name_the_keywords() -> None:
    with pytest.raises(PositionalArgumentError, match=r"turn\(\): session, role, text are keyword-only; got 3") as e:
        _Client().turn("s", "user", "hi")  # type: ignore[misc]
    assert "turn(session=..., role=..., text=..." in str(e.value)
    assert isinstance(e.value, TypeError) and isinstance(e.value, KGMemError)
    with pytest.raises(PositionalArgumentError, match=r"search\(\): ns are keyword-only; got 1"):
        _Client().search("q", 3, "x")  # type: ignore[misc]


def test_the_public_client_marks_the_misleading_arguments_keyword_only() -> None:
    import inspect

    from kgmem.client import KGMem

    def kw(name: str) -> set[str]:
        params = inspect.signature(getattr(KGMem, name)).parameters.values()
        return {p.name for p in params if p.kind is p.KEYWORD_ONLY}

    assert {"session", "role", "text"} <= kw("turn")
    assert {"success", "session"} <= kw("resolve")
    assert {"used", "outcome"} <= kw("feedback")
    assert {"error", "session", "result"} <= kw("tool_result")
    assert {"ns", "session", "kinds", "preset"} <= kw("search")


def test_async_methods_stay_coroutine_functions() -> None:
    import asyncio
    import inspect

    from kgmem.aio import AsyncKGMem

    class _Async:
        @keyword_only
        async def turn(self, *, session: str, text: str) -> str:
            return f"{session}/{text}"

    assert inspect.iscoroutinefunction(_Async.turn)
    assert asyncio.run(_Async().turn(session="s", text="hi")) == "s/hi"
    with pytest.raises(PositionalArgumentError, match=r"turn\(\): session, text are keyword-only"):
        asyncio.run(_Async().turn("s", "hi"))  # type: ignore[misc]
    public = [name for name, fn in vars(AsyncKGMem).items() if not name.startswith("_") and callable(fn)]
    coroutines = [name for name in public if inspect.iscoroutinefunction(getattr(AsyncKGMem, name))]
    assert {"search", "turn", "feedback", "tool_result", "context"} <= set(coroutines)

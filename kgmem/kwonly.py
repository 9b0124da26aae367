"""Keyword-only client arguments, with a clear error for calls written against the old order.

Arguments whose order misleads (``turn(session, role, text)`` next to
``tool_result(tool, params, session=...)``) are keyword-only in the public API. A call that
still passes them by position gets a :class:`~kgmem.errors.PositionalArgumentError` that
names the keywords to use — not Python's bare "takes 2 positional arguments but 4 were given".
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from kgmem.errors import PositionalArgumentError

P = ParamSpec("P")
R = TypeVar("R")


def keyword_only(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorate a method whose signature marks the misleading arguments keyword-only (after ``*``)."""
    params = list(inspect.signature(fn).parameters.values())
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keywords = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    shown = [n for n in positional if n != "self"]

    def check(args: tuple[object, ...]) -> None:
        if len(args) > len(positional):
            extra = len(args) - len(positional)
            call = ", ".join(shown + [f"{k}=..." for k in keywords[: max(extra, 1)]])
            raise PositionalArgumentError(
                f"{fn.__name__}(): {', '.join(keywords)} are keyword-only; got {extra} extra positional "
                f"argument(s) — call it as {fn.__name__}({call}, ...)"
            )

    if inspect.iscoroutinefunction(fn):
        # An ``async def`` wrapper, so the method stays a coroutine function: frameworks dispatch on
        # inspect.iscoroutinefunction, and a plain wrapper returning the coroutine fails that test.
        @functools.wraps(fn)
        async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            check(args)
            return await fn(*args, **kwargs)  # type: ignore[misc,no-any-return]

        return async_wrapper  # type: ignore[return-value]

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        check(args)
        return fn(*args, **kwargs)

    return wrapper

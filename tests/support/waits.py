"""Waiting for a condition: poll it, with a generous timeout and a message
that says what did not happen. The only polling loops of the tests."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

POLL_S = 0.005


def _failed(what: str | Callable[..., Any], timeout: float, detail: str = "") -> AssertionError:
    name = what if isinstance(what, str) else getattr(what, "__name__", repr(what))
    return AssertionError(f"{name} did not happen within {timeout:g} s{detail}")


async def eventually(
    condition: Callable[[], Any],
    timeout: float = 10.0,
    what: str = "",
    pause: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    poll: float = POLL_S,
    detail: Callable[[], str] | None = None,
) -> None:
    """Wait (on the real loop: the server's tasks run meanwhile) until
    ``condition()`` is true (a coroutine function is awaited);
    ``AssertionError`` naming ``what`` after ``timeout`` real seconds.
    ``pause`` is how to wait between looks (a Textual pilot's ``pause``,
    say); ``detail`` adds what the failure shows."""
    end = time.monotonic() + timeout
    while not await _holds(condition):
        if time.monotonic() >= end:
            extra = f": {detail()}" if detail is not None else ""
            raise _failed(what or condition, timeout, extra)
        await pause(poll)


async def _holds(condition: Callable[[], Any]) -> bool:
    result = condition()
    if inspect.isawaitable(result):
        result = await result
    return bool(result)


def wait_until(
    condition: Callable[[], Any],
    timeout: float = 10.0,
    what: str = "",
    poll: float = 0.05,
    detail: Callable[[], str] | None = None,
) -> None:
    """``eventually`` for code with no event loop (subprocesses, sockets)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= end:
            extra = f": {detail()}" if detail is not None else ""
            raise _failed(what or condition, timeout, extra)
        time.sleep(poll)


__all__ = ["eventually", "wait_until"]

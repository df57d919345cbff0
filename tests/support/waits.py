"""Waiting for a condition: poll it, with a generous timeout and a message
that says what did not happen. The only polling loops of the tests.

A timeout here guards against a hang; it is not a measure of speed. So its
seconds are those of an unhurried machine (``Deadline``, ``patient``): on a
machine whose cores are busy with other work (CI running three Pythons side
by side, a build beside the suite) they stretch with the load, and a wait
fails because what it waits for did not come, not because it came late.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

POLL_S = 0.005

MAX_STRETCH = 10.0
"""A timeout never stretches past this many times its seconds of real time."""


def slowdown() -> float:
    """How many times slower than unhurried the machine runs now: the tasks
    ready to run per core over the last minute (the load average), at least
    1. Our own suite counts too: its workers are two a core."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system: take it as unhurried
        return 1.0
    return min(MAX_STRETCH, max(1.0, load / (os.cpu_count() or 1)))


def patient(seconds: float) -> float:
    """``seconds`` of an unhurried machine in real seconds, as busy as the
    machine is now: for a timeout handed to something else (``asyncio.timeout``,
    Playwright, a thread's join), fixed when the wait starts."""
    return seconds * slowdown()


class Deadline:
    """A timeout in seconds of an unhurried machine, spent as real time passes
    divided by the machine's ``slowdown`` at each look: a wait through a busy
    minute lasts longer, and never more than ``MAX_STRETCH`` times its seconds."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.left = seconds
        self.started = self.at = time.monotonic()

    def passed(self) -> bool:
        now = time.monotonic()
        self.left -= (now - self.at) / slowdown()
        self.at = now
        return self.left <= 0 or now - self.started >= self.seconds * MAX_STRETCH

    def restart(self) -> None:
        self.left = self.seconds
        self.started = self.at = time.monotonic()


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
    ``AssertionError`` naming ``what`` after ``timeout`` seconds (of an
    unhurried machine: ``Deadline``).
    ``pause`` is how to wait between looks (a Textual pilot's ``pause``,
    say); ``detail`` adds what the failure shows."""
    deadline = Deadline(timeout)
    while not await _holds(condition):
        if deadline.passed():
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
    deadline = Deadline(timeout)
    while not condition():
        if deadline.passed():
            extra = f": {detail()}" if detail is not None else ""
            raise _failed(what or condition, timeout, extra)
        time.sleep(poll)


__all__ = ["Deadline", "eventually", "patient", "slowdown", "wait_until"]

"""The time the server lives by, injectable so tests can drive it.

Deadlines a table persists are absolute wall-clock times (they must mean the
same after a restart), so the clock gives wall time and arms timers for an
absolute moment. ``WallClock`` is the real one; a test passes its own
(``tests/support/clock.py``) and moves time forward instead of sleeping.
``timeout`` bounds a wait by the clock's time, as ``asyncio.timeout`` does
by the loop's.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def time(self) -> float:
        """Now, in seconds since the epoch."""
        ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` (on the running loop) once ``time()`` reaches ``when``."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time."""
        ...


class WallClock:
    """The real clock: ``time.time`` and the running loop's timers."""

    time = staticmethod(time.time)
    """Now (``time.time`` itself: read several times a move, and a method of
    this class's own would be a Python call each time)."""

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        delay = max(0.0, when - time.time())
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


WALL = WallClock()


@contextlib.asynccontextmanager
async def timeout(clock: Clock, seconds: float) -> AsyncIterator[None]:
    """``asyncio.timeout(seconds)`` measured on ``clock``: the block is
    cancelled and ``TimeoutError`` raised once ``clock`` has moved ``seconds``."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(None) as deadline:
        # Due now on the loop: asyncio then cancels the block and turns the
        # cancellation into TimeoutError, as for its own deadlines.
        timer = clock.call_at(clock.time() + seconds, lambda: deadline.reschedule(loop.time()))
        try:
            yield
        finally:
            timer.cancel()

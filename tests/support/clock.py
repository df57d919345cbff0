"""A clock the test moves by hand (``server.base.clock.Clock``), instead of sleeping.

Timers that are due fire on the running loop (soon, as a real timer with no
delay would); the rest wait until ``advance`` brings the time past them.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable

START = 1_800_000_000.0  # a wall-clock-like time, far from the real one


class _Timer:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    def __init__(self, start: float = START) -> None:
        self.now = start
        self._timers: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(when, callback)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        if when <= self.now:
            asyncio.get_running_loop().call_soon(self._fire_due)
        return timer

    async def sleep(self, seconds: float) -> None:
        done = asyncio.get_running_loop().create_future()
        self.call_at(self.now + seconds, lambda: done.done() or done.set_result(None))
        await done

    def advance(self, seconds: float) -> None:
        """Move time forward and fire every timer now due, in order."""
        self.now += seconds
        self._fire_due()

    def _fire_due(self) -> None:
        while self._timers and self._timers[0][0] <= self.now:
            _, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                timer.callback()


__all__ = ["START", "ManualClock"]

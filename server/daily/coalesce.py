"""Many callers who each need "a run that started after my change": one run
serves all those waiting at once.

The daily board is rebuilt whole after a result is recorded (there is no
cheap incremental update, ``redis_board.py``), and each recording waits for
a rebuild that includes its result. When fifty tables finish together, fifty
rebuilds in a row would each cost Redis the whole day's results; here a
rebuild in progress lets the recordings that arrive meanwhile queue, and the
next rebuild covers them all: at most two runs for any burst, per key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


class Coalesce:
    """``await coalesce.after_change(key)`` returns once ``run(key)`` has
    completed a run that *started* after the call. ``run``'s errors reach the
    callers whose change that run was to cover."""

    def __init__(self, run: Callable[[str], Awaitable[None]]) -> None:
        self._run = run
        self._asked: dict[str, int] = {}
        """Per key: changes announced so far."""
        self._covered: dict[str, int] = {}
        """Per key: changes announced before the last successful run started."""
        self._locks: dict[str, asyncio.Lock] = {}

    async def after_change(self, key: str) -> None:
        mine = self._asked[key] = self._asked.get(key, 0) + 1
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if self._covered.get(key, 0) >= mine:
                return  # a run that started after this change has completed
            covers = self._asked[key]
            await self._run(key)
            self._covered[key] = max(self._covered.get(key, 0), covers)

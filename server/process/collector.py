"""Python's cyclic garbage collector, tuned for a server whose heap is
mostly long-lived tables and connections.

A full collection stops the whole process for as long as it takes to walk
every tracked object: about a thousand a busy table (its state, views,
connections), so ~4 million at 4,000 tables, and ~5 s of pause there
(docs/LOAD.md). So the server keeps the collector's reach small: what
survived the last half second is frozen (``gc.freeze``), out of every
collection, and only the objects made since are ever walked (measured at
1,000 tables: p99 ~320 ms → ~3 ms, 17% less CPU).

What is frozen is never collected, so garbage held in a reference cycle
that got frozen stays until a sweep (``gc.unfreeze`` then a full
collection). The sweep used to come every five minutes: at 4,000 busy
tables, a 5-second stall every five minutes. Now it comes when it pays, as
CPython's own collector decides its full collections: once the process's
memory has grown by a quarter since the last sweep. A server that keeps the
same tables, and makes no cyclic garbage (the one known source, Redis
script replies, is fixed: server/store/asyncio_redis_fixes.py, fix 7), never
stops for one; garbage or new tables that grow the memory by a quarter get
swept, so cyclic garbage never holds more than about a quarter of it.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable

from server.base.clock import Clock

FREEZE_EVERY = 0.5
"""Seconds between two freezes of what survived."""

LOOK_EVERY = 10.0
"""Seconds between two looks at the process's memory."""

SWEEP_GROWTH = 1.25
"""A sweep once resident memory reaches this many times what it was after the last."""

SWEEP_EVERY_BLIND = 300.0
"""Where the memory cannot be read (no /proc), a sweep this often, as before."""

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory (Linux), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def tune_gc() -> None:
    """Fewer, cheaper collections: GC pauses, not CPU, dominate tail latency.

    Objects alive at start-up (modules, tables) are frozen out of collection,
    and the young generation is collected less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def sweep_due(memory: int | None, after_last: int | None, blind_for: float) -> bool:
    """Whether to sweep now: the memory grew by ``SWEEP_GROWTH`` since the
    last sweep, or, memory unknown, ``SWEEP_EVERY_BLIND`` seconds passed."""
    if memory is None or after_last is None:
        return blind_for >= SWEEP_EVERY_BLIND
    return memory >= after_last * SWEEP_GROWTH


def sweep() -> None:
    """Collect everything once, frozen objects included, then freeze again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


async def freeze_survivors(
    clock: Clock,
    memory: Callable[[], int | None] = resident_bytes,
    on_sweep: Callable[[], None] = sweep,
) -> None:
    """Freeze what survived every ``FREEZE_EVERY`` seconds; sweep when due."""
    after_last = memory()
    since_look = since_sweep = 0.0
    while True:
        await clock.sleep(FREEZE_EVERY)
        since_look += FREEZE_EVERY
        since_sweep += FREEZE_EVERY
        if since_look >= LOOK_EVERY:
            since_look = 0.0
            if sweep_due(now := memory(), after_last, since_sweep):
                on_sweep()
                since_sweep = 0.0
                after_last = memory() if now is not None else None
                continue
        gc.freeze()

"""Python's cyclic garbage collector, tuned for a server whose heap is
mostly long-lived tables and connections.

A collection stops the whole process for as long as it takes to walk the
objects it looks at: for a full one, every tracked object, about a thousand
a busy table (its state, views, connections), ~4 million at 4,000 tables and
seconds of pause there (docs/LOAD.md). So the serving process collects
nothing by itself (``tune_gc``: automatic collections off, what lives at
start frozen), and every half second freezes what survived
(``freeze_survivors``; in a process that keeps the collector on, a test or
``atout play``, that keeps the young generation small: measured at 1,000
tables, p99 ~320 ms → ~3 ms).

Garbage held in a reference cycle is then only freed by a sweep (everything
unfrozen and collected once). The sweep used to come every five minutes: at
4,000 busy tables, a 5-second stall every five minutes. Now it comes as
CPython's own collector decides its full collections: once the process's
memory has grown by a quarter since the last sweep. A server that keeps the
same tables and makes no cyclic garbage (the one known source, Redis script
replies, is fixed: server/store/asyncio_redis_fixes.py, fix 7) never stops
for one; garbage or new tables that grow the memory by a quarter get swept,
so cyclic garbage never holds more than about a quarter of it. A sweep
that found next to no garbage says the memory grew with live data (new
tables, their kept patches): the next waits for twice that growth, up to
the memory doubled, so a server filling up with tables stops for fewer
sweeps (at 4,000 Redis tables, one of 2.8 s came in a measured window as the
tables' memory grew: docs/LOAD.md); one that found garbage brings the
quarter back.
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

SWEEP_GROWTH_MOST = 2.0
"""The most the wait grows to, after sweeps that found next to no garbage."""

LITTLE_GARBAGE = 0.01
"""A sweep that found less garbage than this part of the objects it looked
at found next to none."""

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
    """The serving process's collector: no collection but the sweep.

    Objects alive at start-up (modules, tables) are frozen, and automatic
    collections are off: at 4,000 busy tables, where a backlog lets the young
    generation grow past its threshold between two freezes, the young
    collections that still came took up to 218 ms each (126 in a 7-minute
    run, 2.2 s in all); off, none (docs/LOAD.md). ``freeze_survivors`` runs
    the sweep when memory grew, the one collection left. (A server embedded
    in another process, ``atout play`` or a test, keeps the collector on;
    the freezes keep its young generation small.)
    """
    gc.collect()
    gc.freeze()
    gc.disable()


def sweep_due(
    memory: int | None, after_last: int | None, blind_for: float, growth: float = SWEEP_GROWTH
) -> bool:
    """Whether to sweep now: the memory reached ``growth`` times what it was
    after the last sweep, or, memory unknown, ``SWEEP_EVERY_BLIND`` seconds passed."""
    if memory is None or after_last is None:
        return blind_for >= SWEEP_EVERY_BLIND
    return memory >= after_last * growth


def next_growth(growth: float, garbage: float) -> float:
    """The growth the next sweep waits for, after one that found ``garbage``
    (a part of the objects it looked at): twice the last one's when it found
    next to none, ``SWEEP_GROWTH`` again when it found some."""
    if garbage >= LITTLE_GARBAGE:
        return SWEEP_GROWTH
    return min(1 + (growth - 1) * 2, SWEEP_GROWTH_MOST)


def sweep() -> float:
    """Collect everything once, frozen objects included, then freeze again:
    the garbage found, as a part of the objects looked at."""
    looked = gc.get_freeze_count() + sum(gc.get_count())
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found / max(looked, 1)


async def freeze_survivors(
    clock: Clock,
    memory: Callable[[], int | None] = resident_bytes,
    on_sweep: Callable[[], float] = sweep,
) -> None:
    """Freeze what survived every ``FREEZE_EVERY`` seconds; sweep when due."""
    after_last = memory()
    growth = SWEEP_GROWTH
    since_look = since_sweep = 0.0
    while True:
        await clock.sleep(FREEZE_EVERY)
        since_look += FREEZE_EVERY
        since_sweep += FREEZE_EVERY
        if since_look >= LOOK_EVERY:
            since_look = 0.0
            if sweep_due(now := memory(), after_last, since_sweep, growth):
                growth = next_growth(growth, on_sweep())
                since_sweep = 0.0
                after_last = memory() if now is not None else None
                continue
        gc.freeze()

"""The server's cyclic collector (server/process/collector.py): what survives
is frozen every half second, and a sweep (everything collected once, the
frozen included) comes when the process's memory grew by a quarter since the
last, not on a timer: a steady server never stops for one, and cyclic
garbage that was frozen is freed by the sweep; after a sweep that found next
to no garbage, the next waits for twice the growth. On the test's clock,
with the real collector."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from server.process.collector import (
    FREEZE_EVERY,
    LOOK_EVERY,
    SWEEP_EVERY_BLIND,
    SWEEP_GROWTH,
    SWEEP_GROWTH_MOST,
    freeze_survivors,
    next_growth,
    resident_bytes,
    sweep,
    sweep_due,
    tune_gc,
)
from tests.support.clock import ManualClock
from tests.support.waits import eventually

MB = 2**20


@pytest.fixture(autouse=True)
def _thaw() -> Iterator[None]:
    yield
    gc.unfreeze()  # the rest of this test process collects as usual


def test_a_sweep_is_due_once_memory_grew_by_a_quarter() -> None:
    assert not sweep_due(100 * MB, 100 * MB, blind_for=3600.0)  # steady: never
    assert not sweep_due(124 * MB, 100 * MB, blind_for=0.0)
    assert sweep_due(int(100 * MB * SWEEP_GROWTH), 100 * MB, blind_for=0.0)
    assert not sweep_due(80 * MB, 100 * MB, blind_for=0.0)
    # Memory unknown (no /proc): every five minutes, as before.
    assert not sweep_due(None, None, blind_for=SWEEP_EVERY_BLIND - 1)
    assert sweep_due(None, None, blind_for=SWEEP_EVERY_BLIND)


def test_sweeps_that_find_no_garbage_wait_for_more_growth_up_to_double() -> None:
    growth = SWEEP_GROWTH
    waits = []
    for _ in range(4):  # memory that grew with live tables: nothing to free
        growth = next_growth(growth, garbage=0.001)
        waits.append(growth)
    assert waits == [1.5, 2.0, SWEEP_GROWTH_MOST, SWEEP_GROWTH_MOST]
    assert not sweep_due(int(149 * MB), 100 * MB, blind_for=0.0, growth=1.5)
    assert sweep_due(150 * MB, 100 * MB, blind_for=0.0, growth=1.5)
    # One that found garbage: a quarter again.
    assert next_growth(SWEEP_GROWTH_MOST, garbage=0.05) == SWEEP_GROWTH


def test_a_sweep_says_how_much_of_what_it_looked_at_was_garbage() -> None:
    # Earlier tests' in-process servers froze this process's heap, their
    # garbage with it: out of a plain collect's reach, so thawed first.
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    assert sweep() < 0.01  # nothing made since: next to none
    cycles = [_Cycle() for _ in range(gc.get_freeze_count())]  # as many cycles as objects
    gc.freeze()
    del cycles
    assert sweep() > 0.3  # half of all it looked at: the cycles, now freed


def test_resident_memory_is_read_here() -> None:
    rss = resident_bytes()
    assert rss is not None and 10 * MB < rss < 64 * 1024 * MB


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.mark.asyncio
async def test_frozen_cyclic_garbage_waits_for_the_sweep_memory_growth_brings() -> None:
    clock = ManualClock()
    readings = [100 * MB]  # what memory() says, the last one repeated
    sweeps = 0

    def memory() -> int:
        return readings[-1]

    def counted_sweep() -> float:
        nonlocal sweeps
        sweeps += 1
        sweep()
        # What else the sweep found is this test process's (what ran before,
        # on other workers' schedules): here, as at a server whose memory
        # grew with live tables, it found next to none.
        return 0.0

    task = asyncio.get_running_loop().create_task(freeze_survivors(clock, memory, counted_sweep))
    try:
        await asyncio.sleep(0)  # the task reads the memory and sleeps on the clock
        cycle = _Cycle()
        gone = weakref.ref(cycle)
        frozen_before = gc.get_freeze_count()
        clock.advance(FREEZE_EVERY)
        await eventually(lambda: gc.get_freeze_count() > frozen_before, what="a freeze")
        del cycle
        gc.collect()
        assert gone() is not None  # frozen: out of every collection's reach

        # A steady process: many looks at the memory, no sweep.
        for _ in range(int(10 * LOOK_EVERY / FREEZE_EVERY)):
            clock.advance(FREEZE_EVERY)
            await asyncio.sleep(0)
        assert sweeps == 0
        assert gone() is not None

        # The memory grows by a quarter: the next look sweeps, and the cycle goes.
        readings.append(int(100 * MB * SWEEP_GROWTH))
        for _ in range(int(LOOK_EVERY / FREEZE_EVERY)):
            clock.advance(FREEZE_EVERY)
            await asyncio.sleep(0)
        await eventually(lambda: sweeps == 1, what="one sweep")
        assert gone() is None

        # The new size is the new baseline, and that sweep found next to no
        # garbage: no sweep again until the memory grew by half, not a quarter.
        readings.append(int(readings[-1] * SWEEP_GROWTH))
        for _ in range(int(5 * LOOK_EVERY / FREEZE_EVERY)):
            clock.advance(FREEZE_EVERY)
            await asyncio.sleep(0)
        assert sweeps == 1
        readings.append(int(100 * MB * SWEEP_GROWTH * 1.5))
        for _ in range(int(LOOK_EVERY / FREEZE_EVERY)):
            clock.advance(FREEZE_EVERY)
            await asyncio.sleep(0)
        await eventually(lambda: sweeps == 2, what="a second sweep")
    finally:
        task.cancel()


def test_the_serving_process_collects_nothing_by_itself() -> None:
    try:
        tune_gc()
        assert not gc.isenabled()  # only the sweep collects
        assert gc.get_freeze_count() > 0  # what lived at start is frozen
    finally:
        gc.enable()

"""The server's cyclic collector (server/process/collector.py): what survives
is frozen every half second, and a sweep (everything collected once, the
frozen included) comes when the process's memory grew by a quarter since the
last, not on a timer: a steady server never stops for one, and cyclic
garbage that was frozen is freed by the sweep. On the test's clock, with the
real collector."""

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
    freeze_survivors,
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

    def counted_sweep() -> None:
        nonlocal sweeps
        sweeps += 1
        sweep()

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

        # The new size is the new baseline: no sweep again until it grows once more.
        for _ in range(int(5 * LOOK_EVERY / FREEZE_EVERY)):
            clock.advance(FREEZE_EVERY)
            await asyncio.sleep(0)
        assert sweeps == 1
    finally:
        task.cancel()


def test_the_serving_process_collects_nothing_by_itself() -> None:
    try:
        tune_gc()
        assert not gc.isenabled()  # only the sweep collects
        assert gc.get_freeze_count() > 0  # what lived at start is frozen
    finally:
        gc.enable()

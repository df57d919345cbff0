"""The tests' timeouts stretch with the machine's load (tests/support/waits.py):
a wait fails because what it waits for did not come, not because the cores
were busy with other work."""

from __future__ import annotations

import pytest

from tests.support import waits


class Machine:
    """The load average and the monotonic clock, as the test sets them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cores: int = 2) -> None:
        self.load = 0.5
        self.now = 100.0
        monkeypatch.setattr(waits.os, "getloadavg", lambda: (self.load, 0.0, 0.0))
        monkeypatch.setattr(waits.os, "cpu_count", lambda: cores)
        monkeypatch.setattr(waits.time, "monotonic", lambda: self.now)


def test_slowdown_is_the_tasks_ready_per_core_at_least_one_and_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    machine = Machine(monkeypatch)
    assert waits.slowdown() == 1.0  # a free core: unhurried
    machine.load = 8.0
    assert waits.slowdown() == 4.0
    assert waits.patient(30) == 120.0
    machine.load = 500.0
    assert waits.slowdown() == waits.MAX_STRETCH


def test_a_deadline_spends_its_seconds_slower_while_the_machine_is_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    machine = Machine(monkeypatch)
    deadline = waits.Deadline(10)
    machine.now += 9
    assert not deadline.passed()  # unhurried: 9 of 10 s spent
    machine.load = 6.0  # three tasks a core: a real second is a third of one
    machine.now += 2
    assert not deadline.passed()
    machine.now += 1.5
    assert deadline.passed()  # 9 + 2/3 + 1/2
    deadline.restart()
    assert not deadline.passed()


def test_a_deadline_never_stretches_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    machine = Machine(monkeypatch)
    machine.load = 1000.0
    deadline = waits.Deadline(1)
    machine.now += waits.MAX_STRETCH - 0.01
    assert not deadline.passed()
    machine.now += 0.01
    assert deadline.passed()

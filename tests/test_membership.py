"""Membership on the manual clock: heartbeats in, "process gone" out
(server/cluster/membership.py), with no Redis and no sleeping."""

from __future__ import annotations

import asyncio

from server.cluster.membership import Membership
from tests.support.clock import ManualClock

LEASE = 3.0


class Verdicts:
    """What a ``Membership`` concludes, and our subscriber's state (``up``)."""

    def __init__(self) -> None:
        self.gone: list[str] = []
        self.alive: list[tuple[str, bool]] = []
        self.up = True

    def membership(self, clock: ManualClock) -> Membership:
        return Membership(
            "me",
            LEASE,
            clock,
            hearing=lambda: self.up,
            gone=self.gone.append,
            alive=lambda proc, missed: self.alive.append((proc, missed)),
        )


async def settle() -> None:
    await asyncio.sleep(0)  # a timer due at once fires on the next loop turn


async def test_a_suspect_that_never_beats_again_is_gone_after_a_lease() -> None:
    clock, seen = ManualClock(), Verdicts()
    members = seen.membership(clock)
    members.beat("b", 4)
    members.unreached("b")
    assert members.suspects == {"b"}
    clock.advance(LEASE - 0.01)
    assert seen.gone == []  # not before a whole lease
    clock.advance(0.01)
    await settle()
    assert seen.gone == ["b"] and seen.alive == []
    assert members.suspects == frozenset()
    assert members.online_elsewhere() == 0  # its players are not counted any more


async def test_a_suspect_that_beats_is_alive_and_told_what_was_missed() -> None:
    clock, seen = ManualClock(), Verdicts()
    members = seen.membership(clock)
    members.unreached("b")  # a real message went unheard
    members.unreached("c", probe=True)  # only a probe
    clock.advance(1.0)
    members.beat("b", 1)
    members.beat("c", 2)
    clock.advance(LEASE)
    await settle()
    assert seen.gone == []
    assert sorted(seen.alive) == [("b", True), ("c", False)]
    assert members.online_elsewhere() == 3


async def test_no_verdict_while_our_own_subscriber_was_away() -> None:
    clock, seen = ManualClock(), Verdicts()
    members = seen.membership(clock)
    members.unreached("b")
    seen.up = False  # our subscriber lost its connection: b's beats may be lost
    clock.advance(LEASE)
    await settle()
    assert seen.gone == [] and members.suspects == {"b"}
    seen.up = True
    members.resubscribed()  # back now: a lease of listening from here
    clock.advance(LEASE - 0.01)
    assert seen.gone == []
    clock.advance(0.01)
    await settle()
    assert seen.gone == ["b"]


async def test_silent_processes_are_probed_only_when_we_have_heard_for_a_lease() -> None:
    clock, seen = ManualClock(), Verdicts()
    members = seen.membership(clock)
    members.beat("b", 1)
    assert members.silent({"b", "c", "me"}) == ["c"]  # never beat (and never ourselves)
    clock.advance(LEASE + 0.1)
    assert sorted(members.silent({"b", "c"})) == ["b", "c"]
    members.resubscribed()
    assert members.silent({"b", "c"}) == []  # back less than a lease ago
    clock.advance(LEASE)
    members.unreached("c", probe=True)
    assert members.silent({"b", "c"}) == ["b"]  # c is a suspect already


async def test_a_process_that_leaves_stops_counting_and_stop_ends_every_watch() -> None:
    clock, seen = ManualClock(), Verdicts()
    members = seen.membership(clock)
    members.beat("b", 5)
    members.beat("c", 2)
    members.beat("me", 100)  # our own beat, heard on the lobby channel: not counted
    assert members.online_elsewhere() == 7
    members.left("b")
    assert members.online_elsewhere() == 2
    clock.advance(LEASE * 2)
    assert members.online_elsewhere() == 0  # heard from too long ago
    members.unreached("c")
    members.stop()
    clock.advance(LEASE * 2)
    await settle()
    assert seen.gone == [] and members.suspects == frozenset()

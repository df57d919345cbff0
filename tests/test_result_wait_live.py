"""Results that wait for the players, and quick play into a bot's seat, over real WebSockets.

The paths of the wait, one by one and on a manual clock, are in
tests/test_table_pace.py; here a real server and real clients check the
wire: the ``ready`` command, the ``ready`` and ``next_deal_at`` fields, the
``not_between_deals`` error, and ``quick`` taking over a bot's seat.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from clients.session import Session
from protocol.messages import (
    CreateTable,
    Error,
    JoinTable,
    Leave,
    QuickPlay,
    Ready,
    Seated,
    StartGame,
)
from tests.support.clients import autoplay
from tests.support.servers import running, url
from tests.support.waits import eventually

pytestmark = pytest.mark.asyncio

WAIT = 30.0


async def test_the_next_deal_waits_for_both_players_then_comes_at_once() -> None:
    async with running(deal_pause=0.0) as server:
        alice = await Session.open(url(server), "Alice")
        await alice.send(CreateTable(seed="wait-live", deals=3, result_wait=WAIT))
        seated = await alice.wait_for(Seated)
        bob = await Session.open(url(server), "Bob")
        await bob.send(JoinTable(table_id=seated.table_id))
        assert (await bob.wait_for(Seated)).seat == 1
        await alice.send(Ready(rid=7))  # nothing to read yet
        refused = await alice.wait_for(Error)
        assert refused.code == "not_between_deals" and refused.rid == 7
        await alice.send(StartGame())

        def between(v: object) -> bool:
            return getattr(v, "status", None) == "between_deals"

        started = time.time()
        await asyncio.gather(
            autoplay(alice, random.Random(1), between, timeout=30),
            autoplay(bob, random.Random(2), between, timeout=30),
        )
        view = await alice.wait_view(between)
        assert view.ready == [2, 3] and view.result_wait == WAIT
        assert view.next_deal_at is not None and view.deal is not None
        assert started < view.next_deal_at - WAIT <= time.time()  # counted from the deal's end
        number = view.deal.number
        await alice.send(Ready())
        view = await bob.wait_view(lambda v: 0 in v.ready)
        assert view.status == "between_deals" and view.ready == [0, 2, 3]
        asked = time.time()
        await bob.send(Ready())
        view = await alice.wait_view(lambda v: v.status == "playing", timeout=5)
        assert view.ready == [] and view.next_deal_at is None
        assert view.deal is not None and view.deal.number in (number, number + 1)
        # Dealt at once, far sooner than the wait would have.
        assert time.time() - asked < 2.0


async def test_quick_play_takes_a_bots_seat_at_a_table_between_deals() -> None:
    async with running(deal_pause=0.0) as server:
        host = await Session.open(url(server), "Host")
        await host.send(CreateTable(seed="quick-live", deals=3, result_wait=WAIT))
        seated = await host.wait_for(Seated)
        await host.send(StartGame())
        await autoplay(host, random.Random(3), lambda v: v.status == "between_deals", timeout=30)
        # The table is public, between deals, with three bots: quick play seats
        # the newcomer there rather than opening a table of its own.
        late = await Session.open(url(server), "Late")
        await eventually(  # the lobby lists the table's status (debounced)
            lambda: (
                late.lobby is not None
                and any(
                    t.table_id == seated.table_id and t.status == "between_deals"
                    for t in late.lobby.tables
                )
            ),
            what="the lobby listing the table between deals",
        )
        await late.send(QuickPlay(rid=4))
        got = await late.wait_for(Seated, Error)
        assert isinstance(got, Seated) and got.table_id == seated.table_id
        assert got.seat in (1, 2, 3)
        view = await host.wait_view(lambda v: v.seats[got.seat].kind == "human")
        assert view.seats[got.seat].name == "Late"
        assert got.seat not in view.ready  # the newcomer has not read the result yet
        assert len(server.lobby.tables) == 1
        await late.send(Leave())
        await host.close()
        await late.close()

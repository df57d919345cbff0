"""Quick play gathers people, over real WebSockets (issue 33, items 2 and 3):
two people pressing quick play within the gathering time sit at one table,
at 3, 4 and 5 players; the table starts by itself when the time is up (the
server's clock is the test's); a finished table leaves the lobby."""

from __future__ import annotations

import random

import pytest

from clients.session import Session
from protocol.messages import CreateTable, Error, QuickPlay, Seated, StartGame
from tests.support.clients import autoplay, finished
from tests.support.clock import ManualClock
from tests.support.servers import running, url
from tests.support.waits import eventually

GATHER = 15.0


@pytest.mark.parametrize("players", [3, 4, 5])
async def test_two_quick_players_within_the_gathering_time_sit_together(players: int) -> None:
    clock = ManualClock()
    async with running(quick_gather=GATHER, clock=clock) as server:
        ann = await Session.open(url(server), "Ann")
        await ann.send(QuickPlay(players=players))
        first = await ann.wait_for(Seated, Error)
        assert isinstance(first, Seated)
        view = await ann.wait_view(lambda v: v.gather_until is not None)
        assert view.status == "waiting" and view.gather_until == clock.time() + GATHER
        clock.advance(GATHER - 3)  # 12 s later, someone else presses quick play
        bea = await Session.open(url(server), "Bea")
        await bea.send(QuickPlay(players=players))
        second = await bea.wait_for(Seated, Error)
        assert isinstance(second, Seated)
        assert second.table_id == first.table_id and second.seat != first.seat
        view = await bea.wait_view(lambda v: v.status == "waiting")
        assert [s.name for s in view.seats if s.kind == "human"] == ["Ann", "Bea"]
        assert view.gather_until is not None and view.gather_until - clock.time() == 3.0
        # The time is up: bots fill the free seats, the game starts for both.
        clock.advance(3.0)
        for s in (ann, bea):
            view = await s.wait_view(lambda v: v.status != "waiting")
            kinds = [seat.kind for seat in view.seats]
            assert kinds.count("human") == 2 and kinds.count("bot") == players - 2
            assert view.gather_until is None
        assert len(server.lobby.tables) == 1
        for s in (ann, bea):
            await s.close()


async def test_a_quick_table_full_of_people_starts_without_waiting() -> None:
    clock = ManualClock()
    async with running(quick_gather=GATHER, clock=clock) as server:
        people = [await Session.open(url(server), name) for name in ("Ann", "Bea", "Cid")]
        for s in people:
            await s.send(QuickPlay(players=3))
            await s.wait_for(Seated)
        for s in people:
            view = await s.wait_view(lambda v: v.status != "waiting")
            assert [seat.kind for seat in view.seats] == ["human"] * 3
        for s in people:
            await s.close()


async def test_anyone_seated_starts_a_quick_table_now() -> None:
    clock = ManualClock()
    async with running(quick_gather=GATHER, clock=clock) as server:
        ann, bea = [await Session.open(url(server), n) for n in ("Ann", "Bea")]
        for s in (ann, bea):
            await s.send(QuickPlay())
            await s.wait_for(Seated)
        await bea.send(StartGame())  # Bea did not open it: "Start now" is for anyone seated
        view = await ann.wait_view(lambda v: v.status != "waiting")
        assert [s.kind for s in view.seats] == ["human", "human", "bot", "bot"]
        for s in (ann, bea):
            await s.close()


async def test_a_finished_table_leaves_the_lobby() -> None:
    async with running() as server:
        watcher = await Session.open(url(server), "Watcher")
        wen = await Session.open(url(server), "Wen")
        await wen.send(CreateTable(name="One deal", deals=1, bot_level="random", seed="over"))
        await wen.wait_for(Seated)
        await eventually(lambda: [t.name for t in watcher.lobby.tables] == ["One deal"])  # type: ignore[union-attr]
        await wen.send(StartGame())
        await autoplay(wen, random.Random(3), finished)
        # Over, though Wen is still there: no Join in anyone's lobby (a Join
        # would take a bot's seat and score); quick play does not go there.
        await eventually(lambda: watcher.lobby.tables == [])  # type: ignore[union-attr]
        late = await Session.open(url(server), "Late")
        await late.send(QuickPlay())
        got = await late.wait_for(Seated)
        assert got.table_id != wen.table_id
        for s in (watcher, wen, late):
            await s.close()

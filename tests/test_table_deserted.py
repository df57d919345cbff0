"""A table its players left before it started, after it finished or in the
middle of its game (bots would play on for nobody) closes and leaves the
lobby, over real WebSockets; a dropped connection is not leaving. With two
processes on one Redis, every process's lobby drops it."""

from __future__ import annotations

import random

import pytest

from clients.session import Session
from protocol.messages import (
    CreateTable,
    Error,
    JoinTable,
    Leave,
    Left,
    Seated,
    StartGame,
    Watch,
)
from server.store.redis import RedisStore
from tests.support.clients import autoplay, finished
from tests.support.redis import RedisServer
from tests.support.servers import running, url
from tests.support.waits import eventually


def listed(s: Session) -> dict[str, int]:
    """The tables ``s``'s lobby lists: name -> humans."""
    return {t.name: t.humans for t in (s.lobby.tables if s.lobby else [])}


async def create(s: Session, name: str, **kw: object) -> Seated:
    await s.send(CreateTable(name=name, seed="deserted", **kw))  # type: ignore[arg-type]
    seated = await s.wait_for(Seated, Error)
    assert isinstance(seated, Seated), seated
    await s.wait_view(lambda v: v.table_id == seated.table_id)
    return seated


async def no_such_table(s: Session, **where: str) -> None:
    await s.send(JoinTable(**where))
    error = await s.wait_for(Error)
    assert error.code == "no_such_table", error


async def test_a_table_left_before_it_starts_leaves_the_lobby() -> None:
    async with running() as server:
        browser = await Session.open(url(server), "Browser")
        wen = await Session.open(url(server), "Wen")
        seated = await create(wen, "Wen's table")
        invite = (await wen.wait_view(lambda v: v.invite_code is not None)).invite_code
        assert invite is not None
        bob = await Session.open(url(server), "Bob")
        await bob.send(JoinTable(table_id=seated.table_id))
        await bob.wait_for(Seated)
        cat = await Session.open(url(server), "Cat")
        await cat.send(Watch(table_id=seated.table_id))
        await cat.wait_for(Seated)
        await eventually(lambda: listed(browser) == {"Wen's table": 2})

        # One of two leaves: the table stays, with its other player as creator.
        await wen.send(Leave())
        await wen.wait_for(Left)
        await eventually(lambda: listed(browser) == {"Wen's table": 1})
        view = await bob.wait_view(lambda v: v.seats[0].kind == "empty")
        assert view.creator == bob.seat

        # The last one leaves: nobody could start it any more, so it closes.
        await bob.send(Leave())
        assert (await bob.wait_for(Left)).reason == "you left the table"
        await eventually(lambda: listed(browser) == {} and listed(wen) == {} and listed(bob) == {})
        closed = await cat.wait_for(Left)
        assert (closed.table_id, closed.reason) == (seated.table_id, "the table closed")
        await no_such_table(wen, table_id=seated.table_id)
        await no_such_table(wen, code=invite)
        for s in (browser, wen, bob, cat):
            await s.close()


async def test_a_dropped_connection_is_not_leaving() -> None:
    async with running() as server:
        browser = await Session.open(url(server), "Browser")
        wen = await Session.open(url(server), "Wen")
        seated = await create(wen, "Wen's table")
        await eventually(lambda: listed(browser) == {"Wen's table": 1})
        await wen.ws.close()  # the connection drops; Wen did not leave
        await eventually(lambda: bool(browser.lobby and browser.lobby.players_online == 1))
        assert listed(browser) == {"Wen's table": 1}  # still there, Wen's seat held
        back = await wen.reconnect()
        assert isinstance(back, Seated) and back.table_id == seated.table_id
        view = await wen.wait_view(lambda v: v.seats[seated.seat or 0].connected)
        assert view.creator == seated.seat  # still the creator: may start
        await wen.send(StartGame())
        await wen.wait_view(lambda v: v.status == "playing")
        await browser.close()
        await wen.close()


async def test_a_finished_table_closes_when_its_last_player_leaves() -> None:
    async with running() as server:
        wen = await Session.open(url(server), "Wen")
        seated = await create(wen, "One deal", deals=1, bot_level="random")
        await wen.send(StartGame())

        await autoplay(wen, random.Random(3), finished)
        await wen.send(Leave())
        await wen.wait_for(Left)
        await eventually(lambda: seated.table_id not in server.lobby.tables)
        await no_such_table(wen, table_id=seated.table_id)
        await wen.close()


async def test_a_game_its_last_player_leaves_is_not_played_on_by_bots() -> None:
    async with running() as server:
        browser = await Session.open(url(server), "Browser")
        wen = await Session.open(url(server), "Wen")
        seated = await create(wen, "Wen's table")
        bob = await Session.open(url(server), "Bob")
        await bob.send(JoinTable(table_id=seated.table_id))
        await bob.wait_for(Seated)
        await wen.send(StartGame())
        await wen.wait_view(lambda v: v.status == "playing")
        cat = await Session.open(url(server), "Cat")
        await cat.send(Watch(table_id=seated.table_id))
        await cat.wait_for(Seated)
        await eventually(lambda: listed(browser) == {"Wen's table": 2})

        # One of two leaves mid-game: a bot plays on for Bob's partner.
        await wen.send(Leave())
        await wen.wait_for(Left)
        await eventually(lambda: listed(browser) == {"Wen's table": 1})
        await bob.wait_view(lambda v: v.seats[seated.seat or 0].kind == "bot")

        # The last one leaves: a game of bots for nobody is not played on.
        await bob.send(Leave())
        assert (await bob.wait_for(Left)).reason == "you left the table"
        await eventually(lambda: listed(browser) == {} and listed(bob) == {})
        closed = await cat.wait_for(Left)
        assert (closed.table_id, closed.reason) == (seated.table_id, "the table closed")
        await no_such_table(browser, table_id=seated.table_id)
        for s in (browser, wen, bob, cat):
            await s.close()


@pytest.mark.redis
async def test_every_process_drops_a_table_left_before_it_starts(
    redis_server: RedisServer,
) -> None:
    # Two processes of one service: the table is served by one, listed by both.
    stores = [await RedisStore.connect(redis_server.url) for _ in range(2)]
    async with (
        running(store=stores[0], redis_url=redis_server.url) as one,
        running(store=stores[1], redis_url=redis_server.url) as two,
    ):
        browser = await Session.open(url(two), "Browser")
        wen = await Session.open(url(one), "Wen")
        seated = await create(wen, "Wen's table")
        invite = (await wen.wait_view(lambda v: v.invite_code is not None)).invite_code
        assert invite is not None
        await eventually(lambda: listed(browser) == {"Wen's table": 1})
        await wen.send(Leave())
        await wen.wait_for(Left)
        await eventually(lambda: listed(browser) == {})
        await eventually(lambda: seated.table_id not in two.lobby.listings)
        await no_such_table(browser, table_id=seated.table_id)
        await no_such_table(browser, code=invite)
        assert seated.table_id not in await stores[0].open_tables()
        await browser.close()
        await wen.close()

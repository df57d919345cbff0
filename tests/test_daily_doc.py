"""The daily game as docs/PROTOCOL.md §11 tells it, end to end: a real
server, real WebSocket clients, with and without a real redis-server.

Each test is one sentence of the document that a client written from the
document alone found the server not keeping (issue 27)."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clients.session import Session
from protocol.codec import SUBPROTOCOL_JSON
from protocol.messages import (
    Daily,
    DailyResult,
    Error,
    GetLeaderboard,
    Leaderboard,
    PlayerInfo,
    Rename,
    Seated,
)
from protocol.views import TableView
from server.base.players import new_key
from server.daily.redis_board import RedisBoard
from server.process.app import Server
from server.store.redis import RedisStore
from tests.support.clients import Taker, autoplay, finished
from tests.support.redis import RedisServer
from tests.support.servers import running, url

DAY = 1_750_000_000.0  # 2025-06-15, 15:06 UTC

ANNULLED_FIRST = "test-daily-secret-001401"
"""A daily secret whose day ``DAY`` deals a petit sec first (the deal is
annulled as it is dealt, whatever anyone bids), then a deal that is played
(the player below always bids, so it is never all passes)."""


@contextlib.asynccontextmanager
async def daily_server(
    request: pytest.FixtureRequest, redis: bool, **overrides: Any
) -> AsyncIterator[Server]:
    """A server whose daily game is on ``DAY``: in memory, or on a fresh Redis."""
    if redis:
        redis_server: RedisServer = request.getfixturevalue("redis_server")
        store = await RedisStore.connect(redis_server.url)
        async with running(store=store, redis_url=redis_server.url, **overrides) as server:
            server.daily.clock = lambda: DAY
            yield server
    else:
        async with running(**overrides) as server:
            server.daily.clock = lambda: DAY
            yield server


async def player(
    server: Server, name: str, key: str | None = None, register: bool = True
) -> Session:
    # JSON, as a client written from the document would most likely speak.
    return await Session.open(
        url(server), name, key=key or new_key(), register=register, subprotocol=SUBPROTOCOL_JSON
    )


async def play_daily(s: Session, rng: random.Random) -> tuple[TableView, DailyResult]:
    await s.send(Daily())
    seated = await s.wait_for(Seated, Error)
    assert isinstance(seated, Seated), seated
    view = await autoplay(s, rng, finished)
    return view, await s.wait_for(DailyResult)


@pytest.mark.parametrize("redis", [False, pytest.param(True, marks=pytest.mark.redis)])
async def test_an_annulled_daily_deal_counts_and_the_next_takes_the_next_number(
    request: pytest.FixtureRequest, redis: bool
) -> None:
    # §11.2: "annulled deals count". The deal dealt after an annulled one is
    # deal 2, in the view, on the score sheet and in daily_result alike; at
    # game over the view shows the game's count (deal 2 of 2), not "deal 1".
    async with daily_server(request, redis, daily_deals=2, daily_secret=ANNULLED_FIRST) as server:
        s = await player(server, "Ann")
        s.received = []  # every message, with the view after it
        view, result = await play_daily(s, Taker(1))
        seen: list[int] = []
        for _, v in s.received:
            if v is not None and v.deal is not None and v.deal.number not in seen:
                seen.append(v.deal.number)
        assert seen == [1, 2]
        assert view.deal is not None and view.deal.number == 2 == view.deals
        assert [line.number for line in view.sheet] == [1, 2]
        assert view.sheet[0].annulled == "petit_sec" and view.sheet[1].annulled is None
        assert view.ranking is not None and sorted(view.ranking) == [0, 1, 2, 3]
        assert [d.deal for d in result.result.deals] == [1, 2]
        assert result.result.deals[0].points == 0  # an annulled deal scores nothing
        await s.close()


@pytest.mark.parametrize("redis", [False, pytest.param(True, marks=pytest.mark.redis)])
async def test_each_deal_is_compared_with_the_other_players_only(
    request: pytest.FixtureRequest, redis: bool
) -> None:
    # §11.4: others, beaten, tied count the *other* players: the first
    # player has nobody to compare with, the second has one.
    async with daily_server(request, redis, daily_deals=1) as server:
        first = await player(server, "Ann")
        _, one = await play_daily(first, random.Random(1))
        line = one.result.deals[0]
        assert (line.players, line.others, line.beaten, line.tied) == (1, 0, 0, 0)
        assert line.percent == 50.0
        second = await player(server, "Bob")
        _, two = await play_daily(second, random.Random(2))
        line = two.result.deals[0]
        assert (line.players, line.others) == (2, 1)
        mine, theirs = line.points, one.result.deals[0].points
        assert (line.beaten, line.tied) == (int(mine > theirs), int(mine == theirs))
        assert line.percent == 100.0 * (line.beaten + line.tied / 2)
        await first.close()
        await second.close()


@pytest.mark.redis
async def test_the_leaderboard_lists_a_result_as_soon_as_daily_result_is_sent(
    redis_server: RedisServer,
) -> None:
    # README: each deal against everyone's, "then the leaderboard". Two
    # processes of one service on one Redis; each has just read the board, so
    # neither rebuilds it on a read for an hour: the result must be in the
    # board before daily_result goes out, whichever process is asked next.
    key = new_key()
    stores = [await RedisStore.connect(redis_server.url) for _ in range(2)]
    async with (
        running(store=stores[0], redis_url=redis_server.url, daily_deals=1) as one,
        running(store=stores[1], redis_url=redis_server.url, daily_deals=1) as two,
    ):
        for server in (one, two):
            server.daily.clock = lambda: DAY
            assert isinstance(server.daily.board, RedisBoard)
            server.daily.board.refresh_s = 3600.0
        eve = await player(one, "Eve", key)
        elsewhere = await player(two, "Eve", key, register=False)
        for s in (eve, elsewhere):
            await s.send(GetLeaderboard(period="today"))
            assert (await s.wait_for(Leaderboard)).view.total == 0
        _, result = await play_daily(eve, random.Random(5))
        for s in (eve, elsewhere):
            await s.send(GetLeaderboard(period="today"))
            board = (await s.wait_for(Leaderboard)).view
            assert board.total == 1
            assert board.own is not None and board.own.you and board.own.name == "Eve"
            assert board.own.points == result.result.points
        await eve.close()
        await elsewhere.close()


@pytest.mark.parametrize("redis", [False, pytest.param(True, marks=pytest.mark.redis)])
async def test_an_unknown_period_is_bad_period(request: pytest.FixtureRequest, redis: bool) -> None:
    # §11.5: "bad_period: leaderboard with an unknown period or a negative page".
    async with daily_server(request, redis) as server:
        s = await player(server, "Cy")
        for rid, body in (
            (5, {"period": "month"}),
            (6, {"period": ""}),
            (7, {"period": "today", "page": -1}),
        ):
            await s.send_raw(json.dumps({"t": "leaderboard", "rid": rid, **body}))
            error = await s.wait_for(Error)
            assert (error.code, error.rid) == ("bad_period", rid)
        await s.send_raw(json.dumps({"t": "leaderboard", "rid": 8, "period": "week"}))
        assert (await s.wait_for(Leaderboard)).rid == 8
        await s.close()


@pytest.mark.parametrize("redis", [False, pytest.param(True, marks=pytest.mark.redis)])
async def test_a_refused_rename_does_not_start_the_wait(
    request: pytest.FixtureRequest, redis: bool
) -> None:
    # §11.2 limits name *changes*: a rename refused for its name changes
    # nothing, so a free name right after it is taken; a change starts the wait.
    async with daily_server(request, redis) as server:
        await (await player(server, "Dee")).close()
        s = await player(server, "Ed")
        await s.send(Rename(name="dee"))
        assert (await s.wait_for(Error)).code == "name_taken"
        await s.send(Rename(name="Ed\tTab"))
        assert (await s.wait_for(Error)).code == "bad_name"
        await s.send(Rename(name="Eddie"))
        renamed = await s.wait_for(PlayerInfo, Error)
        assert isinstance(renamed, PlayerInfo), renamed
        assert (renamed.player_id, renamed.name) == (s.player_id, "Eddie")
        await s.send(Rename(name="Edward"))
        assert (await s.wait_for(Error)).code == "rate_limited"
        await s.close()

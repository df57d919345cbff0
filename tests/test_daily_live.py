"""The daily game end to end: a real server, real WebSocket clients with
player keys, a real redis-server; restarts are a second server on the same
Redis."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from clients.session import ServerError, Session
from protocol.messages import (
    Daily,
    DailyResult,
    Error,
    GetLeaderboard,
    Leaderboard,
    Leave,
    Left,
    PlayerInfo,
    Rename,
    Seated,
    Watch,
)
from server.base.players import new_key
from server.daily.deals import DailyTag, day_start
from server.daily.mode import DailyMode
from server.process.app import Server
from server.store.redis import RedisStore
from tests.support.clients import Taker, autoplay, finished
from tests.support.redis import RedisServer
from tests.support.servers import running, url

pytestmark = pytest.mark.redis

DAY = 1_750_000_000.0  # 2025-06-15, 15:06 UTC
NEXT_DAY = DAY + 86400


def on(server: Server, now: float) -> None:
    server.daily.clock = lambda: now


async def player(server: Server, name: str, key: str | None = None) -> Session:
    key = key or new_key()
    try:
        return await Session.open(url(server), name, key=key, register=True)
    except ServerError:
        raise


async def start_daily(s: Session) -> Seated:
    await s.send(Daily())
    seated = await s.wait_for(Seated, Error)
    assert isinstance(seated, Seated), seated
    return seated


async def first_hand(s: Session) -> tuple[int | None, list[str]]:
    view = await s.wait_view(lambda v: v.deal is not None and len(v.hand) == 18)
    assert view.deal is not None
    return view.deal.dealer, list(view.hand)


def get_json(server: Server, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as r:
        return json.loads(r.read())


async def test_two_players_same_deals_one_board_and_no_second_attempt(
    redis_server: RedisServer,
) -> None:
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, redis_url=redis_server.url, daily_deals=2) as server:
        on(server, DAY)
        spec = server.daily.spec()
        hands = []
        for name in ("Ann", "Bob"):
            s = await player(server, name)
            seated = await start_daily(s)
            assert seated.seat == spec.seat
            hands.append(await first_hand(s))
            await autoplay(s, random.Random(name), finished)
            result = (await s.wait_for(DailyResult)).result
            assert result.ranked and len(result.deals) == 2
            assert all(d.players >= 1 for d in result.deals)
            # Finished: the same command gives a practice game, unranked.
            await s.send(Leave())
            await s.wait_for(Left)
            practice = await start_daily(s)
            assert practice.table_id != seated.table_id
            view = await s.wait_view(lambda v: "practice" in v.name)
            assert view.private
            await s.close()
        assert hands[0] == hands[1]
        assert await server.daily.board.result(spec.day, "nobody") is None
        _, total = await server.daily.board.page("today", DAY, 0, 20)
        assert total == 2  # one ranked result each, practice games not counted

        # A guest plays as before but has no daily game and no line.
        guest = await Session.open(url(server), "Guest")
        await guest.send(Daily())
        assert (await guest.wait_for(Error)).code == "guest"
        await guest.send(GetLeaderboard(period="today"))
        board = (await guest.wait_for(Leaderboard)).view
        assert board.total == 2 and board.own is None
        assert {x.name for x in board.lines} == {"Ann", "Bob"}
        await guest.close()

        # The next day: a new ranked attempt on other cards.
        on(server, NEXT_DAY)
        s = await player(server, "Cat")
        await start_daily(s)
        assert await first_hand(s) != hands[0]
        await s.close()


async def test_restart_mid_daily_resumes_the_attempt_and_boards_survive(
    redis_server: RedisServer,
) -> None:
    key = new_key()
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, redis_url=redis_server.url, daily_deals=1) as server:
        on(server, DAY)
        done = await player(server, "Dan")
        await start_daily(done)
        await autoplay(done, random.Random(1), finished)
        await done.wait_for(DailyResult)
        await done.close()
        s = await player(server, "Eve", key)
        seated = await start_daily(s)
        view = await autoplay(s, Taker(2), lambda v: bool(v.deal and v.deal.tricks))
        played = len(view.deal.tricks) if view.deal else 0
        # Nobody else may sit or watch while Eve plays.
        other = await player(server, "Fay")
        await other.send(Watch(table_id=seated.table_id))
        assert (await other.wait_for(Error)).code == "daily_private"
        await other.close()
        await s.close()
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, redis_url=redis_server.url, daily_deals=1) as server:
        on(server, DAY)
        # Another machine (no resume token), same key: the same attempt.
        s = await Session.open(url(server), "Eve", key=key)
        again = await start_daily(s)
        assert again.table_id == seated.table_id
        view = await s.wait_view(lambda v: v.deal is not None)
        assert view.deal is not None and len(view.deal.tricks) >= played
        await autoplay(s, random.Random(3), finished)
        result = (await s.wait_for(DailyResult)).result
        assert result.ranked and result.deals[0].players == 2
        body = await asyncio.to_thread(get_json, server, "/leaderboard?period=today")
        assert body["total"] == 2
        assert {line["name"] for line in body["lines"]} == {"Dan", "Eve"}
        await s.send(GetLeaderboard(period="today"))
        own = (await s.wait_for(Leaderboard)).view.own
        assert own is not None and own.you and own.name == "Eve"
        await s.close()


async def test_keys_and_names_are_checked(redis_server: RedisServer) -> None:
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, redis_url=redis_server.url) as server:
        for key, register, name, code in (
            ("not-a-key", True, "Gus", "bad_key"),
            (new_key(), False, "Gus", "unknown_key"),
            (new_key(), True, "Gus\u00a0B", "bad_name"),
        ):
            with pytest.raises(ServerError) as refused:
                await Session.open(url(server), name, key=key, register=register)
            assert refused.value.code == code  # type: ignore[attr-defined]
        first = await player(server, "Hal")
        with pytest.raises(ServerError) as refused:
            await player(server, "hal")
        assert refused.value.code == "name_taken"  # type: ignore[attr-defined]
        await first.send(Rename(name="Hal 2"))
        assert (await first.wait_for(PlayerInfo)).name == "Hal 2"
        await first.send(Rename(name="Hal 3"))
        assert (await first.wait_for(Error)).code == "rate_limited"
        await first.close()
        assert await server.daily.players.names([first.player_id or ""]) == {
            first.player_id: "Hal 2"
        }
    assert day_start  # the clock of these tests is fixed by ``on``


async def test_a_daily_table_stored_before_modes_is_served_again_as_a_daily_table(
    redis_server: RedisServer,
) -> None:
    # A daily table as the server before table modes stored it (its tag under
    # ``daily``, no ``mode``), playing: served again from Redis after an upgrade.
    blob = Path(__file__).resolve().parent / "data" / "daily-state-before-modes.msgpack"
    store = await RedisStore.connect(redis_server.url)
    await store.save("old-daily", 2, blob.read_bytes())
    async with running(store=store, redis_url=redis_server.url) as server:
        table = server.lobby.tables["old-daily"]
        tag = DailyTag(day="2025-06-15", player="player-eve", seat=2, deals=2, ranked=True)
        assert table.core.mode == DailyMode(tag) and table.core.state.status == "playing"
        other = await player(server, "Fay")  # nobody else may watch an unfinished attempt
        await other.send(Watch(table_id="old-daily"))
        assert (await other.wait_for(Error)).code == "daily_private"
        await other.close()

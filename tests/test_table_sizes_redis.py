"""Tables of three and five keep their games through a restart and a
failover, as tables of four do: real ``redis-server``, real server
processes (tests/cluster_helpers.py), real WebSocket clients."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.session import Session
from protocol.messages import (
    CreateTable,
    Error,
    GetHistory,
    History,
    JoinTable,
    Seated,
    StartGame,
)
from protocol.views import TableView
from server.game import replay_record
from tests.cluster_helpers import Proc
from tests.redis_server import RedisServer
from tests.server_helpers import autoplay, check_no_leaks

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]


@pytest.fixture
def procs(redis_server: RedisServer) -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in started:
        p.stop()


def _finished(v: TableView) -> bool:
    return v.status == "finished"


def _cards_played(v: TableView) -> int:
    d = v.deal
    if d is None:
        return 0
    return sum(len(t.cards) for t in d.tricks) + (len(d.trick.cards) if d.trick else 0)


def _policy(view: TableView) -> random.Random:
    """Choices that depend on the view only: two runs of one seeded game
    make the same moves whatever happens in between."""
    d = view.deal
    assert d is not None
    return random.Random(f"{d.number}/{d.dealer}/{d.phase}/{len(d.bids)}/{_cards_played(view)}")


async def _five(url: str, interrupt: Proc | None, restart: Proc | None) -> TableView:
    """One human and four bots at a seeded table of five; with ``interrupt``,
    its server is killed mid-trick and the game goes on on ``restart``."""
    s = await Session.open(url, "Alice", keep=True)
    await s.send(CreateTable(players=5, seed="five-restart", deals=2, bot_level="normal"))
    seated = await s.wait_for(Seated)
    await s.wait_view(lambda v: v.status == "waiting")
    await s.send(StartGame())
    if interrupt is not None and restart is not None:

        def mid_trick(v: TableView) -> bool:
            n = _cards_played(v)
            return v.status == "playing" and n >= 27 and n % 5 == 2

        before = await autoplay(s, _policy, mid_trick, timeout=60)
        assert before.deal is not None and before.deal.called is not None
        await asyncio.to_thread(interrupt.kill9)
        await asyncio.wait_for(s.closed.wait(), 15)
        await asyncio.to_thread(restart.start)
        s.url = restart.url
        assert isinstance(await s.reconnect(), Seated)
        view = await s.wait_view(lambda v: _cards_played(v) >= _cards_played(before))
        assert view.deal is not None and len(view.seats) == 5
        assert view.deal.called == before.deal.called  # the call survived
        assert seated.table_id == view.table_id
    final = await autoplay(s, _policy, _finished, timeout=120)
    await s.send(GetHistory())
    records = (await s.wait_for(History)).records
    assert len(records) == len(final.sheet)
    for record, line in zip(records, final.sheet, strict=True):
        assert record["players"] == 5
        assert replay_record(record)["scores"] == line.scores
    check_no_leaks(s, s.seat, records)
    await s.close()
    return final


async def test_a_five_player_game_killed_mid_deal_goes_on_after_a_restart_unchanged(
    redis_server: RedisServer, procs: list[Proc]
) -> None:
    """The same seeded game, played straight through and with its server
    killed (-9) mid-trick and another started on the same Redis, ends with
    the same deals and scores."""
    straight = Proc(redis_server.url, lease=1.0)
    procs.append(straight)
    await asyncio.to_thread(straight.start)
    expected = await _five(straight.url, None, None)
    first, second = Proc(redis_server.url, lease=1.0), Proc(redis_server.url, lease=1.0)
    procs.extend([first, second])
    await asyncio.to_thread(first.start)
    final = await _five(first.url, first, second)
    assert final.scores == expected.scores and len(final.scores) == 5
    assert [line.partner for line in final.sheet] == [line.partner for line in expected.sheet]


async def test_three_friends_lose_nothing_when_their_tables_process_dies(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path
) -> None:
    owner, other = (Proc(redis_server.url, lease=2.0) for _ in range(2))
    procs.extend([owner, other])
    for p in (owner, other):
        await asyncio.to_thread(p.start, tmp_path)
    players = [
        await Session.open(p.url, f"P{i}", keep=True) for i, p in enumerate((owner, other, other))
    ]
    await players[0].send(CreateTable(players=3, deals=2, private=True, seed="three-failover"))
    seated = await players[0].wait_for(Seated)
    for s in players[1:]:
        await s.send(JoinTable(table_id=seated.table_id))
        assert isinstance(await s.wait_for(Seated, Error), Seated)
    full = await players[0].wait_view(lambda v: all(x.kind == "human" for x in v.seats))
    assert len(full.seats) == 3
    await players[0].send(StartGame())
    rngs = [random.Random(i) for i in range(3)]
    games = [
        asyncio.create_task(autoplay(s, rngs[i], _finished, timeout=180))
        for i, s in enumerate(players[1:], start=1)
    ]

    def mid_trick(v: TableView) -> bool:
        n = _cards_played(v)
        return v.status == "playing" and n >= 20 and n % 3 == 1

    at_kill = await autoplay(players[0], rngs[0], mid_trick, timeout=120)
    await asyncio.to_thread(owner.kill9)
    await asyncio.wait_for(players[0].closed.wait(), 15)
    players[0].url = other.url
    assert isinstance(await players[0].reconnect(), Seated)
    games.append(asyncio.create_task(autoplay(players[0], rngs[0], _finished, timeout=180)))
    views = await asyncio.gather(*games)
    assert len({tuple(v.scores) for v in views}) == 1 and len(views[0].scores) == 3
    await players[1].send(GetHistory())
    records = (await players[1].wait_for(History)).records
    assert len(records) == len(views[0].sheet)
    assert _cards_played(at_kill) >= 20
    for record, line in zip(records, views[0].sheet, strict=True):
        assert record["players"] == 3
        assert replay_record(record)["scores"] == line.scores
    for s in players:
        # No acknowledged move was lost: every view is a prefix of the records.
        check_no_leaks(s, s.seat, records)
    for s in players[1:]:
        assert not s.closed.is_set()  # the others never noticed but a pause
        await s.close()
    await players[0].close()

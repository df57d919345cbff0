"""Redis persistence end to end: kill -9 and restart, Redis outages, expiry.

A real ``redis-server`` (tests/support/redis.py), a real server process for the
crash test, real WebSocket clients with their resume tokens.

Real time: a killed process, Redis outages and key expiry run on the
operating system's and Redis's clocks, which no clock of the test moves.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from clients.session import Session
from protocol.messages import Bye, CreateTable, Ping, Pong, Seated, StartGame
from protocol.views import TableView
from server.store.redis import RedisStore
from tests.support.clients import autoplay, choose
from tests.support.ports import free_port
from tests.support.processes import Proc
from tests.support.redis import RedisServer, RedisUnavailable
from tests.support.servers import running, url
from tests.support.waits import eventually

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]

ROOT = Path(__file__).resolve().parents[1]


def _policy_rng(view: TableView) -> random.Random:
    """The human's choices depend on the view only, so two runs of the same
    seeded game make the same moves whatever happens in between."""
    d = view.deal
    assert d is not None
    played = sum(len(t.cards) for t in d.tricks) + (len(d.trick.cards) if d.trick else 0)
    return random.Random(
        f"{d.number}/{d.dealer}/{d.phase}/{len(d.bids)}/{played}/{len(d.poignees)}"
    )


async def _play(s: Session, until: Any, timeout: float = 60) -> TableView:
    return await autoplay(s, _policy_rng, until, timeout)


def _cards_played(v: TableView) -> int:
    d = v.deal
    if d is None:
        return 0
    return sum(len(t.cards) for t in d.tricks) + (len(d.trick.cards) if d.trick else 0)


async def _game(port: int, name: str, interrupt: Any = None) -> list[int]:
    s = await Session.open(f"ws://127.0.0.1:{port}", name)
    await s.send(CreateTable(name="crash test", seed="kill-9", deals=2, bot_level="normal"))
    seated = await s.wait_for(Seated)
    await s.wait_view(lambda v: v.status == "waiting")
    await s.send(StartGame())
    if interrupt is not None:
        # Play into the middle of a trick of the first deal, then crash.
        await _play(
            s,
            lambda v: (
                v.status == "playing" and _cards_played(v) >= 30 and _cards_played(v) % 4 == 2
            ),
        )
        await interrupt()
        s = await _reconnect(port, name, seated.token)  # type: ignore[arg-type]
    final = await _play(s, lambda v: v.status == "finished", timeout=90)
    await s.close()
    return final.scores


async def _reconnect(port: int, name: str, token: str) -> Session:
    for _ in range(100):
        try:
            s = await Session.open(f"ws://127.0.0.1:{port}", name)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        reply = await s.resume(token)
        assert isinstance(reply, Seated), reply
        return s
    raise AssertionError("could not reconnect")


async def test_kill_9_mid_trick_then_restart_finishes_with_the_same_scores(
    redis_server: RedisServer,
) -> None:
    port = free_port()
    proc = Proc(redis_server.url, lease=5.0, port=port)  # the lease a server has by default
    proc.start()
    try:

        async def crash() -> None:
            await asyncio.to_thread(proc.kill9)
            await asyncio.to_thread(proc.start)

        interrupted = await _game(port, "Crash", crash)
        straight = await _game(port, "Calm")
    finally:
        # Off the event loop: the server waits for its clients' closing
        # handshakes, which this loop answers.
        await asyncio.to_thread(proc.stop)
    assert interrupted == straight
    assert sum(interrupted) == 0 and any(interrupted)


async def test_redis_outage_holds_a_claimed_table_until_its_move_is_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table with an owner epoch (every table on Redis) tells nobody of a
    move before it is stored: another process could take it over from Redis.
    Redis keeps its data here (append-only file), like a real outage.

    "Nobody hears" is a check that nothing comes: it holds through three
    refused retries of the write (each a chance to tell too soon), then a
    ``Ping``'s ``Pong`` shows nothing was on its way before it. Those retries
    run on the server's real clock (a manual one would also stop the lease
    renewals and bots this test needs running): about 0.35 s; then
    ``/healthz`` is asked until the server's own look at its store (once a
    second, on that clock) has seen it down."""
    try:
        redis = RedisServer("--appendonly", "yes", "--appendfsync", "always")
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with redis:
        store = await RedisStore.connect(redis.url)
        async with running(store=store, redis_url=redis.url, bot_think=0.01) as server:
            s = await Session.open(url(server), "Outage")
            await s.send(CreateTable(seed="outage", deals=1))
            seated = await s.wait_for(Seated)
            await s.send(StartGame())
            view = await _play(s, lambda v: _cards_played(v) >= 8 and bool(v.legal.cards))
            table = server.lobby.tables[seated.table_id]
            assert table.epoch > 0

            async def all_stored() -> bool:
                return (await store.load(table.id) or (0,))[0] == table.core.state.version

            await eventually(all_stored, what="the group commit's last save")
            seq, cards, stored = s.table_seq, _cards_played(view), table.core.state.version
            writes = _count_saves(monkeypatch, store)

            redis.stop()
            await s.send(choose(view, _policy_rng(view)))
            await eventually(lambda: table.unsaved, what="the table's save failing")
            # Held: the move is not stored, so nobody hears of it, however
            # often the table tries again.
            tried = len(writes)
            await eventually(
                lambda: len(writes) >= tried + 3, what="three more refused writes of the move"
            )
            assert table.held and not table.stale
            await s.send(Ping())
            await s.wait_for(Pong)  # anything told before it has come by now
            assert s.table_seq == seq and _cards_played(s.table) == cards  # type: ignore[arg-type]
            assert table.held and table.core.state.version > stored  # played, in memory only

            # The server looks at its store and bus once a second (its own timer).
            async def both_down() -> bool:
                health = await asyncio.to_thread(_health, server.port)
                return health["store_reachable"] is False and health["bus_subscribed"] is False

            await eventually(both_down, what="/healthz seeing the store and bus down", poll=0.05)
            health = await asyncio.to_thread(_health, server.port)
            assert health["status"] == "degraded" and health["unsaved_tables"] >= 1

            redis.start()  # with its data: the held write goes in, the game goes on
            await s.wait_view(lambda v: _cards_played(v) > cards, timeout=10)
            assert not table.held and not table.stale

            async def subscribed() -> bool:
                return bool((await asyncio.to_thread(_health, server.port))["bus_subscribed"])

            await eventually(subscribed, what="the bus subscriber back", poll=0.05)
            final = await _play(s, lambda v: v.status == "finished")
            assert final.ranking is not None
            # Nothing lost: the newest state and the deal's record are stored.
            await eventually(all_stored, what="the newest state stored")
            # The last record is the deal the client saw played through the outage.
            assert final.deal is not None
            last = json.loads((await store.records(table.id))[-1])
            assert last["tricks"] == [t.cards for t in final.deal.tricks]
        await store.close()


async def test_restart_serves_tables_again_with_timers_and_bots(
    redis_server: RedisServer,
) -> None:
    """In-process: a table saved by one server is served by the next one."""
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, redis_url=redis_server.url, bot_think=0.01) as server:
        s = await Session.open(url(server), "Twice")
        await s.send(CreateTable(seed="restore", deals=1, turn_timer=30))
        seated = await s.wait_for(Seated)
        await s.send(StartGame())
        # Stop at our own turn: the table then waits for us, so the deadline
        # seen is the one saved. (At a bot's turn, the bot's move and the
        # next deadline could be saved after the last view we read.)
        view = await _play(
            s,
            lambda v: (
                _cards_played(v) >= 5
                and v.deal is not None
                and v.deal.turn == seated.seat
                and v.deadline is not None
            ),
        )
        deadline = view.deadline
    store2 = await RedisStore.connect(redis_server.url)
    async with running(store=store2, redis_url=redis_server.url, bot_think=0.01) as server:
        assert seated.table_id in server.lobby.tables
        s = await _reconnect(server.port, "Twice", seated.token)  # type: ignore[arg-type]
        view = await s.wait_view(lambda v: v.deal is not None)
        assert _cards_played(view) >= 5
        if view.deal and view.deal.turn == seated.seat:
            assert view.deadline == deadline  # the timer re-armed from its deadline
        final = await _play(s, lambda v: v.status == "finished")
        assert final.ranking is not None


def _count_saves(monkeypatch: pytest.MonkeyPatch, store: RedisStore) -> list[str]:
    """The ids of the tables ``store`` is asked to save from now on, each time."""
    saves: list[str] = []
    real_save = store.save

    async def save(table_id: str, *args: Any, **kwargs: Any) -> None:
        saves.append(table_id)
        await real_save(table_id, *args, **kwargs)

    monkeypatch.setattr(store, "save", save)
    return saves


def _health(port: int) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as e:
        return json.loads(e.read())  # type: ignore[no-any-return]


os.environ.setdefault("PYTHONUNBUFFERED", "1")


async def test_sigterm_persists_says_goodbye_closes_1012_and_clients_resume(
    redis_server: RedisServer,
) -> None:
    port = free_port()
    proc = Proc(redis_server.url, lease=5.0, port=port)  # the lease a server has by default
    proc.start()
    try:
        s = await Session.open(f"ws://127.0.0.1:{port}", "Graceful")
        await s.send(CreateTable(seed="sigterm", deals=1))
        seated = await s.wait_for(Seated)
        await s.send(StartGame())
        before = await _play(s, lambda v: _cards_played(v) >= 6)
        assert proc.proc is not None
        proc.proc.send_signal(signal.SIGTERM)
        bye = await s.wait_for(Bye, timeout=10)
        assert bye.code == "restarting"
        await asyncio.wait_for(s.closed.wait(), 10)
        assert s.close_code == 1012
        # Wait off the event loop: the session must keep answering the
        # server's closing handshake while the process shuts down.
        assert await asyncio.to_thread(proc.proc.wait, 10) == 0
        await asyncio.to_thread(proc.start)
        back = await _reconnect(port, "Graceful", seated.token)  # type: ignore[arg-type]
        view = await back.wait_view(lambda v: v.deal is not None)
        assert _cards_played(view) >= _cards_played(before)
        final = await _play(back, lambda v: v.status == "finished")
        assert final.ranking is not None
    finally:
        # Off the event loop: the server waits for its clients' closing
        # handshakes, which this loop answers.
        await asyncio.to_thread(proc.stop)


async def test_a_deal_that_ends_while_redis_is_down_keeps_its_record(
    redis_server: RedisServer,
) -> None:
    """Without owner epochs (a store given to the server with no cluster node:
    nothing can take the table over), the table plays on through an outage;
    the record waits with the unsaved state and is written first when Redis is
    back. (With ``--redis`` the table holds instead:
    ``test_redis_outage_holds_a_claimed_table_until_its_move_is_stored``.)"""
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, bot_think=0.01) as server:
        s = await Session.open(url(server), "Records")
        await s.send(CreateTable(seed="records", deals=2))
        seated = await s.wait_for(Seated)
        await s.send(StartGame())
        await _play(s, lambda v: _cards_played(v) >= 40)
        redis_server.stop()
        # The first deal ends during the outage: its record cannot be written.
        await _play(s, lambda v: len(v.sheet) == 1)
        table = server.lobby.tables[seated.table_id]
        assert table.dirty is not None and len(table.records_due) == 1
        expected, key = table.records_due[0]
        assert key.startswith("0/")  # the first game's deal
        redis_server.start()  # comes back empty (no persistence in the test server)
        await eventually(lambda: table.dirty is None, what="the unsaved state written")
        assert table.records_due == []
        first = await store.records(seated.table_id)
        assert first == [expected]
        final = await _play(s, lambda v: v.status == "finished")
        records = [json.loads(r) for r in await store.records(seated.table_id)]
        assert len(records) == 2 == len(final.sheet)

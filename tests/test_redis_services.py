"""Two services on one Redis see nothing of each other (server/store/redis_keys.py).

A service is a Redis database and, within it, a namespace if one is set.
Every database of a Redis shares its pub/sub channels, so the channels'
names carry the database. Real ``redis-server`` (tests/support/redis.py),
real servers in this process with their cluster nodes, real WebSocket
clients.

Real time: the cluster's heartbeats cross Redis's pub/sub; showing that
nothing of one service reaches the other means waiting for heartbeats to
come.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable

import pytest

from clients.session import Session
from protocol.messages import (
    CreateTable,
    Daily,
    DailyResult,
    Error,
    GetLeaderboard,
    JoinTable,
    Leaderboard,
    LobbyPatch,
    LobbySnapshot,
    Seated,
)
from protocol.views import TableView
from server.base.players import new_key
from server.cluster.bus import PROBE, Message
from server.cluster.lease import Leases
from server.cluster.node import Node
from server.daily.redis_board import RedisBoard
from server.process.app import Server
from server.store.players import NameTaken
from server.store.redis import RedisStore
from server.store.redis_keys import Keys
from server.store.redis_players import RedisPlayers
from tests.support.clients import autoplay
from tests.support.redis import RedisServer
from tests.support.servers import running, url
from tests.support.waits import eventually

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]

LEASE = 1.0
"""Short: heartbeats every third of it, orphan scans every half."""


def on_db(redis_url: str, db: int) -> str:
    return f"{redis_url.rsplit('/', 1)[0]}/{db}"


async def _service(
    stack: contextlib.AsyncExitStack, redis_url: str, namespace: str, processes: int
) -> list[Server]:
    """``processes`` servers forming one service on ``redis_url`` and ``namespace``."""
    servers = []
    for _ in range(processes):
        store = await RedisStore.connect(redis_url, namespace=namespace)
        servers.append(
            await stack.enter_async_context(
                running(
                    store=store,
                    redis_url=redis_url,
                    redis_namespace=namespace,
                    lease=LEASE,
                    daily_deals=1,
                )
            )
        )
    return servers


def _store(server: Server) -> RedisStore:
    assert isinstance(server.store, RedisStore)
    return server.store


def _listed(s: Session) -> set[str]:
    return {t.name for t in (s.lobby.tables if s.lobby else [])}


async def _lobby_until(s: Session, test: Callable[[Session], bool]) -> None:
    try:
        async with asyncio.timeout(10):
            while not test(s):
                await s.wait_for(LobbyPatch, LobbySnapshot, timeout=10)
    except TimeoutError:
        online = s.lobby.players_online if s.lobby else None
        pytest.fail(f"{s.name}'s lobby: tables {_listed(s)}, {online} online")


def _heartbeats(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """The nodes' heartbeats from now on, by the process that sent them, and
    the processes that heard a ``PROBE`` (``_hear_back``) on their channel."""
    beats: list[str] = []
    probed: list[str] = []
    real_beat, real_heard = Node._beat, Node.heard

    def beat(self: Node) -> None:
        beats.append(self.proc)
        real_beat(self)

    def heard(self: Node, msg: Message) -> None:
        if msg == PROBE:
            probed.append(self.proc)
        real_heard(self, msg)

    monkeypatch.setattr(Node, "_beat", beat)
    monkeypatch.setattr(Node, "heard", heard)
    return beats, probed


async def _two_beats_then_hear_back(
    beats: list[str], probed: list[str], servers: list[Server]
) -> None:
    """Until every process has sent two more heartbeats, then heard a
    ``PROBE`` it sent itself after that (what a process asks of another it
    has not heard from: nothing happens on it). Redis's pub/sub keeps the
    order of what it is sent: whatever any process sent before reached its
    subscribers before the probes."""
    nodes = [s.node for s in servers]
    assert all(n is not None for n in nodes)
    since = len(beats)
    await eventually(
        lambda: all(beats[since:].count(n.proc) >= 2 for n in nodes if n is not None),
        what="two more heartbeats of every process",
    )
    heard = len(probed)
    for n in nodes:
        if n is not None:
            n.publish(n.proc, PROBE)
    await eventually(
        lambda: {n.proc for n in nodes if n is not None} <= set(probed[heard:]),
        what="every process hearing its own probe",
    )


async def _refused(s: Session, cmd: JoinTable) -> str:
    await s.send(cmd)
    got = await s.wait_for(Seated, Error)
    assert isinstance(got, Error), got
    return got.code


def _finished(v: TableView) -> bool:
    return v.status == "finished"


@pytest.mark.parametrize(
    "db, namespace", [(1, ""), (0, "blue")], ids=["database 1", "namespace on database 0"]
)
async def test_two_services_on_one_redis_see_nothing_of_each_other(
    redis_server: RedisServer, db: int, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Service A (database 0, one process) and service B (two processes,
    database ``db`` and ``namespace``): B's processes form one service among
    themselves, and neither service sees the other's tables, players
    online, invite codes, leases, players or daily board.

    "Sees nothing" is a check that nothing comes: it waits (on the real
    clock, the cluster's heartbeats cross Redis) until every process has
    beaten twice more and then heard a probe of its own sent after that, so
    anything the other service sent before had come by then."""
    beats = _heartbeats(monkeypatch)
    async with contextlib.AsyncExitStack() as stack:
        (a,) = await _service(stack, redis_server.url, "", 1)
        b1, b2 = await _service(stack, on_db(redis_server.url, db), namespace, 2)
        ann = await Session.open(url(a), "Ann")
        await ann.send(CreateTable(name="on A"))
        on_a = await ann.wait_for(Seated)
        cat = await Session.open(url(a), "Cat")
        await cat.send(CreateTable(name="private on A", private=True))
        await cat.wait_for(Seated)
        code = (await cat.wait_view(lambda v: v.invite_code is not None)).invite_code
        assert code is not None
        bob = await Session.open(url(b2), "Bob")
        await bob.send(CreateTable(name="on B"))
        on_b = await bob.wait_for(Seated)
        watch_a = await Session.open(url(a), "Watcher A")
        watch_b = await Session.open(url(b1), "Watcher B")

        # Each lobby: its own service's tables and players, B's across its
        # two processes (b2's table and player reach b1's watcher).
        def whole_a(s: Session) -> bool:
            return _listed(s) == {"on A"} and s.lobby is not None and s.lobby.players_online == 3

        def whole_b(s: Session) -> bool:
            return _listed(s) == {"on B"} and s.lobby is not None and s.lobby.players_online == 2

        await _lobby_until(watch_b, whole_b)
        await _lobby_until(watch_a, whole_a)
        # Two heartbeats more: whatever the other service sent meanwhile has
        # arrived, and changed nothing.
        await _two_beats_then_hear_back(*beats, [a, b1, b2])
        assert whole_a(watch_a) and whole_b(watch_b)

        # An invite code, or a table id, of one service is unknown to the other.
        assert await _refused(watch_b, JoinTable(code=code)) == "no_such_table"
        assert await _refused(watch_b, JoinTable(table_id=on_a.table_id)) == "no_such_table"
        assert await _refused(watch_a, JoinTable(table_id=on_b.table_id)) == "no_such_table"

        # Leases: each service's own, and its orphan scans (every half lease,
        # run meanwhile) took nothing of the other's.
        leases_a = Leases(_store(a), "probe", lease_s=LEASE, expire_s=60)
        leases_b = Leases(_store(b1), "probe", lease_s=LEASE, expire_s=60)
        assert a.node is not None and b2.node is not None
        assert await leases_a.holder(on_a.table_id) == a.node.proc
        assert await leases_a.holder(on_b.table_id) is None
        assert await leases_b.holder(on_b.table_id) == b2.node.proc
        assert await leases_b.holder(on_a.table_id) is None
        assert on_b.table_id not in a.lobby.tables and len(a.lobby.tables) == 2
        assert set(b2.lobby.tables) == {on_b.table_id} and not b1.lobby.tables

        # Players and the daily board: Dee plays A's daily game; B has no
        # line, and the name Dee is still free there.
        dee = await Session.open(url(a), "Dee", key=new_key(), register=True)
        await dee.send(Daily())
        assert isinstance(await dee.wait_for(Seated, Error), Seated)
        await autoplay(dee, random.Random(4), _finished)
        assert (await dee.wait_for(DailyResult)).result.ranked
        await watch_a.send(GetLeaderboard(period="today"))
        assert [x.name for x in (await watch_a.wait_for(Leaderboard)).view.lines] == ["Dee"]
        await watch_b.send(GetLeaderboard(period="today"))
        assert (await watch_b.wait_for(Leaderboard)).view.total == 0
        other_dee = await Session.open(url(b1), "Dee", key=new_key(), register=True)
        await other_dee.close()

        if namespace:
            # One database: B's keys are all under its namespace.
            tid = on_b.table_id.encode()
            assert await _store(a).pool.exists(b"atout:ns:blue:table:" + tid)
            assert not await _store(a).pool.exists(b"atout:table:" + tid)
        for s in (ann, cat, bob, watch_a, watch_b, dee):
            await s.close()


async def test_the_scripts_build_a_namespaces_key_names(redis_server: RedisServer) -> None:
    """The Lua scripts that reach keys they were not given (the open index's
    pruning, the orphan scan, freeing a dead process's leases, a rename, a
    daily result) stay in their namespace: two services on one database
    with the same table ids, names and days."""
    plain = await RedisStore.connect(redis_server.url)
    blue = await RedisStore.connect(redis_server.url, namespace="blue")
    assert blue.keys.table == b"atout:ns:blue:table:"
    try:
        for store in (plain, blue):
            await store.save("t1", 1, b"a", epoch=0)
            await store.save("t2", 1, b"b", epoch=0)
        await blue.save("t1", 2, b"blue's", epoch=0)
        assert await plain.load("t1") == (1, b"a")
        assert await blue.load("t1") == (2, b"blue's")
        # The open index drops blue's t2, gone, and keeps plain's.
        await blue.delete("t2")
        await blue.save("t2", 1, b"b", epoch=0)
        await blue.pool.pool.delete([blue.keys.table + b"t2"])  # type: ignore[attr-defined]
        assert await blue.open_tables() == ["t1"]
        assert await plain.open_tables() == ["t1", "t2"]
        # Leases: one process id in both; freeing blue's leaves plain's.
        old_plain, old_blue = (Leases(s, "old", 60, 60) for s in (plain, blue))
        assert await old_plain.claim("t1") == 1 and await old_blue.claim("t1") == 1
        assert await Leases(blue, "new", 60, 60).free_dead("old") == 1
        assert await old_plain.holder("t1") == "old" and await old_blue.holder("t1") is None
        assert await Leases(plain, "new", 60, 60).orphans(["t1", "t2"]) == ["t2"]
        assert await Leases(blue, "new", 60, 60).orphans(["t1", "t2"]) == ["t1"]
        # Players: one name in each, renamed in one only.
        ann_plain = await RedisPlayers(plain).register("digest", "Ann")
        ann_blue = await RedisPlayers(blue).register("digest", "Ann")
        assert ann_plain.id != ann_blue.id
        await RedisPlayers(blue).rename(ann_blue.id, "Anna")
        with pytest.raises(NameTaken):
            await RedisPlayers(plain).register("other", "Ann")
        await RedisPlayers(blue).register("other", "Ann")  # blue's Ann is Anna now
        # The daily board: a result in blue only.
        day, now = "2025-06-15", 1_750_000_000.0
        board_blue = RedisBoard(blue)
        assert await board_blue.claim(day, ann_blue.id, "t1") is None
        assert await board_blue.record(day, ann_blue.id, [40], now)
        assert (await board_blue.page("today", now, 0, 10))[1] == 1
        assert (await RedisBoard(plain).page("today", now, 0, 10))[1] == 0
        assert not await plain.pool.exists(Keys().daily + day.encode() + b":deal:0")
    finally:
        await plain.close()
        await blue.close()

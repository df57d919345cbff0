"""Many server processes on one Redis, one service (server/cluster/, docs/CLUSTER.md).

Real ``redis-server`` (tests/support/redis.py), real server processes
(tests/support/processes.py), real WebSocket clients.

Real time, not a manual clock: leases lapse on Redis's own clock (PEXPIRE)
and messages cross real processes and Redis's pub/sub, which no clock of
the test moves; the waits for a lapse or a delivery are real, with margins
for a busy machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import cast

import pytest
from structlog.testing import capture_logs

from clients.session import Session
from protocol.codec import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from protocol.errors import ErrorCode
from protocol.messages import (
    Bye,
    CreateTable,
    Error,
    GetHistory,
    History,
    JoinTable,
    Leave,
    LobbyPatch,
    LobbySnapshot,
    QuickPlay,
    Seated,
    StartGame,
)
from protocol.views import TableView
from server.cluster.bus import Claimed
from server.cluster.lease import Leases, RenewalFailed
from server.cluster.remote import HELD_MAX, HELD_PER_CONN
from server.game import replay_record
from server.link.conn import Conn
from server.store.base import StaleWrite
from server.store.redis import RedisStore
from server.table import Act, Gone
from server.table.inbox import Join, Peer
from tests.support.clients import autoplay, check_no_leaks
from tests.support.members import (
    Member,
    Wire,
    guest_at_a_remote_table,
    owner_lets_go,
    table_epoch,
    two_members,
)
from tests.support.processes import Proc, stop_all
from tests.support.redis import RedisServer, kill_subscribers
from tests.support.waits import eventually, patient

# What an owner that lost its table says, whichever told it first.
STEPPED_DOWN = {"lease_lost", "stale_table_stepped_down", "claimed_elsewhere"}

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]


@pytest.fixture
def procs(redis_server: RedisServer, tmp_path: Path) -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    stop_all(started)


# --- leases and fenced saves ----------------------------------------------------------


async def test_a_stale_owners_save_and_record_are_refused(store: RedisStore) -> None:
    old = Leases(store, "old", lease_s=0.2, expire_s=60)
    new = Leases(store, "new", lease_s=5, expire_s=60)
    # A renewal's own deadline is a quarter of the lease (50 ms here): on a
    # busy machine Redis's answer took longer, and this test is about the
    # epochs, not that deadline.
    old.renew_within_s = patient(1)
    first = await old.claim("t1", new=True)
    assert first == 1
    await store.save("t1", 1, b"one", epoch=first)
    assert await new.claim("t1") == 0  # held
    assert await new.holder("t1") is None or await new.holder("t1") == "old"
    # The old owner is paused past its lease: the lease lapses (on Redis's own
    # clock, its PEXPIRE of 200 ms), the new one claims.

    async def lapsed() -> bool:
        return await new.holder("t1") is None

    await eventually(lapsed, what="the old owner's lease lapsing")
    second = await new.claim("t1")
    assert second == 2 and await new.holder("t1") == "new"
    # The old owner wakes up: its writes are refused, whatever its version.
    with pytest.raises(StaleWrite) as refused:
        await store.save("t1", 7, b"stale", epoch=first)
    assert refused.value.epoch == 2
    await store.append_record("t1", b'{"stale": 1}', "0/1", epoch=first)
    assert await store.records("t1") == []
    assert await store.load("t1") == (1, b"one")
    # ... and its renewal says it lost the table; the new owner's goes on.
    assert await old.renew({"t1": first}) == ["t1"]
    assert await new.renew({"t1": second}) == []
    await store.save("t1", 2, b"two", epoch=second)
    await store.append_record("t1", b'{"deal": 1}', "0/1", epoch=second)
    assert await store.load("t1") == (2, b"two")
    assert await store.records("t1") == [b'{"deal": 1}']
    # A takeover claims only stored tables; an unknown id creates nothing.
    assert await new.claim("nothing-here") == 0
    assert await store.pool.exists(store.keys.table + b"nothing-here") is False
    # Released: another process may claim at once.
    await new.release("t1")
    assert await old.claim("t1") == 3


async def test_a_lapsed_lease_nobody_claimed_is_renewed(store: RedisStore) -> None:
    """A slow owner (or a Redis that lost its data) keeps its table if
    nobody else claimed it: the epoch is still its own."""
    leases = Leases(store, "slow", lease_s=0.05, expire_s=60)
    # Its renewal's own deadline, a quarter of the lease (12.5 ms), failed on
    # a busy machine (a soak run): this test is about the epoch, not that deadline.
    leases.renew_within_s = patient(1)
    epoch = await leases.claim("t2", new=True)
    await store.save("t2", 1, b"x", epoch=epoch)

    async def lapsed() -> bool:
        return await leases.holder("t2") is None

    # On Redis's own clock (the lease's PEXPIRE): the test's lease is 50 ms.
    await eventually(lapsed, what="the lease lapsing")
    # Renewed for a minute, not 50 ms: the renewed lease must outlive the read
    # below on a busy machine (CI on 3.12 once found it lapsed again).
    leases.lease_ms = b"60000"
    assert await leases.renew({"t2": epoch}) == []
    assert await leases.holder("t2") == "slow"
    assert await table_epoch(store, "t2") == epoch


# --- a paused owner -----------------------------------------------------------------


@contextlib.asynccontextmanager
async def _renewing(leases: Leases, table_id: str) -> AsyncIterator[None]:
    """Renew ``table_id``'s lease as its holder ``leases.proc`` would, every
    third of the lease, while the block runs (that process is frozen)."""
    epoch = await table_epoch(leases.store, table_id)

    async def renew() -> None:
        while True:
            try:
                lost = await leases.renew({table_id: epoch})
            except RenewalFailed as exc:  # Redis slow to answer: again, as the real one does
                lost = exc.lost
            assert lost == []
            await asyncio.sleep(int(leases.lease_ms) / 3000)

    task = asyncio.create_task(renew())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_paused_owner_writes_nothing_and_steps_down(
    redis_server: RedisServer, store: RedisStore, procs: list[Proc], tmp_path: Path
) -> None:
    lease = 3.0
    first = Proc(redis_server.url, "--grace", "0.1", lease=lease).start(tmp_path)
    procs.append(first)
    second = Proc(redis_server.url, "--grace", "0.1", lease=lease).start(tmp_path)
    procs.append(second)
    s = await Session.open(first.url, "Paused")
    await s.send(CreateTable(seed="paused", deals=8, bot_level="random"))
    seated = await s.wait_for(Seated)
    await s.send(StartGame())
    await s.wait_view(lambda v: v.status == "playing")
    await s.close()  # bots play on: the away human's turns after ``grace``
    table_id = seated.table_id
    leases = Leases(store, "test", lease_s=lease, expire_s=60)
    owner = await leases.holder(table_id)
    assert owner is not None
    epoch = await table_epoch(store, table_id)

    first.signal(signal.SIGSTOP)
    try:
        # The lease lapses; the other process takes the table over.
        async def taken_over() -> str | None:
            holder = await leases.holder(table_id)
            return holder if holder is not None and holder != owner else None

        await eventually(taken_over, timeout=20, what="the other process taking the table over")
        holder = await taken_over()
        assert holder is not None
        second.signal(signal.SIGSTOP)  # freeze the new owner: any write now is the old one's
        # ... but keep its lease, as its renewer would: a frozen owner's
        # table is an orphan once its lease lapses, and the old owner, awake
        # by then on a slow machine, would rightly take it back and write.
        async with _renewing(Leases(store, holder, lease_s=lease, expire_s=60), table_id):
            taken = await store.load(table_id)
            assert taken is not None
            records = await store.records(table_id)
            assert await table_epoch(store, table_id) == epoch + 1
            first.signal(signal.SIGCONT)
            # The old owner wakes with overdue timers (a bot's move, the renewal).
            await eventually(
                lambda: first.health()["tables"] == 0,
                timeout=20,
                what="the old owner stepping down (no table left)",
            )
            # Whichever told it first: its renewal, its save, or the new
            # owner's ``Claimed`` (with the higher epoch) waiting on its bus.
            # Said as it steps down: from then on its table writes nothing
            # (stale), and a write already sent meets the epoch's fence.
            await eventually(
                lambda: {e.get("event") for e in first.logs()} & STEPPED_DOWN,
                what="the old owner saying it stepped down",
            )
            assert await store.load(table_id) == taken  # wrote nothing
            assert await store.records(table_id) == records
            assert await table_epoch(store, table_id) == epoch + 1
            assert await leases.holder(table_id) == holder
            assert first.health()["tables"] == 0  # and took nothing back
    finally:
        first.signal(signal.SIGCONT)
        second.signal(signal.SIGCONT)
    # The new owner plays on.

    async def saved_later() -> bool:
        now = await store.load(table_id)
        return now is not None and now[0] > taken[0]

    await eventually(saved_later, timeout=20, what="the new owner saving a later version")


# --- one service ----------------------------------------------------------------------


def _finished(v: TableView) -> bool:
    return v.status == "finished"


async def _three(redis_server: RedisServer, procs: list[Proc], tmp_path: Path) -> list[Proc]:
    started = [
        await asyncio.to_thread(Proc(redis_server.url, lease=2.0).start, tmp_path) for _ in range(3)
    ]
    procs.extend(started)
    return started


async def test_four_clients_on_three_processes_play_a_whole_game(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path
) -> None:
    p = await _three(redis_server, procs, tmp_path)
    on = [p[0], p[1], p[2], p[1]]
    kinds = [SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON]
    players = [
        await Session.open(proc.url, f"P{i}", subprotocol=kind, keep=True)
        for i, (proc, kind) in enumerate(zip(on, kinds, strict=True))
    ]
    await players[0].send(CreateTable(name="spread", deals=2, private=True, seed="spread"))
    seated = await players[0].wait_for(Seated)
    code = (await players[0].wait_view(lambda v: v.invite_code is not None)).invite_code
    # By id on one process, by invite code on another: at once, before the
    # table's listing has reached the other processes (the code is in Redis
    # before its creator is seated).
    await players[1].send(JoinTable(table_id=seated.table_id))
    for s in players[2:]:
        await s.send(JoinTable(code=code))
    for s in players[1:]:
        got = await s.wait_for(Seated, Error)
        assert isinstance(got, Seated) and got.table_id == seated.table_id, got
    await players[0].wait_view(lambda v: all(x.kind == "human" for x in v.seats))
    await players[0].send(StartGame())
    views = await asyncio.gather(
        *(autoplay(s, random.Random(i), _finished, timeout=120) for i, s in enumerate(players))
    )
    # Every client's view is the same game, and the deal records say so too.
    assert len({tuple(v.scores) for v in views}) == 1
    assert len({repr(v.sheet) for v in views}) == 1
    await players[2].send(GetHistory())
    records = (await players[2].wait_for(History)).records
    assert len(records) == len(views[0].sheet)
    for record, line in zip(records, views[0].sheet, strict=True):
        assert replay_record(record)["scores"] == line.scores
    for s in players:
        assert s.snapshots_asked == 0  # no gap, no patch that failed
        check_no_leaks(s, s.seat, records)
        await s.close()
    # The game ran on one process only.
    assert sorted(proc.health()["tables"] for proc in p) == [0, 0, 1]


async def test_one_lobby_and_quick_play_across_processes(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path
) -> None:
    p = await _three(redis_server, procs, tmp_path)
    host = await Session.open(p[0].url, "Host")
    await host.send(CreateTable(name="on zero"))
    first = await host.wait_for(Seated)
    other = await Session.open(p[2].url, "Other")
    await other.send(CreateTable(name="on two", private=True))
    await other.wait_for(Seated)
    watcher = await Session.open(p[1].url, "Watcher")

    def listed(s: Session) -> set[str]:
        return {t.name for t in (s.lobby.tables if s.lobby else [])}

    for _ in range(100):
        if listed(watcher) == {"on zero"}:
            break
        await watcher.wait_for(LobbyPatch, LobbySnapshot, timeout=5)
    assert listed(watcher) == {"on zero"}  # the private one is not listed
    await eventually(
        lambda: watcher.lobby is not None and watcher.lobby.players_online == 3,
        what="the watcher's lobby counting the three players online",
        detail=lambda: f"online: {watcher.lobby.players_online if watcher.lobby else None}",
    )
    # Quick play from two other processes fills the waiting table on the first.
    quick: list[Session] = []
    for proc in (p[1], p[2]):
        s = await Session.open(proc.url, "Quick")
        quick.append(s)
        await s.send(QuickPlay())
        got = await s.wait_for(Seated, Error)
        assert isinstance(got, Seated) and got.table_id == first.table_id, got
    view = await host.wait_view(lambda v: sum(x.kind == "human" for x in v.seats) == 3)
    assert [x.name for x in view.seats][:3] == ["Host", "Quick", "Quick"]
    for s in (host, other, watcher, *quick):
        await s.close()


# --- failover and drain -----------------------------------------------------------------


def _cards_played(v: TableView) -> int:
    d = v.deal
    if d is None:
        return 0
    return sum(len(t.cards) for t in d.tricks) + (len(d.trick.cards) if d.trick else 0)


def _mid_trick(v: TableView) -> bool:
    return v.status == "playing" and _cards_played(v) >= 22 and _cards_played(v) % 4 == 2


async def _owner_goes_away(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path, how: signal.Signals
) -> float:
    """Four clients on three processes; the owner's process is killed (or
    drained) mid-trick; the game finishes. Returns the seconds from the
    signal to the first move the survivors saw after it."""
    p = await _three(redis_server, procs, tmp_path)
    on = [p[0], p[1], p[2], p[1]]
    players = [await Session.open(proc.url, f"P{i}", keep=True) for i, proc in enumerate(on)]
    await players[0].send(CreateTable(name="failover", deals=2, private=True, seed="failover"))
    seated = await players[0].wait_for(Seated)
    for s in players[1:]:
        await s.send(JoinTable(table_id=seated.table_id))
        assert isinstance(await s.wait_for(Seated, Error), Seated)
    assert p[0].health()["tables"] == 1  # the creator's process owns the table
    await players[0].wait_view(lambda v: all(x.kind == "human" for x in v.seats))
    await players[0].send(StartGame())
    survivors = players[1:]
    rngs = [random.Random(i) for i in range(4)]
    games = [
        asyncio.create_task(autoplay(s, rngs[i], _finished, timeout=180))
        for i, s in enumerate(survivors, start=1)
    ]
    # The owner's own client plays into the middle of a trick, then its
    # process goes: killed, or drained.
    at_kill = await autoplay(players[0], rngs[0], _mid_trick, timeout=120)
    seen = max(_cards_played(s.table) for s in players if s.table is not None)
    signalled = asyncio.get_running_loop().time()
    if how == signal.SIGKILL:
        await asyncio.to_thread(p[0].kill9)
    else:
        p[0].signal(how)
        bye = await players[0].wait_for(Bye, timeout=15)
        assert bye.code == "restarting"
    await asyncio.wait_for(players[0].closed.wait(), 15)

    async def come_back() -> TableView:
        # The owner's client reconnects to another process and resumes (its
        # turn may be next: the others wait for it).
        players[0].url = p[2].url
        assert isinstance(await players[0].reconnect(), Seated)
        return await autoplay(players[0], rngs[0], _finished, timeout=180)

    games.append(asyncio.create_task(come_back()))
    # The survivors see the game go on (the first move after the signal).
    # Polled: the session's events are their autoplay's to read.
    await eventually(
        lambda: survivors[0].table is not None and _cards_played(survivors[0].table) > seen,
        timeout=30,
        what="the survivors seeing a move after the signal",
    )
    took = asyncio.get_running_loop().time() - signalled
    assert survivors[0].table is not None
    assert _cards_played(survivors[0].table) > _cards_played(at_kill)
    views = await asyncio.gather(*games)
    assert len({tuple(v.scores) for v in views}) == 1
    await survivors[0].send(GetHistory())
    records = (await survivors[0].wait_for(History)).records
    assert len(records) == len(views[0].sheet) == 2
    for record, line in zip(records, views[0].sheet, strict=True):
        assert replay_record(record)["scores"] == line.scores
    for s in players:
        # Every view any client was ever sent, before and after the takeover,
        # is a prefix of the deal records: no acknowledged move was lost.
        check_no_leaks(s, s.seat, records)
    for s in survivors:
        assert not s.closed.is_set()  # never disconnected
        assert not [m for m, _ in s.received if isinstance(m, Bye)]
        await s.close()
    await players[0].close()
    return took


async def test_kill_9_of_the_owner_mid_trick_costs_nobody_their_game(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path
) -> None:
    took = await _owner_goes_away(redis_server, procs, tmp_path, signal.SIGKILL)
    # The lease (2 s) lapses, an orphan scan (every lease / 2, jittered) claims.
    assert took < 2.0 + 1.25 + 2.0, took


async def test_sigterm_drains_the_owners_tables_to_the_others(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path
) -> None:
    took = await _owner_goes_away(redis_server, procs, tmp_path, signal.SIGTERM)
    # Released, not lapsed: claimed at once, without waiting for the lease.
    assert took < 2.0, took


async def test_a_table_waiting_for_a_player_of_a_killed_process_goes_on(
    redis_server: RedisServer, procs: list[Proc], tmp_path: Path
) -> None:
    """The killed process's player must bid at a table of a survivor, and never
    comes back: nothing the table sends reaches that process then (it waits
    for the player). Its heartbeats stop: the survivor asks its channel,
    nobody listens, and a lease later its connections leave (``Gone``): the
    seat is away, a bot bids for it after ``grace``."""
    lease = 2.0
    survivor, doomed = [
        await asyncio.to_thread(
            Proc(redis_server.url, "--grace", "0.2", lease=lease).start, tmp_path
        )
        for _ in range(2)
    ]
    procs.extend([survivor, doomed])
    host = await Session.open(survivor.url, "Host", keep=True)
    await host.send(
        CreateTable(name="waits", deals=1, private=True, bot_level="random", seed="waits")
    )
    table_id = (await host.wait_for(Seated)).table_id
    guest = await Session.open(doomed.url, "Guest", keep=True)
    await guest.send(JoinTable(table_id=table_id))
    seated = await guest.wait_for(Seated, Error)
    assert isinstance(seated, Seated) and seated.seat is not None
    await host.wait_view(lambda v: sum(x.kind == "human" for x in v.seats) == 2)
    await host.send(StartGame())
    game = asyncio.create_task(autoplay(host, random.Random(1), _finished, timeout=60))
    loop = asyncio.get_running_loop()
    # Polled: the session's events are its autoplay's to read.
    await eventually(
        lambda: host.table and host.table.deal and host.table.deal.turn == seated.seat,
        timeout=30,
        what="the guest's turn",
    )
    assert host.table is not None and host.table.deal is not None
    # The view that shows the guest's turn: the table waits for the guest,
    # who bids nothing (no autoplay on that session).
    bids = len(host.table.deal.bids)
    killed = loop.time()
    await asyncio.to_thread(doomed.kill9)

    def went_on() -> bool:
        deal = host.table.deal if host.table else None
        return deal is None or len(deal.bids) > bids or deal.phase != "bidding"

    # No heartbeat for a lease (checked every lease / 3), nobody at its
    # channel, then a lease more without one; ``grace``.
    await eventually(
        went_on, timeout=3 * lease + 2.0, what="the table going on without the dead player"
    )
    print(f"\nkill -9 to the next bid: {loop.time() - killed:.2f} s (lease {lease:.0f} s)")
    assert (await game).status == "finished"
    assert not host.closed.is_set()
    await host.close()


# --- the hand-over's corners, with in-process nodes (tests/support/members.Member) ------


@pytest.fixture
async def members(redis_server: RedisServer) -> AsyncIterator[list[Member]]:
    started = [await Member.start(redis_server.url) for _ in range(2)]
    yield started
    for m in started:
        await m.stop()


async def test_a_command_held_during_a_takeover_reaches_the_new_owner_after_the_reattach(
    members: list[Member],
) -> None:
    a, b = members
    table_id, guest = await guest_at_a_remote_table(a, b)
    remote = b.node.remotes[table_id]
    await owner_lets_go(a, table_id)
    # b has no owner for the table yet: the guest's command waits ...
    remote.owner = None
    remote.inbox.put_nowait(Act(cast(Peer, guest), GetHistory(rid=77)))
    # ... until a new owner claims it (a new epoch, a new actor): a here, or b
    # itself if its own search for an owner (a's step-down told it the table
    # moved) wins the claim first. Either way exactly one serves it.
    taken = await a.node.take(table_id)
    reply = await guest.wait_for(lambda e: isinstance(e, History | Error) and e.rid == 77)
    assert isinstance(reply, History), reply  # not "not_at_table", not dropped
    seated = [i for i, e in enumerate(guest.events) if isinstance(e, Seated)]
    assert len(seated) == 2 and seated[1] < guest.events.index(reply)
    assert (taken is not None) != (table_id in b.lobby.tables)


async def test_a_join_queued_behind_a_step_down_is_answered(members: list[Member]) -> None:
    a, b = members
    table_id, _ = await guest_at_a_remote_table(a, b)
    late = Wire("Late")
    joining = asyncio.create_task(a.lobby.join(late, JoinTable(table_id=table_id)))
    await asyncio.sleep(0)  # the Join is on the inbox ...
    a.lobby.tables[table_id].step_down()  # ... when another process takes the table
    await asyncio.wait_for(joining, 2.0)  # answered, not left waiting forever
    error = await late.wait_for(lambda e: isinstance(e, Error))
    assert error.code == "unavailable" and error.message


async def test_a_join_beyond_what_a_moving_table_holds_is_answered(
    members: list[Member],
) -> None:
    a, b = members
    table_id, guest = await guest_at_a_remote_table(a, b)
    remote = b.node.remotes[table_id]
    remote.owner = None  # its owner is being looked for: messages wait
    for i in range(HELD_MAX):  # as many as it holds, from many connections
        peer = guest if i < HELD_PER_CONN else Wire(f"Other {i // HELD_PER_CONN}")
        remote.inbox.put_nowait(Act(cast(Peer, peer), GetHistory(rid=i)))
    assert len(remote.held) == HELD_MAX
    late = Wire("Late")
    await asyncio.wait_for(b.lobby.join(late, JoinTable(table_id=table_id)), 2.0)
    error = await late.wait_for(lambda e: isinstance(e, Error))
    assert error.code == "unavailable" and error.message


async def test_a_flooding_connection_loses_only_its_own_commands_while_a_table_moves(
    members: list[Member],
) -> None:
    a, b = members
    table_id, flooder = await guest_at_a_remote_table(a, b)
    other, leaver = Wire("Other"), Wire("Leaver")
    seats = {}
    for wire in (other, leaver):
        await b.lobby.join(wire, JoinTable(table_id=table_id))
        seated = await wire.wait_for(lambda e: isinstance(e, Seated | Error))
        assert isinstance(seated, Seated) and seated.seat is not None
        seats[wire] = seated.seat
    remote = b.node.remotes[table_id]
    await owner_lets_go(a, table_id)
    remote.owner = None  # its owner is being looked for: messages wait
    for i in range(100):  # a client flooding the moving table
        remote.inbox.put_nowait(Act(cast(Peer, flooder), GetHistory(rid=1000 + i)))
    remote.inbox.put_nowait(Act(cast(Peer, other), GetHistory(rid=77)))
    remote.inbox.put_nowait(Gone(cast(Peer, leaver)))  # settled at once, never dropped
    assert leaver not in remote.sitting and len(remote.held) == HELD_PER_CONN + 1
    # A join held meanwhile whose connection goes: its wait ends (nobody to tell).
    late = Wire("Late")
    done: asyncio.Future[ErrorCode | None] = asyncio.get_running_loop().create_future()
    remote.inbox.put_nowait(Join(cast(Peer, late), None, rid=3, done=done))
    assert len(remote.held) == HELD_PER_CONN + 2
    remote.inbox.put_nowait(Gone(cast(Peer, late)))
    assert done.done() and done.result() == "unavailable"
    assert len(remote.held) == HELD_PER_CONN + 1
    await a.node.take(table_id)  # (or b's own search for an owner wins the claim)
    reply = await other.wait_for(lambda e: isinstance(e, History | Error) and e.rid == 77)
    assert isinstance(reply, History), reply  # the other player's command went through
    # Held in order: the flooder's answers all came before the other's.
    answered = {e.rid for e in flooder.events if isinstance(e, History | Error)}
    assert answered & set(range(1000, 1100)) == set(range(1000, 1000 + HELD_PER_CONN))
    table = a.lobby.tables.get(table_id) or b.lobby.tables[table_id]
    away = table.core.fan.away_seats(table.core.state)
    assert seats[leaver] in away  # not re-attached: it had left
    assert seats[other] not in away


async def test_an_owner_that_does_not_know_a_connection_has_it_sit_again(
    members: list[Member],
) -> None:
    a, b = members
    table_id, guest = await guest_at_a_remote_table(a, b)
    # The owner lost track of the guest (its Sit lost on the bus, say).
    peer = a.node.peers.pop((b.node.proc, guest.id))
    a.lobby.tables[table_id].inbox.put_nowait(Gone(peer))
    b.tables.at[cast(Conn, guest)].inbox.put_nowait(Act(cast(Peer, guest), GetHistory(rid=5)))
    reply = await guest.wait_for(lambda e: isinstance(e, History | Error) and e.rid == 5)
    assert isinstance(reply, History), reply  # sat again, then the command went again
    assert len([e for e in guest.events if isinstance(e, Seated)]) == 2
    assert not guest.closed


async def test_only_a_higher_epoch_takes_a_table_away(members: list[Member]) -> None:
    a, b = members
    table_id, guest = await guest_at_a_remote_table(a, b)
    table = a.lobby.tables[table_id]
    remote = b.node.remotes[table_id]
    bus = b.node.bus
    assert bus is not None
    # A stale owner's word, late on the lobby channel (no order between processes).
    with capture_logs() as logs:
        bus.publish(bus.keys.lobby, Claimed(table_id, "stale", table.epoch))
        # Heard and set aside by both (each relay says so).
        await eventually(
            lambda: (
                sum(e["event"] == "stale_owner_ignored" and e.get("owner") == "stale" for e in logs)
                == 2
            ),
            what="both processes ignoring the stale owner's word",
        )
    assert not table.stale and a.lobby.tables[table_id] is table
    assert remote.owner == a.node.proc
    # A real takeover (b claims: the epoch goes up) takes it away from a.
    await a.store.settled()
    await a.node.leases.release(table_id)
    taken = await b.node.take(table_id)
    assert taken is not None and taken.epoch == table.epoch + 1
    # b's ``Claimed`` reaches a over pub/sub.
    await eventually(lambda: table.stale, what="a hearing b's claim and stepping down")
    assert table_id not in a.lobby.tables
    await guest.wait_for(lambda e: isinstance(e, Seated) and e is not guest.events[0])


async def test_a_process_forgets_connections_and_tables_it_no_longer_holds(
    members: list[Member],
) -> None:
    a, b = members
    table_id, guest = await guest_at_a_remote_table(a, b)
    # Refused (the host's seat): nothing kept for that one.
    refused = Wire("Refused")
    await b.lobby.join(refused, JoinTable(table_id=table_id, seat=0))
    assert (await refused.wait_for(lambda e: isinstance(e, Error))).code == "seat_taken"
    assert set(b.node.conns) == {guest.id}
    # The guest leaves: neither it nor the table is kept here any more.
    b.tables.at[cast(Conn, guest)].inbox.put_nowait(Act(cast(Peer, guest), Leave(rid=9)))
    await guest.wait_for(lambda e: isinstance(e, LobbySnapshot))
    assert b.node.conns == {}
    assert table_id not in b.node.remotes


async def test_a_command_sent_during_a_drain_reaches_the_next_owner(
    members: list[Member],
) -> None:
    a, b = members
    table_id, guest = await guest_at_a_remote_table(a, b)
    draining = asyncio.create_task(a.node.drain())
    await asyncio.sleep(0)  # a's table is stopping ...
    b.tables.at[cast(Conn, guest)].inbox.put_nowait(Act(cast(Peer, guest), GetHistory(rid=11)))
    await asyncio.wait_for(draining, 5.0)
    # ... the command, answered ``Moved``, waited at b, which took the table.
    reply = await guest.wait_for(lambda e: isinstance(e, History | Error) and e.rid == 11)
    assert isinstance(reply, History), reply
    assert table_id in b.lobby.tables and not a.lobby.tables
    assert not guest.closed


async def test_a_publish_that_reached_nobody_does_not_make_a_live_process_dead(
    redis_server: RedisServer,
) -> None:
    lease = 0.6
    async with two_members(redis_server.url, lease) as (a, b):
        a.node.start()  # renews its leases and beats every lease / 3
        table_id, guest = await guest_at_a_remote_table(a, b)
        # One publish to a met nobody (its subscriber was reconnecting, say).
        b.node.unreached(a.node.keys.bus(a.node.proc))
        # b's verdict, a lease later (the test's lease): a's heartbeats came meanwhile.
        await eventually(
            lambda: a.node.proc not in b.node.membership.suspects, what="b's verdict on a"
        )
        assert b.node.remotes[table_id].owner == a.node.proc  # still a's
        assert table_id in a.lobby.tables
        # What it missed from b is lost: b's guest sits again (from its last seq).
        await guest.wait_for(lambda e: isinstance(e, Seated) and e is not guest.events[0])
        assert len([e for e in guest.events if isinstance(e, Seated)]) == 2
        assert not guest.closed


async def test_a_subscriber_that_reconnects_sits_its_connections_again(
    members: list[Member], redis_server: RedisServer
) -> None:
    a, b = members
    _, guest = await guest_at_a_remote_table(a, b)
    # Every subscriber loses its connection: whatever the owners publish
    # until they are back is lost, so ``b`` sits its guest again.
    assert kill_subscribers(redis_server.port, None) >= 2
    await guest.wait_for(lambda e: isinstance(e, Seated) and e is not guest.events[0], timeout=10)
    assert b.node.bus is not None and b.node.bus.subscribed
    b.tables.at[cast(Conn, guest)].inbox.put_nowait(Act(cast(Peer, guest), GetHistory(rid=7)))
    reply = await guest.wait_for(lambda e: isinstance(e, History | Error) and e.rid == 7)
    assert isinstance(reply, History), reply
    assert not guest.closed

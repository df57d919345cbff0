"""Review fixes of the cluster (issue 16) that the process tests do not reach.

A real ``redis-server`` (tests/support/redis.py).

Real time where a lease must lapse (Redis's own clock, PEXPIRE) or Redis
must answer nobody for a while (``CLIENT PAUSE``, on its clock): no clock of
the test moves those, so those tests wait for what Redis shows (``eventually``,
with a deadline), never a fixed time; the tests' own timers take ``clock`` (a
manual one) where they can.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import msgspec
import pytest
from structlog.testing import capture_logs

from protocol.messages import CreateTable, Error, GetHistory, History, JoinTable, Seated, StartGame
from server.cluster import node as node_module
from server.cluster import ownership
from server.cluster.bus import (
    PROBE,
    Batch,
    Beat,
    Bus,
    Message,
    Released,
    unknown_kind,
)
from server.cluster.lease import RENEW_BATCH, Leases, RenewalFailed
from server.link.conn import Conn
from server.store.base import StaleWrite, StoreError
from server.store.redis import RedisStore
from server.store.redis_keys import Keys
from server.table import Act
from server.table.inbox import Peer, Reclaim
from tests.support.clock import ManualClock
from tests.support.members import (
    Member,
    Wire,
    guest_at_a_remote_table,
    owner_lets_go,
    table_epoch,
    two_members,
)
from tests.support.redis import RedisServer, paused
from tests.support.waits import eventually

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]

T = TypeVar("T")


async def test_a_renewal_gives_up_within_a_quarter_lease(redis_server: RedisServer) -> None:
    """The store's deadline (5 s) can equal the lease: a renewal has its own.

    Redis is paused (``CLIENT PAUSE``, acknowledged before the renewal is
    sent) for a second, on its own clock: the renewal must give up well
    before."""
    store = await RedisStore.connect(redis_server.url)
    leases = Leases(store, "p", lease_s=0.4, expire_s=60)
    epoch = await leases.claim("t1", new=True)
    try:
        with paused(redis_server.port, 1000):  # until it answers again, at the block's end
            started = time.monotonic()
            with pytest.raises(StoreError):
                await leases.renew({"t1": epoch})
            took = time.monotonic() - started
        # lease / 4 = 0.1 s, not the store's 5 s (a busy machine may add some)
        assert took < 2.5, took
        assert await leases.renew({"t1": epoch}) == []  # and renews again after it
    finally:
        await store.close()


# --- review 9: Redis restarted without its data; a takeover that does not load ----------


async def _create(member: Member, name: str) -> tuple[str, Wire]:
    host = Wire(f"Host {name}")
    await member.lobby.create(host, CreateTable(name=name, private=True, bot_level="random"))
    seated = await host.wait_for(lambda e: isinstance(e, Seated | Error))
    assert isinstance(seated, Seated), seated
    return seated.table_id, host


async def test_a_redis_restarted_empty_leaves_a_live_owner_its_table(
    redis_server: RedisServer,
) -> None:
    """The owner's first save after the restart puts the table back in the open
    set; it sets its lease again at once, so another process's scan finds the
    table held (review 9): no needless failover, the epoch stays."""
    async with two_members(redis_server.url) as (a, b):
        table_id, host = await _create(a, "restart")
        table = a.lobby.tables[table_id]
        epoch = table.epoch
        redis_server.stop()
        redis_server.start()  # empty: persistence is off
        # A guest sits down: the owner's save waits for Redis, then goes in.
        guest = Wire("Guest")
        await a.lobby.join(guest, JoinTable(table_id=table_id))
        assert isinstance(await guest.wait_for(lambda e: isinstance(e, Seated | Error)), Seated)

        async def saved_again() -> bool:
            return await b.store.load(table_id) is not None

        await eventually(saved_again, what="the owner's save after the restart")
        assert await b.store.open_tables() == [table_id]
        # Another process scans, fully and quickly: nothing to take.
        assert await b.node.restore(full=True) == 0
        assert await b.node.restore(full=False) == 0
        assert await b.node.leases.holder(table_id) == a.node.proc
        assert await table_epoch(b.store, table_id) == epoch
        assert a.lobby.tables.get(table_id) is table and not table.stale
        # The game goes on at the same owner: dealt, bots bid, all saved.
        saved = await b.store.load(table_id)
        assert saved is not None
        table.inbox.put_nowait(Act(cast(Peer, host), StartGame(rid=1)))

        async def saved_later() -> bool:
            now = await b.store.load(table_id)
            return now is not None and now[0] > saved[0]

        await eventually(saved_later, what="the owner saving the game on")
        assert not table.stale and await table_epoch(b.store, table_id) == epoch
        assert await a.node.renew() == []


async def test_a_takeover_that_does_not_load_frees_its_lease(
    redis_server: RedisServer, store: RedisStore
) -> None:
    async with two_members(redis_server.url) as (a, b):
        good, _ = await _create(a, "good")
        await owner_lets_go(a, good)
        await store.save("broken", 1, b"not a table state")
        with pytest.raises(msgspec.DecodeError):
            await b.node.take("broken")
        assert await b.node.leases.holder("broken") is None  # not held for a lease
        assert "broken" not in b.lobby.tables
        # A scan that meets it takes the others all the same.
        assert await b.node.restore() == 1
        assert good in b.lobby.tables
        assert await b.node.leases.holder("broken") is None


# --- review 10: the orphan scan reads the lapsed leases, not every open table -----------


async def _score(store: RedisStore, table_id: str) -> float | None:
    return await store.pool.zscore(store.keys.leases, table_id.encode())


async def _redis_clock_past(leases: Leases, expiry: float) -> None:
    """Until Redis's clock (ms) is past the millisecond a lease of ``leases``
    expiring at ``expiry`` was set in: a renewal now sets a later expiry.
    (At most a millisecond of Redis's clock, which no clock of the test moves.)"""

    async def past() -> bool:
        return await leases.now_ms() + int(leases.lease_ms) > expiry

    await eventually(past, what="Redis's clock moving on a millisecond")


async def test_the_orphan_scan_reads_only_the_leases_that_lapsed(
    redis_server: RedisServer, store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ownership, "SCAN_PAGE", 2)  # pages of two: the scan pages on
    lease = 0.5
    async with two_members(redis_server.url, lease) as (a, b):
        before = await b.node.leases.now_ms()
        ids = [(await _create(a, f"t{i}"))[0] for i in range(5)]
        after = await b.node.leases.now_ms()
        # Each claim noted its lease's expiry, on Redis's clock.
        for table_id in ids:
            score = await _score(store, table_id)
            assert score is not None and before + 500 <= score <= after + 500
        lapsed, never, closed = ids[:3], ids[3], ids[4]
        # One lease vanished (as with Redis's data, or saved by an older server):
        await store.pool.pool.delete([store.keys.lease + never.encode()])
        await store.pool.pool.zrem(store.keys.leases, [never.encode()])
        # one table closed (its save took it out of the open set).
        await store.pool.pool.srem(store.keys.open, [closed.encode()])
        for table in list(a.lobby.tables.values()):
            table.step_down()  # a dies: no release, its leases lapse

        async def all_lapsed() -> bool:  # on Redis's clock: a lease of 0.5 s
            return all([await a.node.leases.holder(t) is None for t in ids])

        await eventually(all_lapsed, what="a's leases lapsing")
        # The quick scan takes the lapsed ones, page after page, and drops the
        # closed one from the set; the table with no lease at all it does not see.
        assert await b.node.restore(full=False) == 3
        assert set(b.lobby.tables) == set(lapsed)
        assert await _score(store, closed) is None
        assert await _score(store, never) is None
        assert await b.node.restore(full=False) == 0
        # The full pass (at start, then one scan in ten) finds it.
        assert await b.node.restore(full=True) == 1
        assert set(b.lobby.tables) == {*lapsed, never}
        held = await _score(store, never)
        assert held is not None and held > after + 500
        # A renewal moves the expiries on; a release marks the lease lapsed
        # (score 0), so the next quick scan finds the table (a drain whose
        # Released message went astray, a takeover that could not load).
        await _redis_clock_past(b.node.leases, held)
        assert await b.node.renew() == []
        renewed = await _score(store, never)
        assert renewed is not None and renewed > held
        b.lobby.tables[never].step_down()
        await b.store.settled()
        await b.node.leases.release(never)
        assert await _score(store, never) == 0.0
        await eventually(lambda: never not in b.lobby.tables, what="b's table stopping")
        assert await b.node.restore(full=False) == 1 and never in b.lobby.tables
        # A lease held by someone the set is behind on is put right, not taken.
        await store.pool.pool.zadd(store.keys.leases, {lapsed[0].encode(): 1.0})
        assert await b.node.restore(full=False) == 0
        fixed = await _score(store, lapsed[0])
        assert fixed is not None and fixed > after


async def test_the_orphan_scan_pages_past_this_process_own_lapsed_leases(
    redis_server: RedisServer, store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ownership, "SCAN_PAGE", 2)
    async with two_members(redis_server.url) as (a, b):  # long: no timer runs meanwhile
        mine = [(await _create(b, f"m{i}"))[0] for i in range(2)]
        orphan = (await _create(a, "o"))[0]
        a.lobby.tables[orphan].step_down()  # a dies: no release
        await a.store.settled()
        # b's own two leases lapsed first (its renewal was late), then a's:
        # a whole page of b's own comes before the orphan.
        for score, table_id in enumerate([*mine, orphan], start=1):
            await store.pool.pool.delete([store.keys.lease + table_id.encode()])
            await store.pool.pool.zadd(store.keys.leases, {table_id.encode(): float(score)})
        assert await b.node.restore(full=False) == 1
        assert orphan in b.lobby.tables and await b.node.leases.holder(orphan) == b.node.proc


async def test_a_renewal_that_fails_still_steps_down_what_the_other_runs_found_lost(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    leases = Leases(store, "p", lease_s=5, expire_s=60)
    ids = [f"f{i}" for i in range(RENEW_BATCH + 3)]
    owned = {t: await leases.claim(t, new=True) for t in ids}
    taken = ids[1]  # in the first batch
    await leases.release(taken)
    assert await Leases(store, "q", lease_s=5, expire_s=60).claim(taken, new=True) == 2
    real_run = leases._renew.run
    runs = 0

    async def second_run_fails(*args: object) -> object:
        nonlocal runs
        runs += 1
        if runs == 2:
            raise StoreError("redis renew: the second run did not answer")
        return await real_run(*args)  # type: ignore[arg-type]  # the same arguments

    monkeypatch.setattr(leases._renew, "run", second_run_fails)
    leases._renewals = -1  # the next renewal starts with the first batch
    with pytest.raises(RenewalFailed) as failed:
        await leases.renew(owned)
    assert failed.value.lost == [taken] and runs == 2


async def test_a_renewal_goes_in_batches_and_names_the_tables_lost(store: RedisStore) -> None:
    leases = Leases(store, "p", lease_s=5, expire_s=60)
    ids = [f"r{i}" for i in range(RENEW_BATCH + 3)]
    owned = {t: await leases.claim(t, new=True) for t in ids}
    first, last = await _score(store, ids[0]), await _score(store, ids[-1])
    # One table of the second batch went to another process.
    taken = ids[-2]
    await leases.release(taken)
    assert await Leases(store, "q", lease_s=5, expire_s=60).claim(taken) == 0  # not stored
    assert await Leases(store, "q", lease_s=5, expire_s=60).claim(taken, new=True) == 2
    assert last is not None
    await _redis_clock_past(leases, last)
    assert await leases.renew(owned) == [taken]
    renewed_first, renewed_last = await _score(store, ids[0]), await _score(store, ids[-1])
    assert first is not None and renewed_first is not None and renewed_first > first
    assert last is not None and renewed_last is not None and renewed_last > last
    assert await leases.holder(taken) == "q"


# --- F6: a draining process claims nothing new, and drains what it was taking --------------


def _tables_stopped(monkeypatch: pytest.MonkeyPatch, member: Member) -> asyncio.Event:
    """Set when ``member``'s drain has stopped its own tables: from there it
    goes on in the same step to wait for the takeovers under way."""
    stopped = asyncio.Event()
    real_stop = member.tables.stop

    async def stop(*args: Any, **kwargs: Any) -> Any:
        try:
            return await real_stop(*args, **kwargs)
        finally:
            stopped.set()

    monkeypatch.setattr(member.tables, "stop", stop)
    return stopped


def _hold_load(
    monkeypatch: pytest.MonkeyPatch, member: Member, table_id: str
) -> tuple[asyncio.Event, asyncio.Event]:
    """Make ``member``'s load of ``table_id`` wait: the first event is set
    when the load starts, and it goes on once the second one is set."""
    loading, go_on = asyncio.Event(), asyncio.Event()
    real_load = member.store.load

    async def slow_load(wanted: str) -> tuple[int, bytes] | None:
        if wanted == table_id:
            loading.set()
            await go_on.wait()
        return await real_load(wanted)

    monkeypatch.setattr(member.store, "load", slow_load)
    return loading, go_on


async def test_a_draining_process_claims_nothing_new_and_hands_over_what_it_was_taking(
    redis_server: RedisServer, store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with two_members(redis_server.url) as (a, b):
        mine, _ = await _create(a, "mine")
        theirs, _ = await _create(b, "theirs")
        late, _ = await _create(b, "late")
        for table_id in (theirs, late):
            await owner_lets_go(b, table_id)  # b drains them: anyone may claim them now
        # a is taking ``late`` over (claimed, loading) when its drain starts.
        loading, go_on = _hold_load(monkeypatch, a, late)
        taking = asyncio.create_task(a.node.take(late))
        await asyncio.wait_for(loading.wait(), 5)
        assert await a.node.leases.holder(late) == a.node.proc
        async with a.node.ownership.renewing:  # its hand-overs wait here: the drain is under way
            draining = asyncio.create_task(a.node.drain())
            table = a.lobby.tables[mine]
            assert table.task is not None
            await asyncio.wait_for(asyncio.shield(table.task), 5)  # stopped, not handed over yet
            # What would claim a table during the drain claims nothing: the
            # scan, a ``Released`` of another draining process, a relocation,
            # a join.
            assert await a.node.take(theirs) is None
            assert await a.node.restore(full=True) == 0
            assert await a.node.restore(full=False) == 0
            guest = Wire("Guest")
            await a.lobby.create(guest, CreateTable(name="new", private=True))
            assert (await guest.wait_for(lambda e: isinstance(e, Error))).code == "unavailable"
            go_on.set()
            assert await taking is None  # claimed before the drain: handed over too
        await asyncio.wait_for(draining, 5)
        assert not a.lobby.tables
        # a holds none of them: the other processes claim them at once. b
        # (listening) may have taken ``mine`` and ``late`` already, on a's
        # ``Released`` (after 0-50 ms of jitter); its scan takes the rest.
        for table_id in (mine, theirs, late):
            assert await a.node.leases.holder(table_id) in (None, b.node.proc), table_id
        await b.node.restore(full=False)
        await eventually(
            lambda: {mine, theirs, late} <= set(b.lobby.tables),
            what="b serving all three tables",
            detail=lambda: f"b serves {sorted(b.lobby.tables)}",
        )
        for table_id in (mine, theirs, late):
            assert await a.node.leases.holder(table_id) == b.node.proc, table_id


# --- M1: a resume whose takeover the drain caught follows the table, not "gone" -------------


async def test_a_resume_whose_takeover_a_drain_catches_follows_the_table_to_its_next_owner(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rolling restart: ``a`` takes over a table ``b`` released, for a client
    resuming there, when SIGTERM reaches ``a``. The takeover hands the table
    over unserved; the resume (and one waiting on the same takeover) waits for
    the process that takes it, as any join during a drain does. Before, they
    were told "that table is gone" (``bad_token``: the client's seat gone)."""
    async with two_members(redis_server.url) as (a, b):
        table_id, host = await _create(b, "resumed")
        token = next(e.token for e in host.events if isinstance(e, Seated))
        assert token is not None
        await owner_lets_go(b, table_id)  # b released it (it drained; it runs on here)
        loading, go_on = _hold_load(monkeypatch, a, table_id)
        # The client reconnects to a twice (a second tab, say): one takeover.
        first, second = Wire("Host again"), Wire("Host once more")
        resumes = [
            asyncio.create_task(a.lobby.resume(first, token, -1, 5)),
            asyncio.create_task(a.lobby.resume(second, token, -1, 6)),
        ]
        await asyncio.wait_for(loading.wait(), 5)

        # Both wait at the table's remote, whose owner is being looked for
        # (a's own takeover, on b's Released, is loading it).
        def both_wait() -> bool:
            remote = a.node.remotes.get(table_id)
            return (
                remote is not None
                and remote.owner is None
                and (sum(isinstance(m, Reclaim) for m in remote.pending.values()) == 2)
            )

        await eventually(both_wait, what="both resumes waiting for the table's next owner")
        draining = asyncio.create_task(a.node.drain())
        await asyncio.sleep(0)
        assert a.node.draining
        go_on.set()
        await asyncio.wait_for(asyncio.gather(*resumes), 15)
        for wire in (first, second):
            reply = await wire.wait_for(lambda e: isinstance(e, Seated | Error))
            assert not (isinstance(reply, Error) and reply.code == "bad_token"), reply
        # b took it on a's Released; the resumes followed it there.
        assert table_id in b.lobby.tables
        # Both sat down again (the later one keeps the seat: one connection a seat).
        assert all(isinstance(w.events[0], Seated) for w in (first, second))
        await asyncio.wait_for(draining, 10)


# --- F4: Redis restarted empty while an older owner was paused ------------------------------


async def _retrying(what: Callable[[], Awaitable[T]]) -> T:
    """``what()`` once Redis answers again (it is restarting)."""
    for _ in range(100):
        try:
            return await what()
        except StoreError:
            await asyncio.sleep(0.05)
    return await what()


@pytest.mark.parametrize("new_first", ["save", "renew"])
@pytest.mark.parametrize("old_first", ["renew", "save", "save_further"])
async def test_redis_restarted_empty_under_a_paused_older_owner_leaves_the_table_to_the_newer(
    redis_server: RedisServer, store: RedisStore, old_first: str, new_first: str
) -> None:
    """The older owner wakes first and writes what Redis lost: the lease in its
    name, maybe its stale state and its epoch. The newer owner's next write
    (a save or a renewal) carries the higher epoch: it keeps the table, and
    the older one is fenced. Before, the newer one stepped down on its
    renewal (the lease was the other's), or had its save refused (the older
    one's stale state had a higher version): the older one served on from
    its stale state, or nobody did until the lease lapsed."""
    old_store = await RedisStore.connect(redis_server.url)
    new_store = await RedisStore.connect(redis_server.url)
    try:
        old = Leases(old_store, "old", lease_s=30, expire_s=600)
        new = Leases(new_store, "new", lease_s=30, expire_s=600)
        e1 = await old.claim("t", new=True)
        await old_store.save("t", 1, b"v1 by old", epoch=e1)
        # ``old`` is paused past its lease (with moves 2 to 5 it could not
        # save): the lease lapses, ``new`` takes the table over and plays on.
        await store.pool.pool.delete([store.keys.lease + b"t"])
        e2 = await new.claim("t")
        assert e2 == e1 + 1
        await new_store.save("t", 2, b"v2 by new", epoch=e2)
        redis_server.stop()
        redis_server.start()  # empty: persistence is off
        # ``old`` wakes first: Redis knows no epoch, no lease.
        if old_first == "renew":
            assert await _retrying(lambda: old.renew({"t": e1})) == []
        else:
            # Its stale state; further on than the newer owner's, even (its
            # bots played on as it woke).
            version = 2 if old_first == "save" else 5
            await _retrying(lambda: old_store.save("t", version, b"stale", epoch=e1))
        assert await old.holder("t") == "old"
        # The newer owner's next writes: a save then a renewal, or the other way.
        if new_first == "renew":
            assert await _retrying(lambda: new.renew({"t": e2})) == []
            await new_store.save("t", 3, b"v3 by new", epoch=e2)
        else:
            await _retrying(lambda: new_store.save("t", 3, b"v3 by new", epoch=e2))
            assert await new.renew({"t": e2}) == []
        assert await new.holder("t") == "new"
        assert await table_epoch(store, "t") == e2
        # The older one is fenced out, whichever it tries next.
        assert await old.renew({"t": e1}) == ["t"]
        with pytest.raises(StaleWrite):
            await old_store.save("t", 6, b"stale again", epoch=e1)
        assert await store.load("t") == (3, b"v3 by new")
        assert await new.renew({"t": e2}) == []
        # Nobody scanning finds an orphan: the newer owner holds it.
        assert await new.lapsed(10) == ([], [])
    finally:
        await old_store.close()
        await new_store.close()


# --- one scan script: the full pass puts the leases set right too ---------------------------


async def test_the_full_pass_enters_tables_the_leases_set_lacks_so_quick_scans_see_them_lapse(
    redis_server: RedisServer, store: RedisStore
) -> None:
    """A table held by a process of a version before ``atout:leases`` (during a
    rolling upgrade) has no entry in the set: the full pass, finding its lease
    held, enters its expiry, so the quick scan finds it once the lease lapses,
    instead of the next full pass (ten scans later)."""
    async with two_members(redis_server.url, 2.0, lease_b=5.0) as (a, b):  # no renewer: it lapses
        table_id, _ = await _create(a, "older")

        async def opened() -> bool:
            return table_id in await store.open_tables()

        await eventually(opened, what="the new table saved in the open set")
        await a.store.settled()
        await store.pool.pool.zrem(store.keys.leases, [table_id.encode()])  # as an older version's
        assert await b.node.restore(full=True) == 0  # held
        entered = await _score(store, table_id)
        assert entered is not None and entered > await b.node.leases.now_ms()
        a.lobby.tables[table_id].step_down()  # a dies: no release
        await a.store.settled()

        async def lapsed() -> bool:  # on Redis's clock: a's lease of 2 s
            return await b.node.leases.holder(table_id) is None

        await eventually(lapsed, what="a's lease lapsing")
        assert await b.node.restore(full=False) == 1
        assert table_id in b.lobby.tables


# --- L2: the heartbeat check judges nobody by the beats our own subscriber lost ------------


def _deafenable(
    monkeypatch: pytest.MonkeyPatch, node: node_module.Node
) -> tuple[ManualClock, list[bool]]:
    """``node`` on a manual clock (returned), its subscriber subscribed while
    ``up[0]`` (returned, True to begin with; the others' as they are)."""
    clock = ManualClock()
    node.membership.clock = clock
    up = [True]
    real = node_module.Node.subscribed

    def subscribed(self: node_module.Node) -> bool:
        return up[0] if self is node else bool(real.fget(self))  # type: ignore[attr-defined]

    monkeypatch.setattr(node_module.Node, "subscribed", property(subscribed))
    return clock, up


async def test_a_live_process_is_not_judged_gone_while_our_own_subscriber_reconnects(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a Redis restart: a send to ``a`` met nobody (its subscriber was
    reconnecting), and ``b``'s own subscriber is away for the lease after, so
    it hears none of ``a``'s heartbeats. Before, ``b`` judged ``a`` gone: its
    players at ``b``'s tables went away, ``b``'s at ``a``'s were closed. Now no
    verdict until ``b`` has listened a whole lease."""
    lease = 0.5
    async with two_members(redis_server.url, lease) as (a, b):
        clock, up = _deafenable(monkeypatch, b.node)
        table_id, guest = await guest_at_a_remote_table(a, b)
        b.node.heard(Beat(a.node.proc, 1))
        up[0] = False  # b's subscriber lost its connection
        b.node.unreached(a.node.keys.bus(a.node.proc))  # a's too: a send met nobody
        # Its check waits a lease of ``clock`` (set at once), and is judged
        # within ``advance``: no real time runs it.
        clock.advance(lease)  # a lease without a beat: b heard nothing
        assert b.node.remotes[table_id].owner == a.node.proc  # not judged gone
        assert a.node.proc in b.node.membership.suspects  # no verdict yet
        # b's subscriber is back (it sits its guest again); a's next beat is
        # late. Back less than a lease before this look: still no verdict.
        clock.advance(0.1)
        up[0] = True
        b.node.resubscribed()
        clock.advance(lease)
        assert a.node.proc in b.node.membership.suspects
        assert b.node.remotes[table_id].owner == a.node.proc
        clock.advance(0.1)
        b.node.heard(Beat(a.node.proc, 1))
        clock.advance(lease)
        await eventually(lambda: a.node.proc not in b.node.membership.suspects)
        assert b.node.remotes[table_id].owner == a.node.proc
        assert (b.node.proc, guest.id) in a.node.peers  # not Gone at a's table
        assert table_id in a.lobby.tables and not guest.closed


async def test_the_heartbeat_probe_waits_for_our_subscriber_and_an_unheard_probe_loses_nothing(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    lease = 0.5
    async with two_members(redis_server.url, lease) as (a, b):
        clock, up = _deafenable(monkeypatch, b.node)
        sent: list[tuple[str, Message]] = []
        real_publish = b.node.publish

        def publish(proc: str, msg: Message) -> None:
            sent.append((proc, msg))
            real_publish(proc, msg)

        monkeypatch.setattr(b.node, "publish", publish)
        table_id, guest = await guest_at_a_remote_table(a, b)
        b.node.heard(Beat(a.node.proc, 1))
        clock.advance(lease + 0.1)  # no beat from a for more than a lease
        up[0] = False
        b.node.probe_silent()  # b's subscriber is away: its beats may be what is lost
        b.node.resubscribed()  # it sits its guest again
        up[0] = True
        await guest.wait_for(lambda e: isinstance(e, Seated) and e is not guest.events[0])
        clock.advance(lease / 2)
        b.node.probe_silent()  # back less than a lease ago: the same
        assert not [m for _, m in sent if m == PROBE]
        clock.advance(lease / 2 + 0.01)
        b.node.probe_silent()
        assert (a.node.proc, PROBE) in sent and isinstance(PROBE, Batch)
        # The probe went unheard (a's subscriber reconnecting, say), a is alive:
        # nothing was lost, so b's guest does not sit again (a fresh snapshot).
        seated = len([e for e in guest.events if isinstance(e, Seated)])
        b.node.unreached(a.node.keys.bus(a.node.proc), True)
        clock.advance(0.1)  # (its check waits a lease of ``clock``, set at once)
        b.node.heard(Beat(a.node.proc, 1))
        clock.advance(lease)  # judged within: alive
        assert a.node.proc not in b.node.membership.suspects
        # A sitting again would have gone to a before this command, and its
        # Seated come back before the answer (one channel each way, in order).
        b.tables.at[cast(Conn, guest)].inbox.put_nowait(Act(cast(Peer, guest), GetHistory(rid=8)))
        reply = await guest.wait_for(lambda e: isinstance(e, History | Error) and e.rid == 8)
        assert isinstance(reply, History), reply
        assert len([e for e in guest.events if isinstance(e, Seated)]) == seated
        assert b.node.remotes[table_id].owner == a.node.proc and not guest.closed


# --- L3: a drain lets the takeovers under way hand their tables over -----------------------


async def test_a_drain_waits_for_a_takeover_under_way_which_hands_its_table_over(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``a`` is loading a table it claimed on another process's ``Released``
    when its drain begins. The drain waits for it (half a lease), and the
    takeover hands the table over, telling the others: ``b`` takes it at once.
    Before, the drain cancelled it: the lease was freed, but nobody was told
    (the table waited for the next quick scan)."""
    async with two_members(redis_server.url, 2.0) as (a, b):
        table_id, _ = await _create(b, "taking")
        await owner_lets_go(b, table_id)
        loading, go_on = _hold_load(monkeypatch, a, table_id)
        a.node.heard(Released(table_id, "elsewhere"))  # a drained process's table
        await asyncio.wait_for(loading.wait(), 5)
        takeover = a.node.ownership.taking[table_id]
        stopped = _tables_stopped(monkeypatch, a)
        draining = asyncio.create_task(a.node.drain())
        # a has no table of its own: once they are stopped, only the takeover is left.
        await asyncio.wait_for(stopped.wait(), 5)
        assert not draining.done()
        ended_after: list[bool] = []
        draining.add_done_callback(lambda _: ended_after.append(takeover.done()))
        go_on.set()
        await asyncio.wait_for(draining, 5)
        assert ended_after == [True]  # the drain waited for the takeover
        await eventually(lambda: table_id in b.lobby.tables, timeout=3)
        assert await b.node.leases.holder(table_id) == b.node.proc


async def test_a_claim_a_drain_cuts_short_frees_its_lease_and_says_so(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drain waits half a lease for a takeover, then cancels it: here
    after Redis ran its claim. The lease is freed and the others told, not
    held a whole lease by the exiting process."""
    async with two_members(redis_server.url, 2.0) as (a, b):
        table_id, _ = await _create(b, "cut")
        await owner_lets_go(b, table_id)
        claimed = asyncio.Event()
        real_claim = a.node.leases.claim

        async def claim_then_hang(wanted: str, new: bool = False) -> int:
            epoch = await real_claim(wanted, new=new)
            claimed.set()
            await asyncio.Event().wait()  # its answer is slow in coming
            return epoch

        monkeypatch.setattr(a.node.leases, "claim", claim_then_hang)
        a.node.heard(Released(table_id, "elsewhere"))
        await asyncio.wait_for(claimed.wait(), 5)
        assert await b.node.leases.holder(table_id) == a.node.proc
        started = time.monotonic()
        await asyncio.wait_for(a.node.drain(), 5)
        assert time.monotonic() - started >= 0.9  # it waited half a lease first
        await eventually(lambda: table_id in b.lobby.tables, timeout=3)
        assert await b.node.leases.holder(table_id) == b.node.proc


async def test_a_message_of_a_kind_from_a_newer_server_is_left_alone_and_said_once(
    redis_server: RedisServer,
) -> None:
    # During a rolling upgrade the newer processes may send a kind the older
    # ones do not know (as ``Reaped`` was once): the older ones go on with
    # every message they know, and say once per kind what they skipped; a
    # message that is no message at all is still a warning each time.
    got: list[Message] = []
    bus = await Bus.open(redis_server.url, "old", Keys(), got.append, lambda ch, probe: None)
    try:
        newer = msgspec.msgpack.encode(["grown", "p9", 3])
        with capture_logs() as logs:
            for data in (newer, newer, b"\xc1", msgspec.msgpack.encode(["beat", "p2", 4])):
                await bus.client.publish(bus.keys.bus("old"), data)
            await eventually(lambda: len(got) == 1)
        assert got == [Beat("p2", 4)]
        said = [(e["event"], e.get("kind")) for e in logs if e["event"].startswith("bus_")]
        assert said == [("bus_unknown_message", "grown"), ("bus_bad_message", None)]
        assert unknown_kind(newer) == "grown" and unknown_kind(b"\xc1") is None
        assert unknown_kind(msgspec.msgpack.encode(["beat", "p2", 4])) is None
    finally:
        await bus.close()

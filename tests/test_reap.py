"""A worker the supervisor reaped: its leases are freed at once, not a lease later.

Real ``redis-server`` (tests/support/redis.py), the real supervisor and worker
processes of ``atout-server --workers 2``, real WebSocket clients
(server/process/workers.py, server/cluster/lease.py, docs/CLUSTER.md "A reaped worker").

Real time: the supervisor, its workers and Redis's leases run in other
processes, on their own clocks.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.session import Session
from protocol.messages import (
    CreateTable,
    Error,
    GetHistory,
    History,
    JoinTable,
    Leave,
    LobbySnapshot,
    Seated,
    StartGame,
)
from protocol.views import TableView
from server.cluster import lease
from server.cluster.lease import Leases
from server.game import replay_record
from server.store.redis import RedisStore
from tests.support.clients import autoplay, check_no_leaks
from tests.support.members import table_epoch
from tests.support.ports import free_port
from tests.support.processes import QUICK_GAME_FLAGS, healthz
from tests.support.redis import RedisServer
from tests.support.waits import eventually

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]

ROOT = Path(__file__).resolve().parents[1]
LEASE_S = 10.0


# --- the script ---------------------------------------------------------------------


async def test_freeing_a_dead_process_leases_frees_exactly_its_own(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small steps: the walk over ``atout:leases`` takes many ZSCAN calls, and
    # 300 entries make Redis keep the set as a hash table, not a short list.
    monkeypatch.setattr(lease, "FREE_STEP", 7)
    dead = Leases(store, "dead", lease_s=60, expire_s=600)
    live = Leases(store, "live", lease_s=60, expire_s=600)
    epochs: dict[str, int] = {}
    for i in range(300):
        owner = dead if i % 2 else live
        tid = f"t{i}"
        epochs[tid] = await owner.claim(tid, new=True)
        await store.save(tid, 1, b"x", epoch=epochs[tid])
    mine = [f"t{i}" for i in range(1, 300, 2)]
    assert await live.free_dead("dead") == 150
    for i in range(300):
        tid = f"t{i}"
        assert await live.holder(tid) == (None if i % 2 else "live")
    # Their entries say "lapsed long ago": any process's next scan finds them.
    scores = await store.pool.zrevrange(store.keys.leases, 0, -1)
    assert {t.decode() for t, score in scores.items() if score == 0} == set(mine)
    orphans, _ = await live.lapsed(500)
    assert sorted(orphans) == sorted(mine)
    # The claim is a takeover like any other: the epoch goes up, and the dead
    # one's save that comes after it is refused (tests/test_cluster.py).
    assert await live.claim("t1") == epochs["t1"] + 1
    # Freed already, or held by someone else: nothing more to free.
    assert await live.free_dead("dead") == 0
    assert await live.holder("t1") == "live"
    with pytest.raises(AssertionError):
        await live.free_dead("live")


# --- the supervisor and its workers ---------------------------------------------------


def _workers(port: int, proc: subprocess.Popen[bytes]) -> dict[int, dict[str, Any]]:
    """Ask ``/healthz`` until both workers answered: number -> its body."""
    seen: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + 30
    while set(seen) != {0, 1}:
        assert proc.poll() is None, "the supervisor stopped"
        assert time.monotonic() < deadline, f"only workers {sorted(seen)} answered"
        body = healthz(port)
        if body is None:
            time.sleep(0.05)
        else:
            seen[body["worker"]] = body
    return seen


def _cards_played(v: TableView | None) -> int:
    if v is None or v.deal is None:
        return 0
    d = v.deal
    return sum(len(t.cards) for t in d.tricks) + (len(d.trick.cards) if d.trick else 0)


def _finished(v: TableView) -> bool:
    return v.status == "finished"


async def _play_on(s: Session, rng: random.Random) -> TableView:
    """Autoplay to the end of the game; when its worker is killed under it,
    reconnect to the same port (any worker) and resume with the seat's token."""
    while True:
        try:
            return await autoplay(s, rng, _finished, timeout=120)
        except (ConnectionError, ConnectionClosed):
            pass
        for _ in range(300):
            try:
                if isinstance(await s.reconnect(), Seated):
                    break
            except (OSError, ConnectionError, WebSocketException, TimeoutError):
                pass
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("could not resume the seat")


def _two_workers(
    redis_server: RedisServer, log_path: Path, *extra: str
) -> tuple[int, subprocess.Popen[bytes]]:
    """``atout-server --workers 2`` (lease 10 s) logging JSON to ``log_path``: its port."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    args = [
        sys.executable, "-m", "server",
        "--workers", "2",
        "--port", str(port),
        "--redis", redis_server.url,
        "--lease", str(LEASE_S),
        *QUICK_GAME_FLAGS,
        *extra,
        "--log-format", "json",
    ]  # fmt: skip
    with open(log_path, "wb") as log:  # a pipe could fill up and stall the workers
        return port, subprocess.Popen(args, cwd=ROOT, env=clean, stderr=log)


async def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the supervisor: every worker drains and exits 0."""
    try:
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _logged(log_path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith("{")]


async def _kill_the_owner(redis_server: RedisServer, store: RedisStore, tmp_path: Path) -> float:
    """Four players on ``--workers 2`` (lease 10 s); the worker owning their
    table is killed with SIGKILL mid-deal; the game finishes. Returns the
    seconds from the kill to the first move any client saw after it."""
    log_path = tmp_path / "workers.log"
    port, proc = _two_workers(redis_server, log_path)
    try:
        took = await _game_with_a_kill(port, proc, store)
    finally:
        await _stop(proc)
    logged = _logged(log_path)
    died = [e for e in logged if e["event"] == "worker_died"]
    freed = [e for e in logged if e["event"] == "reaped_leases_freed"]
    assert len(died) == 1 and died[0]["how"] == "killed by signal SIGKILL", died
    # The worker started in its place freed exactly the dead one's lease.
    assert len(freed) == 1 and freed[0]["dead"] == died[0]["proc"], freed
    assert freed[0]["leases"] == 1 and freed[0]["worker"] == died[0]["worker"], freed
    return took


async def _game_with_a_kill(port: int, proc: subprocess.Popen[bytes], store: RedisStore) -> float:
    workers = await asyncio.to_thread(_workers, port, proc)
    url = f"ws://127.0.0.1:{port}"
    players = [await Session.open(url, f"P{i}", keep=True) for i in range(4)]
    await players[0].send(CreateTable(name="reaped", deals=1, private=True, seed="reaped"))
    seated = await players[0].wait_for(Seated)
    table_id = seated.table_id
    for s in players[1:]:
        await s.send(JoinTable(table_id=table_id))
        assert isinstance(await s.wait_for(Seated, Error, timeout=15), Seated)
    await players[0].wait_view(lambda v: all(x.kind == "human" for x in v.seats))
    await players[0].send(StartGame())
    # The worker that owns the table: its lease holds the worker's id.
    holder = await store.pool.get(b"atout:lease:" + table_id.encode())
    assert holder is not None
    owner = next(b for b in workers.values() if b["proc"] == holder.decode())
    before = await table_epoch(store, table_id)
    games = [asyncio.create_task(_play_on(s, random.Random(i))) for i, s in enumerate(players)]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while max(_cards_played(s.table) for s in players) < 10:
        assert loop.time() < deadline, "the game did not get going"
        await asyncio.sleep(0.005)
    seen = max(_cards_played(s.table) for s in players)
    killed = loop.time()
    os.kill(owner["pid"], signal.SIGKILL)
    while max(_cards_played(s.table) for s in players) <= seen:
        assert loop.time() - killed < LEASE_S, "no move before the lease lapsed"
        await asyncio.sleep(0.005)
    took = loop.time() - killed
    views = await asyncio.gather(*games)
    # Claimed again (the epoch went up) by a live worker, not the dead one.
    assert await table_epoch(store, table_id) > before
    now_held = await store.pool.get(b"atout:lease:" + table_id.encode())
    assert now_held is not None and now_held.decode() != owner["proc"]
    assert len({tuple(v.scores) for v in views}) == 1
    await players[1].send(GetHistory())
    records = (await players[1].wait_for(History)).records
    assert len(records) == len(views[0].sheet) == 1
    assert replay_record(records[0])["scores"] == views[0].sheet[0].scores
    for s in players:
        # Every view any client was sent, before and after the kill, is a
        # prefix of the deal record, and none went back: no acknowledged
        # move was lost.
        check_no_leaks(s, s.seat, records)
        assert s.received is not None
        played = [_cards_played(v) for m, v in s.received if v is not None]
        assert played == sorted(played)
        await s.close()
    return took


async def test_a_killed_workers_table_plays_again_well_before_its_lease(
    redis_server: RedisServer, store: RedisStore, tmp_path: Path
) -> None:
    took = await _kill_the_owner(redis_server, store, tmp_path)
    print(f"\nkill -9 to the next move: {took:.2f} s (lease {LEASE_S:.0f} s)")
    # The restart waits 0.5 s (the supervisor's first pause), then the new
    # worker frees the lease and claims the table as it starts: about a
    # second, where the lease would have cost 10 to 15 (the bound leaves a
    # busy machine its slow start of a worker: the lease is what it beats).
    assert took < LEASE_S, took


# --- the surviving workers are told ---------------------------------------------------


async def _on_worker(url: str, name: str, store: RedisStore, proc: str) -> tuple[Session, str]:
    """A session that the kernel gave to the worker whose id is ``proc``, and
    the private table it created there (its creator's worker owns a table)."""
    for _ in range(40):
        s = await Session.open(url, name, keep=True)
        await s.send(CreateTable(name=name, private=True, deals=1, bot_level="random", seed="reap"))
        table_id = (await s.wait_for(Seated)).table_id
        holder = await store.pool.get(b"atout:lease:" + table_id.encode())
        if holder is not None and holder.decode() == proc:
            return s, table_id
        await s.close()
    raise AssertionError(f"no connection reached worker {proc}")


async def _sit_at(s: Session, table_id: str) -> int:
    """``s`` leaves its own table and sits at ``table_id``: its seat."""
    await s.send(Leave())
    await s.wait_for(LobbySnapshot)
    await s.send(JoinTable(table_id=table_id))
    seated = await s.wait_for(Seated, Error, timeout=15)
    assert isinstance(seated, Seated) and seated.seat is not None, seated
    return seated.seat


def _progress(v: TableView | None) -> tuple[int, int, int]:
    """How far the game went: the deal, its bids, its cards played."""
    if v is None or v.deal is None:
        return (0, 0, 0)
    return (v.deal.number, len(v.deal.bids), _cards_played(v))


async def _goes_on(s: Session, since: tuple[int, int, int], within: float) -> float:
    """Seconds until ``s`` sees the game go further than ``since`` (at most ``within``)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while _progress(s.table) <= since:
        assert loop.time() - started < within, f"{s.name}: no move for {within} s"
        await asyncio.sleep(0.01)
    return loop.time() - started


async def test_a_reaped_workers_players_are_gone_for_the_survivors_at_once(
    redis_server: RedisServer, store: RedisStore, tmp_path: Path
) -> None:
    """A worker is killed while its player must bid at a table of the other
    worker (and never comes back). The worker started in its place says the
    dead one is gone: the survivor treats it as a missed heartbeat, so the
    player's seat is away at once (a bot bids for it after ``grace``) and the
    game goes on, instead of waiting a lease after something was sent to the
    dead worker (here nothing is: the table waits for that player). A table
    of the dead worker, taken over by the new one, goes on too for a client
    of the survivor sitting there (the new owner's ``Claimed`` moves it)."""
    log_path = tmp_path / "workers.log"
    port, proc = _two_workers(redis_server, log_path, "--grace", "0.2")
    try:
        workers = await asyncio.to_thread(_workers, port, proc)
        doomed, survivor = workers[0], workers[1]
        url = f"ws://127.0.0.1:{port}"
        # At the survivor's table: its own host, and a player of the doomed worker.
        host, kept = await _on_worker(url, "Host", store, survivor["proc"])
        guest, _ = await _on_worker(url, "Guest", store, doomed["proc"])
        guest_seat = await _sit_at(guest, kept)
        # At the doomed worker's table: its own host, and a watcher... a
        # player of the survivor.
        owner, lost = await _on_worker(url, "Owner", store, doomed["proc"])
        visitor, _ = await _on_worker(url, "Visitor", store, survivor["proc"])
        await _sit_at(visitor, lost)
        for creator in (host, owner):
            await creator.wait_view(lambda v: sum(x.kind == "human" for x in v.seats) == 2)
            await creator.send(StartGame())
        # Everyone plays but the guest and the doomed worker's host: their
        # turns wait (no turn timer) until their seats are away.
        games = [
            asyncio.create_task(autoplay(s, random.Random(i), _finished, timeout=60))
            for i, s in enumerate((host, visitor))
        ]

        def waits_for(s: Session, seat: int | None) -> bool:
            return s.table is not None and s.table.deal is not None and s.table.deal.turn == seat

        # Polled: the sessions' events are their autoplay's to read. Both
        # tables wait now (for the guest, for the doomed worker's host): what
        # either shows does not move until the kill.
        await eventually(
            lambda: waits_for(host, guest_seat) and waits_for(visitor, owner.seat),
            timeout=30,
            what="both tables waiting for a player of the doomed worker",
        )
        at_kill = _progress(host.table), _progress(visitor.table)
        os.kill(doomed["pid"], signal.SIGKILL)
        # The supervisor's pause (0.5 s), the new worker's start, ``grace``
        # (0.2 s): seconds, where the lease is 10.
        took, moved = await asyncio.gather(
            _goes_on(host, at_kill[0], within=6.0), _goes_on(visitor, at_kill[1], within=6.0)
        )
        print(
            f"\nkill -9 to the next move: survivor's table {took:.2f} s, dead one's {moved:.2f} s"
        )
        views = await asyncio.gather(*games)
        assert all(v.status == "finished" for v in views)
        for s in (host, visitor):
            assert not s.closed.is_set()  # never disconnected
            await s.close()
    finally:
        await _stop(proc)
    logged = _logged(log_path)
    died = [e for e in logged if e["event"] == "worker_died"]
    assert len(died) == 1 and died[0]["proc"] == doomed["proc"], died
    told = [e for e in logged if e["event"] == "process_reaped"]
    assert [(e["dead"], e["worker"]) for e in told] == [(doomed["proc"], 1)], told

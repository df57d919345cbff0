"""A worker the supervisor reaped: its leases are freed at once, not a lease later.

Real ``redis-server`` (tests/redis_server.py), the real supervisor and worker
processes of ``atout-server --workers 2``, real WebSocket clients
(server/workers.py, server/cluster/lease.py, docs/CLUSTER.md "A reaped worker").
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
from protocol.messages import CreateTable, Error, GetHistory, History, JoinTable, Seated, StartGame
from protocol.views import TableView
from server.cluster import lease
from server.cluster.lease import Leases
from server.game import replay_record
from server.store.redis import LEASES, RedisStore
from tests.cluster_helpers import QUICK_GAME_FLAGS
from tests.redis_server import RedisServer
from tests.server_helpers import autoplay
from tests.test_cluster import _epoch
from tests.test_server import _check_no_leaks
from tests.test_server_cli import free_port
from tests.test_workers import healthz

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
    scores = await store.pool.zrevrange(LEASES, 0, -1)
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


async def _kill_the_owner(redis_server: RedisServer, store: RedisStore, tmp_path: Path) -> float:
    """Four players on ``--workers 2`` (lease 10 s); the worker owning their
    table is killed with SIGKILL mid-deal; the game finishes. Returns the
    seconds from the kill to the first move any client saw after it."""
    port = free_port()
    log_path = tmp_path / "workers.log"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    args = [
        sys.executable, "-m", "server",
        "--workers", "2",
        "--port", str(port),
        "--redis", redis_server.url,
        "--lease", str(LEASE_S),
        *QUICK_GAME_FLAGS,
        "--log-format", "json",
    ]  # fmt: skip
    with open(log_path, "wb") as log:  # a pipe could fill up and stall the workers
        proc = subprocess.Popen(args, cwd=ROOT, env=clean, stderr=log)
    try:
        took = await _game_with_a_kill(port, proc, store)
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    logged = [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith("{")]
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
    before = await _epoch(store, table_id)
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
    assert await _epoch(store, table_id) > before
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
        _check_no_leaks(s, s.seat, records)
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
    # second, where the lease would have cost 10 to 15.
    assert took < 5.0, took

"""The campaign: ``--tables`` tables kept playing while the server is
killed and restarted (``--kills``) and Redis is killed and restarted
(``--redis-kills``), and what each kill cost."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.chaos_bench.figures import Figures
from bench.chaos_bench.server import ServerProcess, health, shipped_persistence
from bench.chaos_bench.tables import TableRun
from server.store.redis import RedisStore
from tests.support.ports import free_port
from tests.support.redis import RedisServer


class Chaos:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.figures = Figures()
        self.port = free_port()
        self.notes: list[str] = []
        self.tables: list[TableRun] = []
        self.tasks: set[asyncio.Task[Any]] = set()

    def note(self, text: str) -> None:
        if len(self.notes) < 50:
            self.notes.append(text)

    async def keep_tables(self, redis: RedisServer) -> None:
        """Keep ``--tables`` tables playing: a finished one is replaced."""
        index = 0
        while True:
            live = [t for t in self.tables if not t.done]
            for _ in range(self.args.tables - len(live)):
                index += 1
                table = TableRun(self, index)
                try:
                    await table.start()
                except (OSError, ConnectionClosed, InvalidHandshake):
                    await asyncio.sleep(0.2)
                    continue  # the server was down: try again later
                self.tables.append(table)
                for seat in table.seats:
                    task = asyncio.get_running_loop().create_task(seat.play())
                    self.tasks.add(task)
                    task.add_done_callback(self.tasks.discard)
            await asyncio.sleep(0.1)

    async def run(self) -> Figures:
        args = self.args
        rng = random.Random(args.seed)
        redis = RedisServer(*shipped_persistence())
        server = ServerProcess(self.port, redis.url, args.bot_think)
        server.start()
        await asyncio.to_thread(server.wait_listening)
        keeper = asyncio.get_running_loop().create_task(self.keep_tables(redis))
        try:
            storm = False
            for _ in range(args.kills):
                await asyncio.sleep(rng.uniform(0.05, 0.5) if storm else rng.uniform(0.2, 3.0))
                storm = rng.random() < 0.25
                await self.kill_server(server)
            for _ in range(args.redis_kills):
                await asyncio.sleep(rng.uniform(1.0, 3.0))
                await self.kill_redis(redis, rng)
            if args.redis_kills:
                # After Redis came back and the server wrote back: a server kill.
                await asyncio.sleep(1.0)
                await self.kill_server(server)
        finally:
            keeper.cancel()
            for table in self.tables:
                table.done = True
            for task in list(self.tasks):
                task.cancel()
            server.stop()
            redis.close()
        return self.figures

    async def tables_playing(self, timeout: float = 120.0) -> None:
        """Until ``--tables`` tables are seated and each has seen a move, so
        that every kill lands on a full house however slow the machine (the
        first used to wait 2 s, and a busy machine then killed the server
        before most tables sat down; later ones found a finished table's
        successor not yet seated: fewer resumes than the test asks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            playing = [t for t in self.tables if not (t.done or t.finishing) and t.acked.moves]
            if len(playing) >= self.args.tables:
                return
            await asyncio.sleep(0.05)
        self.note(f"only {len(playing)} tables playing after {timeout:.0f} s")

    async def kill_server(self, server: ServerProcess) -> None:
        await self.tables_playing()  # a finished table's successor seated too
        server.kill9()
        self.figures.kills += 1
        if os.environ.get("CHAOS_DEBUG"):
            print(f"{time.monotonic():.3f} KILL {self.figures.kills}", file=sys.stderr)
        # What the clients had received by the kill: let them read it first.
        await asyncio.sleep(0.2)
        live = [t for t in self.tables if not t.done and t.table_id]
        for table in live:
            table.acked_at_kill = table.acked
            table.playing_again_at = None
            table.loss_counted = False
        started = time.monotonic()
        server.start()
        deadline = started + 30
        while time.monotonic() < deadline:
            waiting = [t for t in live if not t.done and t.playing_again_at is None]
            if not waiting:
                break
            await asyncio.sleep(0.02)
        waiting = [t for t in live if not t.done and t.playing_again_at is None]
        self.figures.tables_not_playing_again += len(waiting)
        for t in waiting:
            docs = [(s.doc or {}).get("status") if s.doc else None for s in t.seats]
            self.note(
                f"kill {self.figures.kills}: {t.table_id} not playing again: acked "
                f"{t.acked.sheet}/{len(t.acked.moves)}, at kill "
                f"{t.acked_at_kill and (t.acked_at_kill.sheet, len(t.acked_at_kill.moves))}, "
                f"views {docs}, finishing {t.finishing}"
            )
        times = [t.playing_again_at - started for t in live if t.playing_again_at is not None]
        if times:
            self.figures.restart_to_playing_s.append(round(max(times), 3))
        for table in live:
            table.acked_at_kill = None

    async def kill_redis(self, redis: RedisServer, rng: random.Random) -> None:
        store = await RedisStore.connect(redis.url)
        before: dict[str, int] = {}
        for table_id in await store.open_tables():
            stored = await store.load(table_id)
            if stored is not None:
                before[table_id] = stored[0]
        await store.close()
        for table in self.tables:
            if not table.done:
                table.redis_outage = True
        redis.stop()  # SIGKILL
        self.figures.redis_kills += 1
        down_until = time.monotonic() + rng.uniform(0.2, 2.0)
        while time.monotonic() < down_until:
            h = await asyncio.to_thread(health, self.port)
            if h is not None:
                self.figures.redis_outage_unsaved_max = max(
                    self.figures.redis_outage_unsaved_max, int(h.get("unsaved_tables", 0))
                )
            await asyncio.sleep(0.1)
        redis.start()  # reloads the append-only file
        back = time.monotonic()
        store = await RedisStore.connect(redis.url)
        for table_id, version in before.items():
            stored = await store.load(table_id)
            self.figures.redis_tables_checked += 1
            if stored is None or stored[0] < version:
                self.figures.redis_writes_lost += 1
                self.note(f"redis lost {table_id}: {version} -> {stored and stored[0]}")
        await store.close()
        while time.monotonic() - back < 60:
            h = await asyncio.to_thread(health, self.port)
            if h is not None and h["status"] == "ok":
                break
            await asyncio.sleep(0.05)
        self.figures.redis_recovery_s.append(round(time.monotonic() - back, 2))

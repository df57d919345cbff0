"""The campaign's tables: two human seats that play random legal moves,
reconnect and resume by themselves, and the table that checks every view
after a restart against what was acknowledged before the kill."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import time
from typing import Any, Protocol

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.chaos_bench.figures import Figures
from bench.chaos_bench.progress import Progress
from bench.common.views import apply_patch, random_ecart
from server.game import replay_record


class Campaign(Protocol):
    """What a table and its seats need of the campaign (``campaign.Chaos``)."""

    args: argparse.Namespace
    figures: Figures
    port: int
    tasks: set[asyncio.Task[Any]]

    def note(self, text: str) -> None: ...


class Seat:
    """One human client of one table; reconnects and resumes by itself."""

    def __init__(self, run: Campaign, table: TableRun, seat: int) -> None:
        self.run = run
        self.table = table
        self.seat = seat
        self.ws: ClientConnection | None = None
        self.token: str | None = None
        self.doc: Any = None
        self.seq = -1
        self.rid = 0
        self.rng = random.Random()
        self.history: asyncio.Future[Any] | None = None
        self.resumed = asyncio.Event()
        self.back = False  # reconnected after a kill, no view acted on since

    async def send(self, msg: dict[str, Any]) -> None:
        self.rid += 1
        assert self.ws is not None
        await self.ws.send(msgspec.msgpack.encode({**msg, "rid": self.rid}))

    async def open(self) -> None:
        self.ws = await connect(
            f"ws://127.0.0.1:{self.run.port}",
            subprotocols=["atout.v1.msgpack"],  # type: ignore[list-item]
            compression=None,
            max_size=None,
            open_timeout=5,
        )
        await self.send({"t": "hello", "version": 1, "name": f"H{self.seat}"})

    async def reconnect(self) -> None:
        """Until seated again (or the table is gone for good)."""
        while not self.table.done:
            try:
                await self.open()
                await self.send({"t": "resume", "token": self.token, "last_seq": -1})
                self.run.figures.resumes += 1
                while True:
                    assert self.ws is not None
                    msg = msgspec.msgpack.decode(
                        await asyncio.wait_for(self.ws.recv(decode=False), 10)
                    )
                    if msg["t"] == "seated":
                        return
                    if msg["t"] == "error":
                        self.run.figures.resume_failures += 1
                        self.run.note(f"resume refused: {msg}")
                        await asyncio.sleep(0.5)
                        break
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                await asyncio.sleep(0.05)

    async def play(self) -> None:
        """Read views and act on every decision, until the table is done."""
        while not self.table.done:
            try:
                assert self.ws is not None
                data = await self.ws.recv(decode=False)
            except ConnectionClosed:
                self.doc, self.seq = None, -1
                await self.reconnect()
                self.table.fresh_after_restart.add(self.seat)
                self.back = True
                continue
            msg = msgspec.msgpack.decode(data)
            t = msg["t"]
            if t == "table":
                self.doc, self.seq = msg["view"], msg["seq"]
            elif t == "tpatch" and self.doc is not None and msg["seq"] == self.seq + 1:
                self.doc = apply_patch(self.doc, msg["patch"])
                self.seq = msg["seq"]
            elif t == "tpatch":
                await self.send({"t": "snapshot"})
                continue
            elif t == "history" and self.history is not None and not self.history.done():
                self.history.set_result(msg["records"])
                continue
            else:
                continue
            self.table.saw(self, Progress.of(self.doc), t == "table")
            await self.act()

    async def act(self) -> None:
        doc = self.doc
        if doc is not None and doc["status"] == "waiting" and self.seat == 0:
            if self.table.start_sent and self.back:
                self.back = False
                # The server died before it took our `start` (the table is
                # back waiting, both of us seated): press Start again, as a
                # player would.
                with contextlib.suppress(ConnectionClosed):
                    await self.send({"t": "start"})
            return
        if doc is None or doc["status"] != "playing":
            finished = doc is not None and doc["status"] == "finished"
            if finished and self.seat == 0 and not self.table.finishing:
                # Not awaited here: its answer is read by this very loop.
                self.table.finishing = True
                task = asyncio.get_running_loop().create_task(self.table.finish(self))
                self.run.tasks.add(task)
                task.add_done_callback(self.run.tasks.discard)
            return
        legal = doc["legal"]
        rng = self.rng
        if legal["bids"]:
            move: dict[str, Any] = {"t": "bid", "bid": rng.choice(legal["bids"])}
        elif legal["ecart"]:
            move = {"t": "ecart", "cards": random_ecart(legal, rng)}
        elif legal["chelem"]:
            move = {"t": "chelem", "declare": False}
        elif legal["cards"]:
            move = {"t": "play", "card": rng.choice(legal["cards"])}
        else:
            return
        await asyncio.sleep(rng.uniform(0.0, 0.01))
        with contextlib.suppress(ConnectionClosed):
            await self.send(move)


class TableRun:
    def __init__(self, run: Campaign, index: int) -> None:
        self.run = run
        self.index = index
        self.table_id = ""
        self.code = ""
        self.seats = [Seat(run, self, 0), Seat(run, self, 1)]
        self.acked = Progress(0, ())
        self.acked_at_kill: Progress | None = None
        self.fresh_after_restart: set[int] = set()
        self.playing_again_at: float | None = None
        self.done = False
        self.start_sent = False
        self.finishing = False
        self.loss_counted = False
        self.redis_outage = False  # Redis was killed while this game was played

    def saw(self, seat: Seat, progress: Progress, snapshot: bool) -> None:
        run = self.run
        at_kill = self.acked_at_kill
        if snapshot and at_kill is not None and seat.seat in self.fresh_after_restart:
            # The first snapshot after a restart: every acknowledged move there?
            self.fresh_after_restart.discard(seat.seat)
            lost = progress.lost_from(at_kill)
            if lost and not self.loss_counted:
                self.loss_counted = True  # once per table and kill, not per seat
                run.figures.acked_moves_lost += lost
                run.figures.loss_events.append(
                    {
                        "table": self.table_id,
                        "lost": lost,
                        "kill": run.figures.kills,
                        "acked": [at_kill.sheet, len(at_kill.moves), list(at_kill.moves[-3:])],
                        "restored": [
                            progress.sheet,
                            len(progress.moves),
                            list(progress.moves[-3:]),
                        ],
                        "status": seat.doc["status"],
                    }
                )
                self.acked = progress  # play goes on from what was restored
        if os.environ.get("CHAOS_DEBUG"):
            print(
                f"{time.monotonic():.3f} {self.table_id} seat{seat.seat} "
                f"{'snap' if snapshot else 'patch'} {progress.sheet}/{len(progress.moves)} "
                f"{seat.doc['status']} acked {self.acked.sheet}/{len(self.acked.moves)}",
                file=sys.stderr,
            )
        if progress >= self.acked and progress != self.acked:
            run.figures.moves_seen += 1
            past_kill = (
                at_kill is not None
                and self.playing_again_at is None
                and not progress.lost_from(at_kill)
                and not (at_kill >= progress)
            )
            if past_kill:
                self.playing_again_at = time.monotonic()
            self.acked = progress

    async def start(self) -> None:
        creator, other = self.seats
        await creator.open()
        await creator.send(
            {
                "t": "create",
                "private": True,
                "deals": self.run.args.deals,
                "bot_level": "random",
            }
        )
        while True:
            assert creator.ws is not None
            msg = msgspec.msgpack.decode(await creator.ws.recv(decode=False))
            if msg["t"] == "seated":
                self.table_id, creator.token = msg["table_id"], msg["token"]
            elif msg["t"] == "table":
                creator.doc, creator.seq = msg["view"], msg["seq"]
                break
        await other.open()
        await other.send({"t": "join", "table_id": self.table_id, "seat": 1})
        while True:
            assert other.ws is not None
            msg = msgspec.msgpack.decode(await other.ws.recv(decode=False))
            if msg["t"] == "seated":
                other.token = msg["token"]
            elif msg["t"] == "table":
                other.doc, other.seq = msg["view"], msg["seq"]
                break
        await creator.send({"t": "start"})
        self.start_sent = True

    async def finish(self, seat: Seat) -> None:
        """The game is over: its scores must be the sum of its deal records."""
        loop = asyncio.get_running_loop()
        for _ in range(50):
            seat.history = loop.create_future()
            try:
                await seat.send({"t": "history"})
                records = await asyncio.wait_for(seat.history, 5)
                break
            except (ConnectionClosed, TimeoutError):
                await asyncio.sleep(0.2)
        else:
            self.run.note(f"{self.table_id}: no history")
            records = []
        totals = [0, 0, 0, 0]
        for record in records:
            result = replay_record(record)
            for i, s in enumerate(result.get("scores", [0, 0, 0, 0])):
                totals[i] += s
        scores = seat.doc["scores"]
        figures = self.run.figures
        figures.games_finished += 1
        if totals == scores:
            figures.games_matching_records += 1
        else:
            counted = sum(1 for r in records if not replay_record(r).get("annulled"))
            figures.mismatches.append(
                {
                    "table": self.table_id,
                    "scores": scores,
                    "records": totals,
                    "records_kept": len(records),
                    "counted_records": counted,
                    "deals": self.run.args.deals,
                    "redis_outage_during_game": self.redis_outage,
                }
            )
            if self.redis_outage:
                figures.mismatches_redis_outage += 1
        self.done = True
        for s in self.seats:
            if s.ws is not None:
                with contextlib.suppress(Exception):
                    await s.ws.close()

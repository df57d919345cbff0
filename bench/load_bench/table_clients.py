"""One table of the load bench: its four WebSocket clients, each keeping its
view in step (``clients.sync``), the moves in flight and the pacing; the
latency of a move ends when the fourth client's view shows it."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any, Protocol

import msgspec

from bench.load_bench.lean_socket import LeanSocket
from bench.load_bench.views import (
    FIELDS,
    Named,
    can_act,
    choose,
    patch_view,
    read_schema,
    view_progress,
)
from clients.sync import Sync
from protocol.diff import PatchError
from protocol.positional import TableReader

ENCODE = msgspec.msgpack.Encoder().encode
DECODE = msgspec.msgpack.Decoder().decode
PERF = time.perf_counter


def first_move_delay(rng: random.Random, pace: float, spread: float) -> float:
    """When a table makes its first move: a random part of one move's period,
    or of ``spread`` seconds if longer. Why: tables that start together end
    their deals together (a deal is ~80 moves), a burst of deal ends every
    deal's length that no server of tables begun at different times sees;
    spread over one deal's length, their deals end apart."""
    return rng.random() * max(1.0 / pace, spread)


class ClientProcess(Protocol):
    """What a table and its clients need of their client process (``worker.Worker``)."""

    kind: str
    protocol: int
    subprotocol: str
    reader: TableReader | None
    urls: list[str]
    pace: float
    spread: float
    wid: int
    rng: random.Random
    connecting: asyncio.Semaphore
    tasks: set[asyncio.Task[Any]]
    client_class: type[Client]
    rid: int
    quitting: bool
    open_conns: int
    disconnects: int
    bytes_in: int
    msgs_in: int
    late_ticks: int
    refused_moves: int
    window_start: float | None
    window_end: float | None
    moves_sent: int

    def apply_v2(self, doc: Any, ops: Any) -> Any: ...

    def count(self, what: str) -> None: ...

    def record(self, move: Move, now: float, busy: bool = False) -> None: ...


class Move:
    __slots__ = ("mask", "progress", "rid", "t0")

    def __init__(self, progress: Any, t0: float, rid: int) -> None:
        self.progress = progress
        self.t0 = t0
        self.mask = 0  # seats whose view shows the move
        self.rid = rid


class Client:
    """One WebSocket client: its synchroniser (document, sequence number) and progress."""

    __slots__ = (
        "changed",
        "closed",
        "game",
        "idx",
        "progress",
        "resuming",
        "run",
        "sync",
        "welcomed",
        "ws",
    )

    def __init__(self, run: TableRun, idx: int) -> None:
        self.run = run
        self.idx = idx
        self.ws: LeanSocket | None = None
        w = run.worker
        apply = patch_view if w.protocol == 1 else w.apply_v2
        self.sync: Sync[Any, Any, list[Any]] = Sync(apply, patch_view)
        self.welcomed = False
        self.game = 0
        # (game, *view_progress) for a table view; the last move number for bare.
        self.progress: Any = 0 if run.worker.kind == "bare" else (0, -1, 0, 0, 0)
        self.changed = asyncio.Event()
        self.closed = False
        self.resuming = False  # bench/scale.py: back on a server, not seated yet

    async def open(self) -> None:
        w = self.run.worker
        async with w.connecting:
            # Never pings (browsers do not; the server does, and gets its pong).
            self.ws = await LeanSocket.open(self.url(), w.subprotocol, self.read, self.gone, 60)
        w.open_conns += 1
        if w.kind == "bare":
            self.ws.send(ENCODE({"g": self.run.gid}))
            self.welcomed = True
            return
        self.send({"t": "hello", "rid": 1, "version": w.protocol, "name": "load"})
        await self.wait(lambda: self.welcomed, 30)

    @property
    def doc(self) -> Any:
        """The table view (a plain document), or None before it or while a snapshot is due."""
        view = self.sync.table.view
        if view is None or self.run.worker.protocol == 1:
            return view
        return Named(view, FIELDS["TableView"])

    @property
    def seq(self) -> int:
        return self.sync.table.seq

    def url(self) -> str:
        # Several URLs (bench/scale.py): a table's four clients on different
        # servers, the first of each table on the next server round.
        urls = self.run.worker.urls
        return urls[(self.run.number + self.idx) % len(urls)]

    def send(self, msg: dict[str, Any]) -> None:
        if self.ws is None:
            raise ConnectionError("not connected")
        self.ws.send(ENCODE(msg))

    async def wait(self, pred: Any, timeout: float) -> None:
        async def loop() -> None:
            while not pred():
                if self.closed:
                    raise ConnectionError("the server closed the connection")
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout)

    def read(self, data: bytes) -> None:
        """A message from the server (within the socket's ``data_received``)."""
        w = self.run.worker
        w.bytes_in += len(data)
        w.msgs_in += 1
        try:
            self.take(DECODE(data))
        except Exception as e:  # our own bug, or a message we cannot read: count it
            w.count(f"reader:{type(e).__name__}")

    def gone(self, exc: BaseException | None) -> None:
        """The connection closed (``exc``: why, None if cleanly)."""
        w = self.run.worker
        self.closed = True
        w.open_conns -= 1
        if not w.quitting:
            w.disconnects += 1
            if exc is not None:
                w.count(f"reader:{type(exc).__name__}")
        self.changed.set()

    def take(self, msg: Any) -> None:
        run = self.run
        if run.worker.kind == "bare":
            self.progress = msg["n"]
            run.on_update(self)
            return
        sync = self.sync
        if type(msg) is list:  # version 2: a table patch, [seq, op, ...]
            reader = run.worker.reader
            try:
                seq, ops = reader.ops(msg)  # type: ignore[union-attr]
            except (PatchError, AttributeError):
                seq, ops = msg[0] if msg and type(msg[0]) is int else -1, None
            msg = {"t": "tpatch", "seq": seq, "patch": ops}
        t = msg["t"]
        if t == "tpatch":
            if sync.on_tpatch(msg["seq"], msg["patch"]):
                # The one command the synchroniser sends: a snapshot request.
                run.worker.count("seq_gap" if sync.table.miss == "gap" else "patch_failed")
                self.send({"t": "snapshot", "rid": 0})
                return
            if sync.table.view is None:
                return  # sent before the snapshot we asked for: it covers it
        elif t == "table":
            view = msg["view"]
            sync.on_table(msg["seq"], view, None)
            sync.seat = self.doc["you"]
        elif t == "welcome":
            if "schema" in msg:
                run.worker.reader = read_schema(msg["schema"])
            self.welcomed = True
        elif t == "error":
            run.worker.count(f"error:{msg['code']}")
            run.refused(self, msg.get("rid"))
        elif t in ("bye", "left"):
            if t == "left":
                sync.on_left()
            run.worker.count(f"{t}:{msg.get('code') or msg.get('reason')}")
        else:  # seated, lobby, lpatch, pong
            if t == "seated":
                sync.on_seated(msg["table_id"], msg.get("seat"), msg.get("token"))
            self.changed.set()
            return
        self.changed.set()
        doc = self.doc
        if doc is not None:
            progress = view_progress(doc)
            if progress < self.progress[1:]:
                self.game += 1  # a new game starts from zero
            self.progress = (self.game, *progress)
            run.on_update(self)


class TableRun:
    """One table: four clients, the moves in flight, the pacing."""

    def __init__(self, worker: ClientProcess, number: int) -> None:
        self.worker = worker
        self.number = number
        self.gid = f"{worker.wid}-{number}"
        self.clients = [worker.client_class(self, i) for i in range(4)]
        self.pending: list[Move] = []
        self.sent_at: Any = None  # the actor's progress when it last moved
        self.owed = False
        self.moves = 0  # bare: the number of the last move sent
        self.again_sent = -1
        self.seated = False
        self.playing = False
        self.broken = False
        self.stalled = 0  # --abuse: spectators that stopped reading (ever) at this table

    async def connect(self) -> None:
        await asyncio.gather(*(c.open() for c in self.clients))

    async def seat(self) -> None:
        if self.worker.kind == "bare":
            self.seated = True
            return
        host, *guests = self.clients
        host.send(
            {
                "t": "create",
                "rid": 1,
                "name": f"load {self.gid}",
                "private": True,  # not listed: the lobby stays small
                "deals": 40,  # a game never ends within a run
                "bot_level": "random",
                "turn_timer": 0.0,
                # Nobody here presses Continue: the next deal comes after
                # the deal pause, not after the server's result wait (60 s).
                "result_wait": 0.0,
            }
        )
        await host.wait(lambda: host.doc is not None, 30)
        code = host.doc["invite_code"]
        for c in guests:
            c.send({"t": "join", "rid": 1, "code": code})
        for c in guests:
            await c.wait(lambda c=c: c.doc is not None, 30)
        await host.wait(lambda: all(s["kind"] == "human" for s in host.doc["seats"]), 30)
        host.send({"t": "start", "rid": 2})
        for c in self.clients:
            await c.wait(lambda c=c: c.doc is not None and c.doc["status"] == "playing", 30)
        self.seated = True

    async def drive(self) -> None:
        """One move every period, the first after ``first_move_delay``."""
        w = self.worker
        period = 1.0 / w.pace
        nxt = PERF() + first_move_delay(w.rng, w.pace, w.spread)
        while True:
            delay = nxt - PERF()
            if delay > 0:
                await asyncio.sleep(delay)
            nxt += period
            now = PERF()
            if nxt < now:  # fell behind (overloaded): skip rather than burst
                w.late_ticks += 1
                nxt = now + period
            self.move()

    def actor(self) -> Client | None:
        if self.worker.kind == "bare":
            c = self.clients[(self.moves + 1) % 4]
            return c if c.progress >= self.moves else None
        for c in self.clients:
            if c.closed or c.resuming:  # its server went away (bench/scale.py kills some)
                continue
            if c.doc is not None and (self.sent_at is None or c.progress > self.sent_at):
                if can_act(c.doc):
                    return c
                if c.doc["status"] == "finished" and c.idx == 0 and self.again_sent != c.game:
                    # Only after 40 deals: a new game at the same table.
                    self.again_sent = c.game
                    c.changed.set()
                    with contextlib.suppress(ConnectionError):  # closing: its reader says so
                        c.send({"t": "again", "rid": 3})
        return None

    def move(self) -> None:
        c = self.actor()
        if c is None:
            self.owed = True  # move as soon as a view allows it
            return
        self.owed = False
        w = self.worker
        w.rid += 1
        if w.kind == "bare":
            self.moves += 1
            data = ENCODE({"t": "m", "n": self.moves})
            before: Any = self.moves - 1
        else:
            data = ENCODE(choose(c.doc, w.rng, w.rid))
            before = self.sent_at = c.progress
        t0, rid = PERF(), w.rid
        self.pending.append(Move(before, t0, rid))
        if w.window_start is not None and t0 >= w.window_start and w.window_end is None:
            w.moves_sent += 1
        try:
            c.ws.send(data)  # type: ignore[union-attr]
        except ConnectionError:
            # Its server went away between the choice and the send (bench/scale.py):
            # the move was never made; another client, or this one once back, makes it.
            self.pending = [m for m in self.pending if m.rid != rid]
            self.sent_at = None
            self.owed = True

    def on_update(self, client: Client) -> None:
        if self.pending:
            bit = 1 << client.idx
            progress = client.progress
            done = None
            for m in self.pending:
                if not m.mask & bit and progress > m.progress:
                    m.mask |= bit
                    if m.mask == 15:
                        self.worker.record(m, PERF(), self.stalled > 0)
                        done = True
            if done:
                self.pending = [m for m in self.pending if m.mask != 15]
        if self.owed and self.playing:
            self.move()

    def refused(self, client: Client, rid: Any) -> None:
        # A refused move shows in no view: forget it and let the actor retry.
        before = len(self.pending)
        self.pending = [m for m in self.pending if m.rid != rid]
        if len(self.pending) != before:
            self.sent_at = None
            self.worker.refused_moves += 1

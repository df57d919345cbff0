"""Benchmark: how many players one core hosts, and at what latency.

The server runs in its own process pinned to one core (core 0 by default);
client processes pinned to the other cores drive many tables over real
WebSockets on loopback. Each table has four human clients (no bots): one
creates a private table (``turn_timer`` 0), three join it by invite code, the
creator starts, and the table then plays random legal moves at a fixed pace
(``--pace`` moves per second per table, each table's phase jittered). A
client keeps its view in step with the terminal client's synchroniser
(``clients/sync.py``: the seq, patch and snapshot rules), over the plain
msgpack document patched in place (plain dict and list operations, no typed
conversion: cheap enough for thousands of clients per process).

Latency is move-to-last-seat-update: from the moment a client sends a move to
the moment the fourth client of its table holds a view showing it. "Showing
it" is judged from the document, not from sequence numbers: a view's
progress (game, score-sheet length, phase, bids, cards played) is a tuple
that every move makes strictly greater.

The number of tables ramps up in ``--steps`` on one server: each step connects
and seats the new tables, lets everything play for ``--warmup`` seconds, then
measures for ``--measure`` seconds. Per step it prints clients, tables, moves
per second, latency p50/p99/max, the server's CPU (share of one core and CPU
microseconds per move, from /proc/<pid>/stat), its RSS, bytes per move (all
payload bytes the clients received / moves), the clients' own CPU (if it nears
100% of their cores, the clients and not the server are measured), errors
(``Error`` messages, sequence gaps, failed patches) and disconnects; below
each row, how long the server waited, runnable, for its core (schedstat: on a
shared machine, other work on that core shows here and in the tails) and the
slowest moves with any collector pause that ended while they waited.
``--gc-log`` runs the server through a tiny wrapper that logs every garbage
collection (``gc.callbacks``) and reports the pauses per step;
``--gc-threshold`` and ``--gc-freeze-every`` are experiments on top of the
server's own ``tune_gc`` (thresholds; a periodic ``gc.freeze()``), to measure
a change before making it. ``--nice -10`` (root) keeps the machine's other
work off the measured cores; ``--server-root`` runs the server from another
copy of the code (say a ``git archive`` export), so a tree being edited does
not change under a long run.

``--target bare`` drives ``bench/bare_server.py`` instead (a ``websockets``
fan-out with no game: each move is one tiny frame broadcast to the four
clients of its group); ``--target both`` runs ours then bare at the same pace
and prints the ratio of server CPU per move; ``--rounds N`` repeats the
ramps, ours and bare interleaved, and prints the spread of that ratio (the
cost of the same work drifts over minutes on a virtual machine, so a ratio is
only fair between neighbouring runs). ``--idle N`` measures memory:
the RSS growth of a fresh server for 4N connected clients, then for N idle
tables (seated, game started). ``--abuse IDLE,STALLED`` measures memory
and latency under abuse (see ``abuse``). ``--profile FILE`` runs py-spy on the server
during the measurement of the last step and prints the hot spots.

    python bench/load.py --steps 20,50 --measure 10                # small, quick
    python bench/load.py --store both --target both --idle 250 \\
        --steps 50,100,200,500,1000 --measure 20 --json /tmp/load.json
    python bench/load.py --store redis --target both --steps 500,1000 --rounds 3
    python bench/load.py --steps 500 --profile /tmp/atout-profile.txt
    python bench/load.py --steps 1000 --gc-freeze-every 0.5       # an experiment

Every run is bounded (``--max-time``), loopback only, and kills its children.
``--worker`` is the client process's entry point, not for people.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import math
import os
import random
import resource
import shlex
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
from websockets.exceptions import ConnectionClosed

# Runnable as a plain script: the project and its tests folder from the root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clients.sync import Sync
from protocol.cards import CODES
from protocol.codec import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_V2_MSGPACK
from protocol.diff import PatchError
from protocol.positional import TableReader
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parent.parent

ENCODE = msgspec.msgpack.Encoder().encode
DECODE = msgspec.msgpack.Decoder().decode
CLK_TCK = os.sysconf("SC_CLK_TCK")
PERF = time.perf_counter

PHASE_RANK = {"bidding": 0, "ecart": 1, "chelem": 2, "play": 3, "done": 4, "annulled": 4}


# =============================================================================
# The client side (one worker process drives many tables)
# =============================================================================


def apply_patch(doc: Any, patch: list[Any]) -> Any:
    """Apply ``[path, op, value]`` ops (protocol/diff.py) to ``doc`` in place.

    No checks beyond what Python does anyway: a bad step raises and the
    caller asks for a snapshot. Values come fresh from the decoder, so they
    can be put in the document without copying.
    """
    for path, op, value in patch:
        if not path:
            if op == "set":
                doc = value
            else:  # append to the root array (views are maps: never happens)
                doc.extend(value)
            continue
        node = doc
        for step in path[:-1]:
            node = node[step]
        last = path[-1]
        if op == "set":
            node[last] = value
        elif op == "append":
            node[last].extend(value)
        elif op == "del":
            del node[last]
        else:
            raise ValueError(f"unknown op {op!r}")
    return doc


def patch_view(doc: Any, patch: list[Any]) -> Any:
    """``apply_patch`` as ``clients.sync`` wants it: a patch that does not
    fit the document raises ``PatchError`` (the sync then asks for a snapshot)."""
    try:
        return apply_patch(doc, patch)
    except (LookupError, TypeError, ValueError, AttributeError) as e:
        raise PatchError(f"{type(e).__name__}: {e}") from None


FIELDS: dict[str, dict[str, tuple[int, Any]]] = {}
"""Protocol version 2: each struct's fields by name, (position, type), from the
server's schema (one server per worker: the same for every client)."""


def read_schema(schema: Any) -> TableReader:
    reader = TableReader(schema)
    FIELDS.clear()
    for struct, fields in reader.structs.items():
        FIELDS[struct] = {name: (i, kind) for i, (name, kind) in enumerate(fields)}
    return reader


def _named(value: Any, kind: Any) -> Any:
    if value is None or kind is None:
        return value
    if kind == "card":
        return CODES[value]
    if type(kind) is list:
        item = kind[0]
        if item is None:
            return value
        if item == "card":
            return [CODES[c] for c in value]
        return [Named(v, FIELDS[item]) for v in value]
    return Named(value, FIELDS[kind])


class Named:
    """A version 2 (positional) document read by field names, as the rest of
    the bench reads a version 1 one: cheap to make, the arrays are not copied."""

    __slots__ = ("_fields", "_value")

    def __init__(self, value: list[Any], fields: dict[str, tuple[int, Any]]) -> None:
        self._value = value
        self._fields = fields

    def __getitem__(self, name: str) -> Any:
        i, kind = self._fields[name]
        return _named(self._value[i], kind)

    def get(self, name: str, default: Any = None) -> Any:
        field = self._fields.get(name)
        return default if field is None else _named(self._value[field[0]], field[1])


def view_progress(doc: Any) -> tuple[int, int, int, int]:
    """(score-sheet length, phase rank, bids, cards played) of a table view.

    Every move makes it strictly greater within a game: a bid adds a bid, the
    écart and the chelem decision move the phase on, a card adds a card to the
    trick or completes one (four cards each). A finished deal ranks after all
    its moves (phase 4) and before the next deal. The sheet counts the lines
    before the deal shown: a finished deal is shown already scored, its own
    line on the sheet, and the next deal starts with that same sheet. A new
    game starts again from zero: ``Client`` counts games.
    """
    deal = doc.get("deal")
    if deal is None:
        return (-1, 0, 0, 0)
    trick = deal.get("trick")
    played = 4 * len(deal["tricks"]) + (len(trick["cards"]) if trick else 0)
    rank = PHASE_RANK.get(deal["phase"], 5)
    before = len(doc["sheet"]) - (1 if rank == 4 else 0)
    return (before, rank, len(deal["bids"]), played)


def can_act(doc: Any) -> bool:
    if doc is None or doc.get("status") != "playing":
        return False
    legal = doc["legal"]
    return bool(legal["bids"] or legal["ecart"] or legal["chelem"] or legal["cards"])


def choose(doc: Any, rng: random.Random, rid: int) -> dict[str, Any]:
    """A random legal move (a poignée is optional: never shown)."""
    legal = doc["legal"]
    if legal["bids"]:
        return {"t": "bid", "rid": rid, "bid": rng.choice(legal["bids"])}
    if legal["ecart"]:
        candidates = legal["ecart"]
        trumps = [c for c in candidates if c[0] == "T"]
        suits = [c for c in candidates if c[0] != "T"]
        need = legal["ecart_trumps"]
        cards = suits + rng.sample(trumps, need) if need else rng.sample(suits, 6)
        return {"t": "ecart", "rid": rid, "cards": cards}
    if legal["chelem"]:
        return {"t": "chelem", "rid": rid, "declare": rng.random() < 0.02}
    return {"t": "play", "rid": rid, "card": rng.choice(legal["cards"])}


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
        self.ws: Any = None
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
        from websockets.asyncio.client import connect

        async with w.connecting:
            self.ws = await connect(
                self.url(),
                subprotocols=[w.subprotocol],  # type: ignore[list-item]
                compression=None,
                max_size=2**22,
                open_timeout=60,
                ping_interval=None,  # browsers do not ping; the server does
                close_timeout=1,
            )
        w.open_conns += 1
        w.tasks.add(asyncio.get_running_loop().create_task(self.read()))
        if w.kind == "bare":
            await self.ws.send(ENCODE({"g": self.run.gid}))
            self.welcomed = True
            return
        await self.send({"t": "hello", "rid": 1, "version": w.protocol, "name": "load"})
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

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(ENCODE(msg))

    async def wait(self, pred: Any, timeout: float) -> None:
        async def loop() -> None:
            while not pred():
                if self.closed:
                    raise ConnectionError("the server closed the connection")
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout)

    async def read(self) -> None:
        w = self.run.worker
        try:
            async for data in self.ws:
                w.bytes_in += len(data)
                w.msgs_in += 1
                await self.take(DECODE(data))
        except Exception as e:  # a disconnect, or our own bug: count both
            if not w.quitting:
                w.count(f"reader:{type(e).__name__}")
        finally:
            self.closed = True
            w.open_conns -= 1
            if not w.quitting:
                w.disconnects += 1
            self.changed.set()

    async def take(self, msg: Any) -> None:
        run = self.run
        if run.worker.kind == "bare":
            self.progress = msg["n"]
            await run.on_update(self)
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
                await self.send({"t": "snapshot", "rid": 0})
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
            await run.on_update(self)


class TableRun:
    """One table: four clients, the moves in flight, the pacing."""

    def __init__(self, worker: Worker, number: int) -> None:
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
        await host.send(
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
            await c.send({"t": "join", "rid": 1, "code": code})
        for c in guests:
            await c.wait(lambda c=c: c.doc is not None, 30)
        await host.wait(lambda: all(s["kind"] == "human" for s in host.doc["seats"]), 30)
        await host.send({"t": "start", "rid": 2})
        for c in self.clients:
            await c.wait(lambda c=c: c.doc is not None and c.doc["status"] == "playing", 30)
        self.seated = True

    async def drive(self) -> None:
        """One move every period, the first after a random part of one."""
        w = self.worker
        period = 1.0 / w.pace
        nxt = PERF() + w.rng.random() * period
        while True:
            delay = nxt - PERF()
            if delay > 0:
                await asyncio.sleep(delay)
            nxt += period
            now = PERF()
            if nxt < now:  # fell behind (overloaded): skip rather than burst
                w.late_ticks += 1
                nxt = now + period
            await self.move()

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
                    asyncio.get_running_loop().create_task(c.send({"t": "again", "rid": 3}))
        return None

    async def move(self) -> None:
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
            await c.ws.send(data)
        except ConnectionClosed:
            # Its server went away between the choice and the send (bench/scale.py):
            # the move was never made; another client, or this one once back, makes it.
            self.pending = [m for m in self.pending if m.rid != rid]
            self.sent_at = None
            self.owed = True

    async def on_update(self, client: Client) -> None:
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
            await self.move()

    def refused(self, client: Client, rid: Any) -> None:
        # A refused move shows in no view: forget it and let the actor retry.
        before = len(self.pending)
        self.pending = [m for m in self.pending if m.rid != rid]
        if len(self.pending) != before:
            self.sent_at = None
            self.worker.refused_moves += 1


class Worker:
    """A client process: its tables, and the counters of the current window."""

    client_class: type[Client] = Client
    table_class: type[TableRun] = TableRun

    def __init__(self, args: argparse.Namespace) -> None:
        self.kind = args.kind
        self.protocol = int(getattr(args, "protocol", 2))
        self.subprotocol = SUBPROTOCOL_MSGPACK if self.protocol == 1 else SUBPROTOCOL_V2_MSGPACK
        self.reader: TableReader | None = None
        """Version 2: the server's schema, from the first welcome."""
        self.url = args.url
        self.urls = args.url.split(",")  # several: see Client.url
        self.pace = args.pace
        self.wid = args.wid
        self.rng = random.Random(f"load/{args.seed}/{args.wid}")
        self.connecting = asyncio.Semaphore(args.connect_concurrency)
        self.tables: list[TableRun] = []
        self.tasks: set[asyncio.Task[Any]] = set()
        self.rid = 10
        self.quitting = False
        self.open_conns = 0
        self.disconnects = 0
        self.bytes_in = 0
        self.msgs_in = 0
        self.errors: Counter[str] = Counter()
        self.late_ticks = 0
        self.refused_moves = 0
        self.window_start: float | None = None
        self.window_end: float | None = None
        self.latencies: list[float] = []
        self.sent_times: list[float] = []
        self.moves_sent = 0
        self.mark: dict[str, Any] = {}
        # --abuse: moves of the tables that non-readers watch, apart; the
        # extra connections (idle ones that read, non-readers that do not).
        self.busy_latencies: list[float] = []
        self.idle_open = 0
        self.stall_open = 0
        self.stall_asks = 0
        self.stall_failed: Counter[str] = Counter()

    def apply_v2(self, doc: Any, ops: Any) -> Any:
        if ops is None or self.reader is None:
            raise PatchError("a patch that does not parse")
        return self.reader.apply(doc, ops)

    def count(self, what: str) -> None:
        self.errors[what] += 1

    def record(self, move: Move, now: float, busy: bool = False) -> None:
        start = self.window_start
        if start is None or move.t0 < start:
            return
        if self.window_end is not None and move.t0 >= self.window_end:
            return
        if busy:
            self.busy_latencies.append(now - move.t0)
            return
        self.latencies.append(now - move.t0)
        self.sent_times.append(move.t0)

    # -- commands from the coordinator ------------------------------------------

    async def connect(self, tables: int) -> dict[str, Any]:
        new = [self.table_class(self, len(self.tables) + i) for i in range(tables)]
        self.tables.extend(new)
        t0 = PERF()
        results = await asyncio.gather(*(t.connect() for t in new), return_exceptions=True)
        failed = 0
        for t, r in zip(new, results, strict=True):
            if isinstance(r, BaseException):
                t.broken = True
                failed += 1
                self.count(f"connect:{type(r).__name__}")
        return {"connected": len(new) - failed, "failed": failed, "seconds": PERF() - t0}

    async def join(self, tables: int) -> dict[str, Any]:
        """Connect and seat ``tables`` new tables, a few at a time, as players
        arriving would: each client spends a moment in the lobby, not the
        whole ramp (the lobby sends every watcher each change of its list)."""
        new = [self.table_class(self, len(self.tables) + i) for i in range(tables)]
        self.tables.extend(new)
        sem = asyncio.Semaphore(16)

        async def one(t: TableRun) -> None:
            async with sem:
                await t.connect()
                await t.seat()

        t0 = PERF()
        results = await asyncio.gather(*(one(t) for t in new), return_exceptions=True)
        failed = 0
        for t, r in zip(new, results, strict=True):
            if isinstance(r, BaseException):
                t.broken = True
                failed += 1
                self.count(f"join:{type(r).__name__}")
        gc.collect()
        return {"joined": len(new) - failed, "failed": failed, "seconds": PERF() - t0}

    async def seat(self) -> dict[str, Any]:
        todo = [t for t in self.tables if not t.broken and not t.seated]
        sem = asyncio.Semaphore(64)

        async def one(t: TableRun) -> None:
            async with sem:
                await t.seat()

        t0 = PERF()
        results = await asyncio.gather(*(one(t) for t in todo), return_exceptions=True)
        failed = 0
        for t, r in zip(todo, results, strict=True):
            if isinstance(r, BaseException):
                t.broken = True
                failed += 1
                self.count(f"seat:{type(r).__name__}")
        gc.collect()
        return {"seated": len(todo) - failed, "failed": failed, "seconds": PERF() - t0}

    def play(self) -> dict[str, Any]:
        started = 0
        for t in self.tables:
            if t.seated and not t.broken and not t.playing:
                t.playing = True
                self.tasks.add(asyncio.get_running_loop().create_task(t.drive()))
                started += 1
        return {"playing": started}

    def _counters(self) -> dict[str, Any]:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        return {
            "cpu": ru.ru_utime + ru.ru_stime,
            "time": PERF(),
            "bytes_in": self.bytes_in,
            "msgs_in": self.msgs_in,
            "disconnects": self.disconnects,
            "late_ticks": self.late_ticks,
            "refused": self.refused_moves,
            "errors": dict(self.errors),
        }

    def measure_start(self) -> dict[str, Any]:
        self.latencies = []
        self.busy_latencies = []
        self.sent_times = []
        self.moves_sent = 0
        self.window_end = None
        self.mark = self._counters()
        self.window_start = PERF()
        return {"ok": True}

    async def measure_stop(self, grace: float) -> dict[str, Any]:
        end = self.window_end = PERF()
        after = self._counters()
        # Wait for the moves sent in the window; any still missing counts with
        # the time waited (a lower bound) so a stall cannot hide from p99.
        deadline = PERF() + grace
        while PERF() < deadline and any(
            m.t0 < end and m.t0 >= (self.window_start or 0) for t in self.tables for m in t.pending
        ):
            await asyncio.sleep(0.05)
        unfinished = 0
        now = PERF()
        for t in self.tables:
            for m in t.pending:
                if (self.window_start or 0) <= m.t0 < end:
                    unfinished += 1
                    if t.stalled:
                        self.busy_latencies.append(now - m.t0)
                        continue
                    self.latencies.append(now - m.t0)
                    self.sent_times.append(m.t0)
        before = self.mark
        errors = Counter(after["errors"])
        errors.subtract(before["errors"])
        slowest = sorted(zip(self.sent_times, self.latencies, strict=True), key=lambda m: -m[1])
        out = {
            "latencies_ms": [round(x * 1e3, 3) for x in self.latencies],
            "busy_latencies_ms": [round(x * 1e3, 3) for x in self.busy_latencies],
            "slowest": [[t, round(x * 1e3, 2)] for t, x in slowest[:30]],
            "moves_sent": self.moves_sent,
            "unfinished": unfinished,
            "seconds": end - before["time"],
            "client_cpu_s": after["cpu"] - before["cpu"],
            "bytes_in": after["bytes_in"] - before["bytes_in"],
            "msgs_in": after["msgs_in"] - before["msgs_in"],
            "disconnects": after["disconnects"] - before["disconnects"],
            "late_ticks": after["late_ticks"] - before["late_ticks"],
            "refused": after["refused"] - before["refused"],
            "errors": {k: v for k, v in errors.items() if v},
            "open_conns": self.open_conns,
            "tables": sum(1 for t in self.tables if t.playing and not t.broken),
        }
        self.window_start = None
        return out

    async def other_command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """A command of a subclass's (bench/scale.py)."""
        return {"error": f"unknown command {cmd['cmd']}"}

    # -- --abuse: connections that do nothing, and connections that stop reading --

    async def _open_raw(self, **kw: Any) -> Any:
        from websockets.asyncio.client import connect

        async with self.connecting:
            return await connect(
                self.url,
                subprotocols=[SUBPROTOCOL_MSGPACK],  # type: ignore[list-item]
                compression=None,
                max_size=2**22,
                open_timeout=60,
                ping_interval=None,
                close_timeout=1,
                **kw,
            )

    @staticmethod
    async def _until(ws: Any, kind: str) -> None:
        while DECODE(await ws.recv())["t"] != kind:
            pass

    async def idle(self, n: int) -> dict[str, Any]:
        """``n`` connections that say hello, then do nothing but read what
        the lobby sends them (and answer the server's pings)."""

        async def drain(ws: Any) -> None:
            try:
                async for _ in ws:
                    pass
            finally:
                self.idle_open -= 1

        async def one(i: int) -> None:
            ws = await self._open_raw()
            await ws.send(ENCODE({"t": "hello", "version": PROTOCOL_VERSION, "name": f"idle {i}"}))
            await asyncio.wait_for(self._until(ws, "welcome"), 60)
            self.idle_open += 1
            self.tasks.add(asyncio.get_running_loop().create_task(drain(ws)))

        t0 = PERF()
        results = await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)
        failed = Counter(type(r).__name__ for r in results if isinstance(r, BaseException))
        return {"idle_open": self.idle_open, "failed": dict(failed), "seconds": PERF() - t0}

    def busy(self) -> dict[str, Any]:
        """Mark the first half of this worker's playing tables busy (their moves
        are counted apart) and give their invite codes to the non-readers."""
        playing = [t for t in self.tables if t.playing and not t.broken]
        busy = playing[: max(1, len(playing) // 2)]
        for t in busy:
            t.stalled += 1
        return {"codes": [t.clients[0].doc["invite_code"] for t in busy]}

    async def stall(self, n: int, asks: float, codes: list[str]) -> dict[str, Any]:
        """``n`` connections that watch this worker's busy tables (the first
        half of them), then never read again, asking ``asks`` snapshots a
        second so that their backlog grows faster than a table's moves alone
        would make it grow. ``max_queue=1``: the client library stops reading
        the socket after one unread frame, so the kernel's buffers fill and
        then the server's."""

        async def nag(ws: Any) -> None:
            try:
                if asks <= 0:
                    await ws.wait_closed()
                while asks > 0:
                    await asyncio.sleep(1 / asks)
                    await ws.send(ENCODE({"t": "snapshot", "rid": 0}))
                    self.stall_asks += 1
            except Exception as e:
                # How it ended: the close code the client sent back or saw.
                rcvd = getattr(e, "rcvd", None)
                code = rcvd.code if rcvd is not None else getattr(e, "sent", None) and e.sent.code
                self.stall_failed[f"{type(e).__name__}:{code}"] += 1
            finally:
                self.stall_open -= 1

        async def one(i: int) -> None:
            code = codes[i % len(codes)]
            ws = await self._open_raw(max_queue=1)
            await ws.send(ENCODE({"t": "hello", "version": PROTOCOL_VERSION, "name": f"stall {i}"}))
            await asyncio.wait_for(self._until(ws, "welcome"), 60)
            await ws.send(ENCODE({"t": "watch", "rid": 1, "code": code}))
            await asyncio.wait_for(self._until(ws, "table"), 60)
            self.stall_open += 1
            self.tasks.add(asyncio.get_running_loop().create_task(nag(ws)))

        t0 = PERF()
        results = await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)
        failed = Counter(type(r).__name__ for r in results if isinstance(r, BaseException))
        return {
            "stall_open": self.stall_open,
            "busy_tables": len(set(codes)),
            "failed": dict(failed),
            "seconds": PERF() - t0,
        }

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while True:
            line = await reader.readline()
            if not line:
                return  # the coordinator is gone
            cmd = json.loads(line)
            match cmd["cmd"]:
                case "connect":
                    reply = await self.connect(cmd["tables"])
                case "seat":
                    reply = await self.seat()
                case "join":
                    reply = await self.join(cmd["tables"])
                case "play":
                    reply = self.play()
                case "measure_start":
                    reply = self.measure_start()
                case "measure_stop":
                    reply = await self.measure_stop(cmd.get("grace", 5.0))
                case "idle":
                    reply = await self.idle(cmd["n"])
                case "busy":
                    reply = self.busy()
                case "stall":
                    reply = await self.stall(cmd["n"], cmd["asks"], cmd["codes"])
                case "status":
                    reply = {
                        "open_conns": self.open_conns,
                        "errors": dict(self.errors),
                        "idle_open": self.idle_open,
                        "stall_open": self.stall_open,
                        "stall_asks": self.stall_asks,
                        "stall_failed": dict(self.stall_failed),
                    }
                case "quit":
                    self.quitting = True
                    reply = {"ok": True}
                case _:
                    reply = await self.other_command(cmd)
            reply["open_conns"] = self.open_conns
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
            if cmd["cmd"] == "quit":
                return


def worker_main(args: argparse.Namespace, worker_class: type[Worker] = Worker) -> None:
    # Thousands of view documents are plain containers without cycles: the
    # collector would only add pauses to what we measure.
    gc.disable()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass

    async def main() -> None:
        worker = worker_class(args)
        try:
            await asyncio.wait_for(worker.serve(), args.max_time)
        finally:
            worker.quitting = True

    with contextlib.suppress(TimeoutError, KeyboardInterrupt):
        asyncio.run(main())
    sys.stdout.flush()
    os._exit(0)  # the server sees the sockets close; no need to say goodbye


# =============================================================================
# The coordinator
# =============================================================================


GC_WRAPPER = """
import gc, sys, time
log = open(sys.argv[1], "a", buffering=1)
started = [0.0]
def watch(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        pause = time.perf_counter() - started[0]
        gen, collected = info["generation"], info["collected"]
        log.write(f"{time.perf_counter():.4f} {gen} {pause * 1e3:.3f} {collected}\\n")
gc.callbacks.append(watch)
experiment = {}
while len(sys.argv) > 3 and sys.argv[2].startswith("--gc-"):
    experiment[sys.argv[2]] = sys.argv[3]
    del sys.argv[2:4]
if experiment:
    # Experiments, not the server's settings: tune_gc as shipped, then these.
    import server.process.app
    import threading
    shipped = server.process.app.tune_gc
    def tune_gc():
        shipped()
        if "--gc-threshold" in experiment:
            gc.set_threshold(*[int(x) for x in experiment["--gc-threshold"].split(",")])
        if "--gc-freeze-every" in experiment:
            every = float(experiment["--gc-freeze-every"])
            def freezer():
                while True:
                    time.sleep(every)
                    gc.freeze()
            threading.Thread(target=freezer, daemon=True).start()
    server.process.app.tune_gc = tune_gc
sys.argv = ["atout-server", *sys.argv[2:]]
from server.__main__ import main
main()
"""
"""``--gc-log``: run ``atout-server`` with every collection's pause logged (no other change;
``--gc-threshold`` also overrides the collector thresholds that ``tune_gc`` sets)."""


def gc_pauses(path: Path, start: float, end: float) -> dict[str, Any]:
    """Collections logged between two ``perf_counter`` times (CLOCK_MONOTONIC, the
    same in every process): count, total and max pause by generation, and the
    pauses themselves as [end time, generation, ms]."""
    out: dict[str, Any] = {}
    with contextlib.suppress(FileNotFoundError), open(path) as f:
        for line in f:
            at, gen, ms, _ = line.split()
            if start <= float(at) <= end:
                out.setdefault("pauses", []).append([float(at), int(gen), float(ms)])
                g = out.setdefault(f"gen{gen}", {"count": 0, "total_ms": 0.0, "max_ms": 0.0})
                g["count"] += 1
                g["total_ms"] = round(g["total_ms"] + float(ms), 2)
                g["max_ms"] = max(g["max_ms"], float(ms))
    return out


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_wait(pid: int) -> float:
    """Seconds ``pid``'s main thread has waited, runnable, for a CPU (schedstat).

    The machine is shared: if this grows, other processes took the core and
    the latency figures measure them too.
    """
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def proc_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def child_setup(cores: set[int], deathsig: int, nice: int = 0) -> Any:
    """A ``preexec_fn``: pin to ``cores``, raise the descriptor limit, die with
    us, and take the ``nice`` value (negative: ahead of the machine's other work)."""

    def setup() -> None:
        os.sched_setaffinity(0, cores)
        if nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        with contextlib.suppress(Exception):
            ctypes.CDLL(None).prctl(1, deathsig)  # PR_SET_PDEATHSIG

    return setup


def raise_nofile() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def code_version(root: str) -> str:
    """The commit of ``root`` and whether server/ or protocol/ differ from it."""
    import subprocess

    try:
        rev = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--", "server", "protocol"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        marker = Path(root) / "COMMIT"
        return marker.read_text().strip() if marker.exists() else "unknown"
    return rev + (" + uncommitted changes in server/ or protocol/" if dirty else "")


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return math.nan
    k = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[k]


async def http_get_json(port: int, path: str, timeout: float = 5.0) -> Any:
    async def get() -> Any:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await writer.drain()
        data = await reader.read()
        writer.close()
        return json.loads(data.split(b"\r\n\r\n", 1)[1])

    return await asyncio.wait_for(get(), timeout)


class Run:
    """One backend (ours with a store, or bare), its client workers, and cleanup."""

    def __init__(self, args: argparse.Namespace, target: str, store: str, tmp: Path) -> None:
        self.args = args
        self.target = target
        self.store = store
        self.tmp = tmp
        self.server: asyncio.subprocess.Process | None = None
        self.workers: list[asyncio.subprocess.Process] = []
        self.table_workers = 0
        """--abuse: the first this many workers drive tables, the others hold the
        idle connections and the non-readers (0: every worker drives tables)."""
        self.redis: Any = None
        # "redis+aof-always": the Redis keeps an append-only file (--redis-aof).
        self.store, _, self.aof = store.partition("+aof-")
        self.callgrind_out: Path | None = None
        self.port = free_port()
        self.label = "bare" if target == "bare" else f"ours/{store}"
        self.fsyncs: Any = None  # perf counting the Redis's fsyncs in a window
        self.gc_log: Path | None = None
        self.files = contextlib.ExitStack()  # log files handed to the children

    def log_file(self, name: str) -> Any:
        # Open for the children's whole life; ``stop`` closes them all.
        return self.files.enter_context(open(self.tmp / name, "ab"))

    async def start(self, workers: int | None = None) -> None:
        args = self.args
        name = self.label.replace("/", "-")
        log = self.log_file(f"server-{name}.log")
        if self.target == "bare":
            cmd = [sys.executable, str(ROOT / "bench" / "bare_server.py"), "--port", str(self.port)]
        else:
            if args.gc_log or args.gc_threshold or args.gc_freeze_every:
                self.gc_log = self.tmp / f"gc-{name}.log"
                launcher = ["-c", GC_WRAPPER, str(self.gc_log)]
                if args.gc_threshold:
                    launcher += ["--gc-threshold", args.gc_threshold]
                if args.gc_freeze_every:
                    launcher += ["--gc-freeze-every", str(args.gc_freeze_every)]
            else:
                launcher = ["-m", "server"]
            cmd = [
                sys.executable, *launcher, "serve",
                "--port", str(self.port),
                "--log-level", "warning",
                # --abuse keeps the shipped per-connection rate: the
                # non-readers' snapshot requests meet the real limit.
                *([] if args.abuse else ["--rate", "1000", "--burst", "1000"]),
                *shlex.split(args.server_args),
            ]  # fmt: skip
            if self.store == "redis":
                from tests.support.redis import RedisServer

                # As deploy/redis.conf has it: an append-only file (in the
                # server's temp directory), synced as the mode says.
                aof = ("--appendonly", "yes", "--appendfsync", self.aof) if self.aof else ()
                self.redis = RedisServer(*aof)
                # Redis stands for a separate machine: keep it off the server's core.
                os.sched_setaffinity(self.redis._proc.pid, args.redis_cores or args.client_cores)
                if args.nice:
                    os.setpriority(os.PRIO_PROCESS, self.redis._proc.pid, args.nice)
                cmd += ["--redis", self.redis.url]
        # Thousands of clients from one address: lift the per-address limits
        # (server/link/guard.py). Variables, not flags: an older --server-root
        # ignores them.
        no_limits = {"ATOUT_MAX_PER_IP": "0", "ATOUT_CONNECT_RATE": "0", "ATOUT_CREATE_RATE": "0"}
        if args.callgrind:
            # Instrumented only during each measurement window (``callgrind_window``).
            self.callgrind_out = Path(args.callgrind).resolve() / f"callgrind.{name}"
            self.callgrind_out.parent.mkdir(parents=True, exist_ok=True)
            for old in self.callgrind_out.parent.glob(self.callgrind_out.name + "*"):
                old.unlink()  # a dump of an earlier run has the same name
            cmd = [
                "valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={self.callgrind_out}", *cmd,
            ]  # fmt: skip
        self.server = await asyncio.create_subprocess_exec(
            *cmd,
            cwd=args.server_root,
            env={**os.environ, **no_limits},
            stdout=log,
            stderr=log,
            preexec_fn=child_setup(args.server_cores, signal.SIGTERM, args.nice),
        )
        deadline = time.monotonic() + 30
        while True:
            if self.server.returncode is not None:
                raise RuntimeError(f"{self.label} server exited; see {log.name}")
            try:
                _, w = await asyncio.open_connection("127.0.0.1", self.port)
                w.close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{self.label} server did not listen; see {log.name}"
                    ) from None
                await asyncio.sleep(0.1)
        for i in range(workers or args.workers):
            self.workers.append(
                await asyncio.create_subprocess_exec(
                    sys.executable, str(Path(__file__).resolve()), "--worker",
                    "--kind", "bare" if self.target == "bare" else "ours",
                    "--protocol", str(args.protocol),
                    "--url", f"ws://127.0.0.1:{self.port}/",
                    "--pace", str(args.pace), "--wid", str(i), "--seed", str(args.seed),
                    "--connect-concurrency", str(args.connect_concurrency),
                    "--max-time", str(args.max_time),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=self.log_file(f"worker-{name}-{i}.log"),
                    limit=2**28,
                    preexec_fn=child_setup(args.client_cores, signal.SIGKILL, args.nice),
                )
            )  # fmt: skip

    @property
    def pid(self) -> int:
        assert self.server is not None
        return self.server.pid

    def cpu(self) -> float:
        return proc_cpu(self.pid)

    def redis_cpu(self) -> float:
        return proc_cpu(self.redis._proc.pid) if self.redis else 0.0

    async def ask(
        self, cmds: list[dict[str, Any]], timeout: float, first: int = 0
    ) -> list[dict[str, Any]]:
        """Send one command to each worker (from the ``first``); their replies, in order."""
        workers = self.workers[first : first + len(cmds)]
        for w, cmd in zip(workers, cmds, strict=False):
            assert w.stdin is not None
            w.stdin.write((json.dumps(cmd) + "\n").encode())
            await w.stdin.drain()

        async def reply(w: asyncio.subprocess.Process) -> dict[str, Any]:
            assert w.stdout is not None
            line = await w.stdout.readline()
            if not line:
                raise RuntimeError(f"a client worker died; see {self.tmp}/worker-*.log")
            return dict(json.loads(line))

        try:
            return list(
                await asyncio.wait_for(asyncio.gather(*(reply(w) for w in workers)), timeout)
            )
        except TimeoutError:
            raise RuntimeError(
                f"client workers did not answer {cmds[0]['cmd']!r} within {timeout:.0f}s"
            ) from None

    async def ask_all(self, cmd: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        return await self.ask([cmd] * (self.table_workers or len(self.workers)), timeout)

    def shares(self, count: int) -> list[int]:
        n = self.table_workers or len(self.workers)
        return [count // n + (1 if i < count % n else 0) for i in range(n)]

    async def add_tables(self, count: int) -> dict[str, Any]:
        """Connect and seat ``count`` more tables, split across the workers."""
        t0 = time.monotonic()
        cmds = [{"cmd": "join", "tables": k} for k in self.shares(count)]
        joined = await self.ask(cmds, 60 + count * 0.2)
        return {
            "joined": sum(r["joined"] for r in joined),
            "failed": sum(r["failed"] for r in joined),
            "seconds": time.monotonic() - t0,
        }

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.ask_all({"cmd": "quit"}, 5)
        for w in self.workers:
            with contextlib.suppress(ProcessLookupError):
                w.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(w.wait(), 5)
        if self.server is not None and self.server.returncode is None:
            self.server.terminate()
            try:
                await asyncio.wait_for(self.server.wait(), 15)
            except TimeoutError:
                self.server.kill()
                await self.server.wait()
        if self.redis is not None:
            # Its log (AOF rewrites, slow fsyncs, with times) outlives its directory.
            with contextlib.suppress(OSError):
                log = Path(self.redis._dir.name) / "redis.log"
                (self.tmp / f"redis-{self.label.replace('/', '-')}.log").write_bytes(
                    log.read_bytes()
                )
            self.redis.close()
        self.files.close()


def summarize(
    run: Run, tables: int, replies: list[dict[str, Any]], cpu_s: float, redis_cpu_s: float,
    wall_s: float,
) -> dict[str, Any]:  # fmt: skip
    lat = sorted(x for r in replies for x in r["latencies_ms"])
    moves = len(lat)
    seconds = statistics.mean(r["seconds"] for r in replies)
    errors: Counter[str] = Counter()
    for r in replies:
        errors.update(r["errors"])
    client_cpu = sum(r["client_cpu_s"] for r in replies)
    bytes_in = sum(r["bytes_in"] for r in replies)
    return {
        "target": run.label,
        "tables": tables,
        "tables_playing": sum(r["tables"] for r in replies),
        "clients": sum(r["open_conns"] for r in replies),
        "seconds": round(seconds, 2),
        "moves": moves,
        "moves_per_s": round(moves / seconds, 1),
        "moves_sent": sum(r["moves_sent"] for r in replies),
        "p50_ms": round(percentile(lat, 0.50), 2),
        "p99_ms": round(percentile(lat, 0.99), 2),
        "max_ms": round(lat[-1], 2) if lat else math.nan,
        "server_cpu_pct": round(100 * cpu_s / wall_s, 1),
        "server_us_per_move": round(1e6 * cpu_s / moves, 1) if moves else math.nan,
        "server_rss_mb": round(proc_rss(run.pid) / 2**20, 1),
        "redis_cpu_pct": round(100 * redis_cpu_s / wall_s, 1) if run.redis else None,
        "bytes_per_move": round(bytes_in / moves) if moves else math.nan,
        "msgs_per_move": round(sum(r["msgs_in"] for r in replies) / moves, 2) if moves else 0,
        "client_cpu_pct": round(100 * client_cpu / wall_s, 1),
        "client_cores": len(run.args.client_cores),
        "unfinished": sum(r["unfinished"] for r in replies),
        "late_ticks": sum(r["late_ticks"] for r in replies),
        "refused": sum(r["refused"] for r in replies),
        "errors": dict(errors),
        "error_count": sum(v for k, v in errors.items()),
        "disconnects": sum(r["disconnects"] for r in replies),
        "load_avg": load_average(),
    }


def slowest_moves(
    replies: list[dict[str, Any]], t0: float, pauses: list[list[float]], top: int = 30
) -> list[tuple[float, float, tuple[int, float] | None]]:
    """The slowest moves: when (s into the window), how long (ms), and the
    longest collector pause that ended while each waited, if any."""
    moves = sorted((m for r in replies for m in r["slowest"]), key=lambda m: m[1], reverse=True)[
        :top
    ]
    out = []
    for sent, ms in moves:
        during = [(int(g), p) for at, g, p in pauses if sent <= at <= sent + ms / 1e3]
        out.append((round(sent - t0, 2), ms, max(during, key=lambda x: x[1]) if during else None))
    return out


def print_window_notes(r: dict[str, Any], slowest: int) -> None:
    """A window's errors, collector pauses and slowest moves, under its row."""
    if r["errors"]:
        print(f"#   errors: {r['errors']}", file=sys.stderr, flush=True)
    if "gc" in r:
        print(f"#   gc in the window: {r['gc']}", flush=True)
    print(
        "#   slowest moves (s into the window: ms [gc pause ending meanwhile]): "
        + ", ".join(
            f"{at:.1f}: {ms:.0f}" + (f" [gen{g[0]} {g[1]:.0f}ms]" if g else "")
            for at, ms, g in r["slowest"][:slowest]
        ),
        flush=True,
    )


HEADER = (
    f"{'target':<12} {'tables':>6} {'clients':>7} {'moves/s':>8} {'p50ms':>7} {'p99ms':>8} "
    f"{'maxms':>8} {'srvCPU%':>7} {'us/move':>8} {'RSS_MB':>7} {'B/move':>7} "
    f"{'cliCPU%':>7} {'errs':>5} {'disc':>5}  load"
)


def row_text(r: dict[str, Any]) -> str:
    return (
        f"{r['target']:<12} {r['tables']:>6} {r['clients']:>7} {r['moves_per_s']:>8.1f} "
        f"{r['p50_ms']:>7.1f} {r['p99_ms']:>8.1f} {r['max_ms']:>8.1f} "
        f"{r['server_cpu_pct']:>7.1f} {r['server_us_per_move']:>8.0f} {r['server_rss_mb']:>7.1f} "
        f"{r['bytes_per_move']:>7} {r['client_cpu_pct']:>7.1f} {r['error_count']:>5} "
        f"{r['disconnects']:>5}  {r['load_avg']}"
    )


async def callgrind_control(pid: int, *flags: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        "callgrind_control", *flags, str(pid),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    await proc.wait()


async def callgrind_window(pid: int, out: Path) -> int | None:
    """Dump the instructions counted since ``--instr=on`` and stop counting:
    the window's total (the ``summary:`` line of the newest dump)."""
    before = set(out.parent.glob(out.name + "*"))
    await callgrind_control(pid, "--dump=window")
    await callgrind_control(pid, "--zero")
    await callgrind_control(pid, "--instr=off")
    for dump in sorted(set(out.parent.glob(out.name + "*")) - before):
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    return None


async def profile_window(run: Run, seconds: float, out: str) -> asyncio.subprocess.Process:
    """Start py-spy on the server for ``seconds``.

    Raw collapsed stacks (``hot_spots`` reads them) unless ``out`` ends in
    .svg (a flame graph) or .json (speedscope). ``--native --idle``: with
    uvloop much of the work is C code under ``Runner.run``, and only the
    native frames tell waiting in ``epoll_wait`` from writing to sockets.
    """
    pyspy = Path(sys.executable).parent / "py-spy"
    fmt = "raw" if not out.endswith((".svg", ".json")) else (
        "flamegraph" if out.endswith(".svg") else "speedscope"
    )  # fmt: skip
    return await asyncio.create_subprocess_exec(
        str(pyspy), "record", "--pid", str(run.pid), "--duration", str(int(seconds)),
        "--rate", "100", "--function", "--native", "--idle", "--format", fmt, "--output", out,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        preexec_fn=child_setup(run.args.client_cores, signal.SIGKILL),
    )  # fmt: skip


IDLE_LEAVES = ("epoll_wait", "epoll_pwait", "epoll_pwait2")

COMPONENTS = (
    # (name, frames that mark it); a sample goes to the first that matches.
    ("collector pauses", ("gc_collect_main",)),
    ("store save", ("Table._save",)),
    ("diff of views", ("diff (protocol/diff.py",)),
    ("building views", ("Fanout.view_for", "Fanout.public_parts")),
    ("encoding messages", ("send_to_all", "Conn.send (")),
    ("engine + state encode", ("apply_command", "Game.state", "TableCore._commit")),
    ("socket writes (Conn._write)", ("Conn._write",)),
    ("receiving frames", ("Front.handler", "data_received", "protocol_handler")),
    ("lobby", ("Lobby.",)),
)


def hot_spots(path: str, top: int = 25) -> str:
    """Where the server's busy samples go: by function (self and inclusive) and by file."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    files: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    total = busy = 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            frames = stack.split(";")
            total += n
            leaf = frames[-1]
            if leaf.split(" ", 1)[0] in IDLE_LEAVES:
                continue
            busy += n
            own[leaf] += n
            where = leaf.rpartition("(")[2].rstrip(")").split(":")[0]
            files[where] += n
            for fr in set(frames):
                incl[fr] += n
            part = next((name for name, keys in COMPONENTS if any(k in stack for k in keys)), None)
            parts[part or "other (event loop, tasks, timers)"] += n
    if not busy:
        return "no busy samples"
    pct = 100 / busy
    lines = [
        f"{total} samples, {busy} busy ({100 * busy / total:.0f}%; the rest wait in epoll)."
        " Shares below are of the busy samples.",
        "share  component",
    ]
    lines += [f"{n * pct:5.1f}  {name}" for name, n in parts.most_common()]
    lines += ["self%  function"]
    lines += [f"{n * pct:5.1f}  {fn}" for fn, n in own.most_common(top)]
    lines += ["self%  file"]
    lines += [f"{n * pct:5.1f}  {fn}" for fn, n in files.most_common(top)]
    lines += ["incl%  function (frames in nearly every sample left out)"]
    lines += [
        f"{n * pct:5.1f}  {fn}"
        for fn, n in incl.most_common()
        if n < 0.95 * busy
        and not fn.endswith((".c)", ".h)"))
        and ".c:" not in fn
        and ".h:" not in fn
    ][:top]
    return "\n".join(lines)


async def ramp(args: argparse.Namespace, run: Run, results: list[dict[str, Any]]) -> None:
    steps = [int(s) for s in args.steps.split(",")]
    await run.start()
    total = 0
    for i, tables in enumerate(steps):
        added = await run.add_tables(tables - total)
        total = tables
        await run.ask_all({"cmd": "play"}, 30)
        print(
            f"# {run.label}: +{added['joined']} tables seated in {added['seconds']:.1f}s"
            f" ({added['failed']} failed); warming up {args.warmup:.0f}s",
            file=sys.stderr,
            flush=True,
        )
        await asyncio.sleep(args.warmup)
        profiler = None
        if args.profile and i == len(steps) - 1 and run.target == "ours":
            profiler = await profile_window(run, args.measure, args.profile)
        if run.callgrind_out is not None:
            await callgrind_control(run.pid, "--instr=on")
        aof0 = await aof_window_start(run)
        cpu0, rcpu0, t0 = run.cpu(), run.redis_cpu(), PERF()
        wait0 = proc_wait(run.pid)
        await run.ask_all({"cmd": "measure_start"}, 30)
        await asyncio.sleep(args.measure)
        cpu1, rcpu1, t1 = run.cpu(), run.redis_cpu(), PERF()
        wait1 = proc_wait(run.pid)
        aof = await aof_window_stop(run, aof0, t1 - t0)
        instructions = None
        if run.callgrind_out is not None:
            instructions = await callgrind_window(run.pid, run.callgrind_out)
        replies = await run.ask_all({"cmd": "measure_stop", "grace": args.grace}, 60)
        r = summarize(run, tables, replies, cpu1 - cpu0, rcpu1 - rcpu0, t1 - t0)
        r["server_cpu_wait_pct"] = round(100 * (wait1 - wait0) / (t1 - t0), 1)
        r["window_start"] = time.strftime("%H:%M:%S", time.gmtime(time.time() - (PERF() - t0)))
        if aof is not None:
            r["redis_aof"] = aof
            if r["moves"] and aof["bytes"] is not None:
                aof["bytes_per_move"] = round(aof["bytes"] / r["moves"])
        if instructions is not None and r["moves"]:
            r["server_instructions_per_move"] = round(instructions / r["moves"])
        pauses: list[list[float]] = []
        if run.gc_log is not None:
            r["gc"] = gc_pauses(run.gc_log, t0, t1 + args.grace)
            pauses = r["gc"].pop("pauses", [])
        r["slowest"] = slowest_moves(replies, t0, pauses)
        if run.target == "ours":
            with contextlib.suppress(Exception):
                health = await http_get_json(run.port, "/healthz")
                r["server_connections"] = health["connections"]
                r["server_tables"] = health["tables"]
        results.append(r)
        print(row_text(r), flush=True)
        print_window_notes(r, 12)
        print(
            f"#   server waited for its core {r['server_cpu_wait_pct']}% of the window"
            f" (other processes on it); the window began at {r['window_start']} UTC",
            flush=True,
        )
        if r.get("redis_cpu_pct") is not None:
            print(f"#   redis-server CPU: {r['redis_cpu_pct']}% of a core", flush=True)
        if (aof := r.get("redis_aof")) is not None:
            print(
                f"#   redis AOF appendfsync {aof['appendfsync']}: "
                + (f"{n} fsyncs/s (perf)," if (n := aof["fsyncs_per_s"]) is not None else "")
                + f" {aof.get('bytes_per_move', '-')} AOF bytes per move, delayed fsyncs"
                f" {aof['delayed_fsyncs']}, AOF rewrites {aof['rewrites']}, RDB saves"
                f" {aof['rdb_saves']}",
                flush=True,
            )
        if r.get("server_instructions_per_move") is not None:
            print(
                f"#   server instructions per move (callgrind, the window):"
                f" {r['server_instructions_per_move']:,}",
                flush=True,
            )
        if profiler is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(profiler.wait(), 30)
            if args.profile.endswith((".svg", ".json")):
                print(f"# profile written to {args.profile}", file=sys.stderr)
            else:
                print(hot_spots(args.profile), file=sys.stderr, flush=True)
        if r["p99_ms"] > args.give_up_ms:
            print(
                f"# {run.label}: p99 {r['p99_ms']:.0f} ms > {args.give_up_ms:.0f} ms: "
                "saturated, stopping this ramp",
                file=sys.stderr,
                flush=True,
            )
            break


async def aof_window_start(run: Run) -> dict[str, str] | None:
    """With --redis-aof: the Redis's persistence figures, and ``perf stat``
    counting its fsync calls (every thread: ``everysec`` syncs from a
    background one) until ``aof_window_stop``."""
    if run.redis is None or not run.aof:
        return None
    from tests.support.redis import info

    with contextlib.suppress(OSError):
        run.fsyncs = await asyncio.create_subprocess_exec(
            "perf", "stat", "-x", ",", "-p", str(run.redis._proc.pid),
            "-e", "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
    return info(run.redis.port, "persistence")


async def aof_window_stop(
    run: Run, before: dict[str, str] | None, wall_s: float
) -> dict[str, Any] | None:
    if before is None:
        return None
    from tests.support.redis import info

    after = info(run.redis.port, "persistence")
    fsyncs: int | None = None
    if (perf := run.fsyncs) is not None:
        run.fsyncs = None
        perf.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(perf.communicate(), 10)
        # "-x ,": count,unit,event,...; "<not supported>" if tracepoints are shut.
        counts = [line.split(",") for line in err.decode(errors="replace").splitlines()]
        found = [int(c[0]) for c in counts if len(c) > 2 and c[0].isdigit()]
        fsyncs = sum(found) if found else None

    def delta(field: str) -> int:
        return int(after.get(field, 0)) - int(before.get(field, 0))

    # A rewrite starts the file afresh: its growth is then unknown.
    grew = delta("aof_current_size")
    return {
        "appendfsync": run.aof,
        "fsyncs": fsyncs,
        "fsyncs_per_s": round(fsyncs / wall_s) if fsyncs is not None else None,
        "bytes": grew if delta("aof_rewrites") == 0 else None,
        "delayed_fsyncs": delta("aof_delayed_fsync"),
        "rewrites": delta("aof_rewrites"),
        "rdb_saves": delta("rdb_saves"),
    }


async def idle_memory(args: argparse.Namespace, run: Run, results: list[dict[str, Any]]) -> None:
    """RSS growth of a fresh server: per connected client, then per idle table."""
    n = args.idle
    await run.start(workers=1)
    await run.add_tables(4)  # warm every code path (imports, first table) first
    await asyncio.sleep(2)
    rss0 = proc_rss(run.pid)
    connected = await run.ask([{"cmd": "connect", "tables": n}], 60 + n)
    await asyncio.sleep(2)
    rss1 = proc_rss(run.pid)
    await run.ask([{"cmd": "seat"}], 60 + n)
    await asyncio.sleep(2)
    rss2 = proc_rss(run.pid)
    conns = 4 * connected[0]["connected"]
    r = {
        "target": run.label,
        "idle_tables": n,
        "connections": conns,
        "rss_before_mb": round(rss0 / 2**20, 1),
        "rss_connected_mb": round(rss1 / 2**20, 1),
        "rss_seated_mb": round(rss2 / 2**20, 1),
        "kb_per_connection": round((rss1 - rss0) / conns / 1024, 1),
        "kb_per_idle_table": round((rss2 - rss1) / n / 1024, 1),
        "kb_per_table_with_4_conns": round((rss2 - rss0) / n / 1024, 1),
        "load_avg": load_average(),
    }
    results.append(r)
    print(
        f"{run.label:<12} idle memory: {conns} clients -> {r['kb_per_connection']} KiB per "
        f"connection (in the lobby); seated in {n} started tables -> "
        f"{r['kb_per_idle_table']} KiB more per table; {r['kb_per_table_with_4_conns']} KiB "
        f"per table with its 4 connections (RSS {r['rss_before_mb']} -> {r['rss_connected_mb']}"
        f" -> {r['rss_seated_mb']} MB)  load {r['load_avg']}",
        flush=True,
    )


async def abuse(args: argparse.Namespace, run: Run, results: list[dict[str, Any]]) -> None:
    """``--abuse IDLE,STALLED``: the server's RSS and the tables' latency while
    IDLE connections say hello and stay idle (reading what the lobby sends),
    then while STALLED connections watch busy tables and stop reading.

    The last of ``--steps`` tables play throughout; the non-readers watch half
    of them (the busy tables), so the others' p99 is the figure of the issue
    and the busy tables' own p99 comes apart. Windows: tables alone, with the
    idle connections, with the non-readers too (``--stall-time`` seconds, the
    server's RSS sampled twice a second); then how the non-readers ended (the
    server's ``client_too_slow`` drops) and the RSS once they are gone.
    """
    idle_n, stall_n = (int(x) for x in args.abuse.split(","))
    tables = int(args.steps.split(",")[-1])
    # The idle connections and the non-readers live in workers of their own:
    # in the table clients' processes, 5,000 lobby patches arriving at once
    # held the clients' loop and showed as the server's latency.
    run.table_workers = args.workers
    await run.start(workers=args.workers + args.abuse_workers)
    n_abuse = args.abuse_workers

    def split(count: int) -> list[int]:
        return [count // n_abuse + (1 if i < count % n_abuse else 0) for i in range(n_abuse)]

    added = await run.add_tables(tables)
    await run.ask_all({"cmd": "play"}, 30)
    print(
        f"# abuse: {added['joined']} tables seated ({added['failed']} failed); "
        f"warming up {args.warmup:.0f}s",
        file=sys.stderr,
        flush=True,
    )
    await asyncio.sleep(args.warmup)
    peak = [0]

    async def sample() -> None:
        while True:
            peak[0] = max(peak[0], proc_rss(run.pid))
            await asyncio.sleep(0.5)

    async def window(label: str, seconds: float) -> dict[str, Any]:
        peak[0] = 0
        sampler = asyncio.get_running_loop().create_task(sample())
        cpu0, t0, wait0 = run.cpu(), PERF(), proc_wait(run.pid)
        await run.ask_all({"cmd": "measure_start"}, 30)
        await asyncio.sleep(seconds)
        cpu1, t1, wait1 = run.cpu(), PERF(), proc_wait(run.pid)
        replies = await run.ask_all({"cmd": "measure_stop", "grace": args.grace}, 60)
        sampler.cancel()
        r = summarize(run, tables, replies, cpu1 - cpu0, 0.0, t1 - t0)
        busy = sorted(x for rep in replies for x in rep["busy_latencies_ms"])
        r["phase"] = label
        r["server_cpu_wait_pct"] = round(100 * (wait1 - wait0) / (t1 - t0), 1)
        r["server_rss_peak_mb"] = round(peak[0] / 2**20, 1)
        r["busy_moves"] = len(busy)
        r["busy_p99_ms"] = round(percentile(busy, 0.99), 2) if busy else None
        r["busy_max_ms"] = round(busy[-1], 2) if busy else None
        pauses: list[list[float]] = []
        if run.gc_log is not None:
            r["gc"] = gc_pauses(run.gc_log, t0, t1 + args.grace)
            pauses = r["gc"].pop("pauses", [])
        r["slowest"] = slowest_moves(replies, t0, pauses)
        results.append(r)
        print(f"# {label}", flush=True)
        print(row_text(r), flush=True)
        if busy:
            print(
                f"#   busy tables (watched by non-readers): {len(busy)} moves, "
                f"p99 {r['busy_p99_ms']} ms, max {r['busy_max_ms']} ms",
                flush=True,
            )
        print(
            f"#   server RSS peak in the window {r['server_rss_peak_mb']} MB; the server waited"
            f" for its core {r['server_cpu_wait_pct']}% of the window",
            flush=True,
        )
        print_window_notes(r, 8)
        return r

    def too_slow() -> int:
        path = run.tmp / f"server-{run.label.replace('/', '-')}.log"
        return path.read_text(errors="replace").count("client_too_slow")

    rss_base = proc_rss(run.pid)
    base = await window(f"{tables} tables playing", args.measure)
    t0 = PERF()
    opened = await run.ask(
        [{"cmd": "idle", "n": k} for k in split(idle_n)], 120 + idle_n, first=args.workers
    )
    idle_open = sum(r["idle_open"] for r in opened)
    print(
        f"# +{idle_open} idle connections in {PERF() - t0:.1f}s "
        f"(failed: {[r['failed'] for r in opened]})",
        file=sys.stderr,
        flush=True,
    )
    await asyncio.sleep(5)
    rss_idle = proc_rss(run.pid)
    with_idle = await window(f"+ {idle_open} idle connections", args.measure)
    t0 = PERF()
    codes = [c for r in await run.ask_all({"cmd": "busy"}, 30) for c in r["codes"]]
    stalled = await run.ask(
        [{"cmd": "stall", "n": k, "asks": args.stall_asks, "codes": codes} for k in split(stall_n)],
        120 + stall_n,
        first=args.workers,
    )
    stall_open = sum(r["stall_open"] for r in stalled)
    print(
        f"# +{stall_open} non-readers at {max(r['busy_tables'] for r in stalled)} busy tables "
        f"in {PERF() - t0:.1f}s (failed: {[r['failed'] for r in stalled]})",
        file=sys.stderr,
        flush=True,
    )
    rss_stall0 = proc_rss(run.pid)
    with_stall = await window(
        f"+ {stall_open} non-readers ({args.stall_asks} snapshot asks/s each)", args.stall_time
    )
    # Gone as the server sees it: a non-reader that asks nothing never
    # reads the close, so its own side cannot tell.
    others = 4 * added["joined"] + idle_open
    left = stall_open
    deadline = PERF() + 120
    while PERF() < deadline:
        with contextlib.suppress(Exception):
            left = (await http_get_json(run.port, "/healthz"))["connections"] - others
        if left <= 0:
            break
        await asyncio.sleep(2)
    gone_after = round(PERF() - t0, 1)
    status = await run.ask([{"cmd": "status"}] * n_abuse, 30, first=args.workers)
    await asyncio.sleep(3)
    rss_after = proc_rss(run.pid)
    failed: Counter[str] = Counter()
    for r in status:
        failed.update(r["stall_failed"])
    r = {
        "abuse": True,
        "tables": tables,
        "idle_connections": idle_open,
        "non_readers": stall_open,
        "stall_asks_per_s": args.stall_asks,
        "rss_base_mb": round(rss_base / 2**20, 1),
        "rss_idle_mb": round(rss_idle / 2**20, 1),
        "kib_per_idle_connection": round((rss_idle - rss_base) / max(idle_open, 1) / 1024, 1),
        "rss_non_readers_start_mb": round(rss_stall0 / 2**20, 1),
        "rss_non_readers_peak_mb": with_stall["server_rss_peak_mb"],
        "rss_after_non_readers_gone_mb": round(rss_after / 2**20, 1),
        "non_readers_still_open": max(left, 0),
        "non_readers_gone_after_s": gone_after,
        "non_readers_dropped_too_slow": too_slow(),
        "non_reader_ends": dict(failed),
        "snapshot_asks_sent": sum(r["stall_asks"] for r in status),
        "p99_ms": [base["p99_ms"], with_idle["p99_ms"], with_stall["p99_ms"]],
        "busy_p99_ms": with_stall["busy_p99_ms"],
        "load_avg": load_average(),
    }
    results.append(r)
    print("# abuse: " + json.dumps(r), flush=True)


async def coordinate(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="atout-load-"))
    print(
        f"# pace {args.pace}/s per table, server cores {sorted(args.server_cores)}, "
        f"client cores {sorted(args.client_cores)} x {args.workers} workers, nice {args.nice}, "
        f"load average {load_average()}, logs in {tmp}",
        file=sys.stderr,
        flush=True,
    )
    version = code_version(args.server_root)
    print(f"# server code: {args.server_root} at {version}", flush=True)
    results.append(
        {
            "meta": True,
            "server_root": args.server_root,
            "code": version,
            "args": {k: (sorted(v) if isinstance(v, set) else v) for k, v in vars(args).items()},
            "load_avg_start": load_average(),
            "cpus": os.cpu_count(),
        }
    )
    stores = ["memory", "redis"] if args.store == "both" else [args.store]
    if "redis" in stores:  # one Redis per --redis-aof mode, each a ramp of its own
        modes = [m for m in args.redis_aof.split(",") if m]
        stores = [s for s in stores if s != "redis"] + [
            "redis" if m == "off" else f"redis+aof-{m}" for m in modes
        ]
    plan: list[tuple[str, str, str]] = []
    if args.abuse:
        run = Run(args, "ours", stores[0], tmp)
        try:
            print(HEADER, flush=True)
            await abuse(args, run, results)
        finally:
            await run.stop()
        return
    if args.idle:
        plan += [("idle", "ours", s) for s in stores]
    if args.target in ("ours", "both"):
        plan += [("ramp", "ours", s) for s in stores]
    if args.target in ("bare", "both"):
        plan.append(("ramp", "bare", "-"))
    # Rounds repeat the ramps, interleaved (ours, then bare, then ours again):
    # on a shared or virtual machine the cost of the same work drifts by tens
    # of percent over minutes, and a ratio is only fair between neighbours.
    idles = [p for p in plan if p[0] == "idle"]
    ramps = [p for p in plan if p[0] == "ramp"]
    header_done = False
    for round_, (what, target, store) in [(0, p) for p in idles] + [
        (n, p) for n in range(args.rounds) for p in ramps
    ]:
        run = Run(args, target, store, tmp)
        before = len(results)
        try:
            if what == "idle":
                await idle_memory(args, run, results)
            else:
                if not header_done:
                    print(HEADER, flush=True)
                    header_done = True
                if args.rounds > 1:
                    print(f"# round {round_ + 1} of {args.rounds}", flush=True)
                await ramp(args, run, results)
        finally:
            await run.stop()
        for r in results[before:]:
            r["round"] = round_
    bare = [r for r in results if r.get("target") == "bare" and "moves" in r]
    ratios: dict[tuple[str, int], list[float]] = {}
    for r in results:
        if "moves" not in r:
            continue
        twin = [b for b in bare if b["tables"] == r["tables"] and b["round"] == r["round"]]
        if r.get("target") != "bare" and twin and twin[0]["server_us_per_move"]:
            r["cpu_ratio_vs_bare"] = round(
                r["server_us_per_move"] / twin[0]["server_us_per_move"], 2
            )
            ratios.setdefault((r["target"], r["tables"]), []).append(r["cpu_ratio_vs_bare"])
            print(
                f"# {r['target']} at {r['tables']} tables"
                + (f" (round {r['round'] + 1})" if args.rounds > 1 else "")
                + f": {r['server_us_per_move']:.0f} us/move"
                f" vs bare {twin[0]['server_us_per_move']:.0f} us/move -> ratio "
                f"{r['cpu_ratio_vs_bare']:.1f}",
                flush=True,
            )
    if args.rounds > 1:
        for (label, tables), values in ratios.items():
            print(
                f"# {label} at {tables} tables, CPU ratio over {len(values)} rounds: "
                f"median {statistics.median(values):.2f}, worst {max(values):.2f}, "
                f"best {min(values):.2f}",
                flush=True,
            )
    # --redis-aof: each mode against the Redis without a file, same round and step.
    for r in results:
        if "redis_aof" not in r:
            continue
        twin = [
            o for o in results if o.get("target") == "ours/redis" and "moves" in o
            and o["tables"] == r["tables"] and o["round"] == r["round"]
        ]  # fmt: skip
        if twin and twin[0]["server_us_per_move"]:
            o = twin[0]
            print(
                f"# {r['target']} at {r['tables']} tables (round {r['round'] + 1}): "
                f"{r['server_us_per_move']:.0f} us/move, p99 {r['p99_ms']:.0f} ms, redis"
                f" {r['redis_cpu_pct']}% vs no AOF {o['server_us_per_move']:.0f} us/move,"
                f" p99 {o['p99_ms']:.0f} ms, redis {o['redis_cpu_pct']}% -> CPU ratio"
                f" {r['server_us_per_move'] / o['server_us_per_move']:.2f}",
                flush=True,
            )
    for label in sorted({r["target"] for r in results if "moves" in r}):
        knee = next(
            (r["tables"] for r in results if r.get("target") == label and "moves" in r
             and r["p99_ms"] > args.knee_ms),
            None,
        )  # fmt: skip
        print(
            f"# {label}: knee (p99 > {args.knee_ms:.0f} ms) "
            + (f"at {knee} tables" if knee else "not reached in this ramp"),
            flush=True,
        )


def parse_cores(text: str) -> set[int]:
    cores: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            cores.update(range(int(a), int(b) + 1))
        elif part:
            cores.add(int(part))
    return cores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="50,100,200,500,1000", help="tables at each step")
    parser.add_argument("--pace", type=float, default=1.0, help="moves per second per table")
    parser.add_argument("--measure", type=float, default=20.0, help="seconds measured per step")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds played before that")
    parser.add_argument("--grace", type=float, default=5.0, help="wait for late updates (s)")
    parser.add_argument("--store", choices=("memory", "redis", "both"), default="memory")
    parser.add_argument("--target", choices=("ours", "bare", "both"), default="ours")
    parser.add_argument(
        "--rounds", type=int, default=1, help="repeat the ramps, interleaved with bare"
    )
    parser.add_argument("--bare", action="store_true", help="same as --target bare")
    parser.add_argument("--idle", type=int, default=0, help="idle tables for the memory figures")
    parser.add_argument("--workers", type=int, default=2, help="client processes")
    parser.add_argument(
        "--abuse",
        default="",
        metavar="IDLE,STALLED",
        help="memory under abuse: idle connections, then non-readers at busy tables,"
        " while the last of --steps tables play (ours only)",
    )
    parser.add_argument(
        "--abuse-workers", type=int, default=2, help="--abuse: processes for the abuse clients"
    )
    parser.add_argument(
        "--stall-asks", type=float, default=1.0, help="--abuse: snapshots a non-reader asks per s"
    )
    parser.add_argument(
        "--stall-time", type=float, default=90.0, help="--abuse: seconds measured with non-readers"
    )
    parser.add_argument("--server-cores", default="0")
    parser.add_argument("--client-cores", default="", help="default: every other core")
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="nice value of the server, Redis and clients (negative needs root: on a shared"
        " machine, keeps other work from taking the measured cores)",
    )
    parser.add_argument("--redis-cores", default="", help="default: the client cores")
    parser.add_argument(
        "--redis-aof",
        default="off",
        help="the Redis's append-only file, as comma-separated modes each run as a ramp of its"
        " own (interleaved in --rounds): off (no file, the default), or an appendfsync value"
        " (always, as deploy/redis.conf ships; everysec; no), the file in its temp directory",
    )
    parser.add_argument("--connect-concurrency", type=int, default=32)
    parser.add_argument(
        "--server-root",
        default=str(ROOT),
        help="run the server from this copy of the project (e.g. a `git archive` export)",
    )
    parser.add_argument("--server-args", default="", help="more `atout-server serve` flags")
    parser.add_argument("--knee-ms", type=float, default=100.0)
    parser.add_argument(
        "--give-up-ms", type=float, default=3000.0, help="stop a ramp past this p99"
    )
    parser.add_argument("--profile", default="", help="py-spy the last step: .txt, .svg or .json")
    parser.add_argument(
        "--callgrind",
        default="",
        metavar="DIR",
        help="run the server under valgrind's callgrind (dumps in DIR) and print its instructions"
        " per move in each window: a measure of a change the machine's load does not move"
        " (use few tables: the server runs ~50x slower)",
    )
    parser.add_argument(
        "--gc-log", action="store_true", help="log the server's collector pauses per step"
    )
    parser.add_argument(
        "--gc-threshold",
        default="",
        help="experiment: override the server's gc thresholds (e.g. 700,10,10); implies --gc-log",
    )
    parser.add_argument(
        "--gc-freeze-every",
        type=float,
        default=0.0,
        help="experiment: the server calls gc.freeze() every this many seconds; implies --gc-log",
    )
    parser.add_argument("--json", default="", help="also write every figure to this file")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--max-time", type=float, default=3600.0, help="hard stop (s)")
    # The client process's own flags.
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kind", default="ours", help=argparse.SUPPRESS)
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=2,
        help="the clients' protocol version (atout.v2.msgpack or atout.v1.msgpack)",
    )
    parser.add_argument("--url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--wid", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_nofile()
    if args.worker:
        worker_main(args)
        return
    if args.bare:
        args.target = "bare"
    args.server_cores = parse_cores(args.server_cores)
    args.redis_cores = parse_cores(args.redis_cores)
    if bad := set(args.redis_aof.split(",")) - {"off", "always", "everysec", "no"}:
        parser.error(f"--redis-aof: unknown mode {', '.join(sorted(bad))}")
    available = os.sched_getaffinity(0)
    args.client_cores = parse_cores(args.client_cores) or (available - args.server_cores)
    if not args.client_cores:
        args.client_cores = available
    os.sched_setaffinity(0, args.client_cores)  # the coordinator stays off the server's core

    results: list[dict[str, Any]] = []

    async def bounded() -> None:
        task = asyncio.get_running_loop().create_task(coordinate(args, results))
        done, _ = await asyncio.wait([task], timeout=args.max_time)
        if not done:
            task.cancel()  # its finally blocks stop the servers and workers
            with contextlib.suppress(asyncio.CancelledError):
                await task
            print(f"# stopped: --max-time {args.max_time:.0f}s reached", file=sys.stderr)
        else:
            task.result()

    try:
        asyncio.run(bounded())
    finally:
        if args.json and results:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

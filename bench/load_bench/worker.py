"""A client process of the load bench: its tables, the counters of the
current measurement window, the connections of ``--abuse``, and the loop that
takes the coordinator's commands (one JSON line each on stdin, the reply on
stdout)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from bench.load_bench.table_clients import DECODE, ENCODE, PERF, Client, Move, TableRun
from protocol.codec import PROTOCOL_VERSION, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_V2_MSGPACK
from protocol.diff import PatchError
from protocol.positional import TableReader


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
        self.spread = getattr(args, "spread", 0.0)  # (bench/scale.py's workers: not spread)
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
        failed = self.mark_broken(new, results, "connect")
        return {"connected": len(new) - failed, "failed": failed, "seconds": PERF() - t0}

    async def join(self, tables: int) -> dict[str, Any]:
        """Connect and seat ``tables`` new tables, a few at a time, as players
        arriving would: each client spends a moment in the lobby, not the
        whole ramp (the lobby sends every watcher each change of its list)."""
        new = [self.table_class(self, len(self.tables) + i) for i in range(tables)]
        self.tables.extend(new)

        async def arrive(t: TableRun) -> None:
            await t.connect()
            await t.seat()

        failed, seconds = await self._each(new, 16, arrive, "join")
        return {"joined": len(new) - failed, "failed": failed, "seconds": seconds}

    async def seat(self) -> dict[str, Any]:
        todo = [t for t in self.tables if not t.broken and not t.seated]
        failed, seconds = await self._each(todo, 64, lambda t: t.seat(), "seat")
        return {"seated": len(todo) - failed, "failed": failed, "seconds": seconds}

    async def _each(
        self,
        tables: list[TableRun],
        at_once: int,
        step: Callable[[TableRun], Awaitable[None]],
        what: str,
    ) -> tuple[int, float]:
        """``step`` every table, ``at_once`` at a time; the tables that fail are
        marked broken under ``what``. How many failed, and the seconds it took."""
        sem = asyncio.Semaphore(at_once)

        async def one(t: TableRun) -> None:
            async with sem:
                await step(t)

        t0 = PERF()
        results = await asyncio.gather(*(one(t) for t in tables), return_exceptions=True)
        failed = self.mark_broken(tables, results, what)
        gc.collect()
        return failed, PERF() - t0

    def mark_broken(self, tables: list[TableRun], results: list[Any], what: str) -> int:
        """Mark the tables whose ``results`` are exceptions broken, count each
        under ``what``, and return how many failed."""
        failed = 0
        for t, r in zip(tables, results, strict=True):
            if isinstance(r, BaseException):
                t.broken = True
                failed += 1
                self.count(f"{what}:{type(r).__name__}")
        return failed

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
                rcvd, sent = getattr(e, "rcvd", None), getattr(e, "sent", None)
                code = rcvd.code if rcvd is not None else sent and sent.code
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

"""Crash campaign: tables play on Redis while the server is killed with SIGKILL
at random moments and restarted, and while Redis itself is killed and restarted.

A real ``redis-server`` (tests/support/redis.py) with the persistence of
deploy/redis.conf (append-only file, ``appendfsync always``), the real
server as a child process (``python -m server serve --redis ...``), scripted
clients over real WebSockets. Each table: two humans (seats 0 and 1, random
legal moves, a few ms apart) and two bots (``random`` level), a game of
``--deals`` deals; a finished table is checked and its creator opens a new one.

Server kills (``--kills``): after a random pause (0.2-3 s; one time in four
0.05-0.5 s after the restart, in the resume storm) SIGKILL, then start a new
process at once. Clients reconnect every 50 ms and ``resume`` with their
token (``last_seq`` -1). Counted:

* acknowledged moves lost: a move is acknowledged once any client received a
  view showing it. The moves of the current deal (bids and cards played, in
  order) and the score sheet's length that any client had seen when the kill
  came are compared with the first snapshot after the restart: the restored
  deal must start with every acknowledged move;
* resume failures: a ``resume`` not answered by ``seated``;
* games finished, and how many have final scores equal to the sum of their
  deal records (``history``, each record scored again by ``replay_record``);
* time from starting the new process to every table playing again (a client
  of each table sees a move past what was acknowledged at the kill).

Redis kills (``--redis-kills``): read every table's stored version, SIGKILL
Redis, keep it down 0.2-2 s while the tables play on from memory, restart
it (it reloads its append-only file), read the versions again at once:
tables whose stored version went back are writes Redis had acknowledged and
lost. Then the time until ``/healthz`` says ``ok`` again (the server has
written every table back).

    python bench/chaos.py --tables 8 --kills 100 --redis-kills 5 --json /tmp/chaos.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # runs from a checkout, installed or not

import msgspec  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: E402

from server.game import replay_record  # noqa: E402
from server.store.redis import RedisStore  # noqa: E402
from tests.support.ports import free_port  # noqa: E402
from tests.support.redis import RedisServer  # noqa: E402

REDIS_CONF = ROOT / "deploy" / "redis.conf"
PERSISTENCE_KEYS = ("appendonly", "appendfsync", "save", "maxmemory-policy")


def shipped_persistence() -> list[str]:
    """The persistence lines of deploy/redis.conf, as redis-server arguments."""
    args: list[str] = []
    for line in REDIS_CONF.read_text().splitlines():
        key, _, value = line.strip().partition(" ")
        if key in PERSISTENCE_KEYS:
            args += [f"--{key}", value.strip()]
    return args


def health(port: int) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]
    except urllib.error.HTTPError as e:
        return json.loads(e.read())  # type: ignore[no-any-return]
    except OSError:
        return None


class ServerProcess:
    def __init__(self, port: int, redis_url: str, bot_think: float) -> None:
        self.port = port
        self.redis_url = redis_url
        self.bot_think = bot_think
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"chaos-server-{port}.log", "ab")  # noqa: SIM115

    def start(self) -> None:
        args = [
            sys.executable, "-m", "server", "serve",
            "--port", str(self.port), "--redis", self.redis_url,
            "--bot-think", str(self.bot_think), "--deal-pause", "0.2", "--result-wait", "0",
            "--grace", "60",
            "--rate", "1000", "--burst", "1000", "--log-level", "warning", "--log-format", "json",
        ]  # fmt: skip
        env = {**os.environ, "ATOUT_MAX_PER_IP": "0", "ATOUT_CONNECT_RATE": "0"}
        env["ATOUT_CREATE_RATE"] = "0"
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=self.log, stderr=self.log, env=env)

    def wait_listening(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if health(self.port) is not None:
                return
            time.sleep(0.02)
        raise RuntimeError("server did not start")

    def kill9(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# -- what a view shows -------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """The deals finished before the one shown, and its public moves in order."""

    sheet: int
    moves: tuple[Any, ...]

    @classmethod
    def of(cls, view: Any) -> Progress:
        deal = view.get("deal")
        if deal is None:
            return cls(len(view["sheet"]), ())
        # A deal's line goes on the sheet as soon as it is over: count the
        # lines before the deal shown, so the next deal ranks after it.
        over = deal["phase"] in ("done", "annulled")
        sheet = len(view["sheet"]) - (1 if over else 0)
        moves: list[Any] = [(b["seat"], b["bid"]) for b in deal["bids"]]
        for trick in deal["tricks"]:
            moves += trick["cards"]
        if deal.get("trick"):
            moves += deal["trick"]["cards"]
        return cls(sheet, tuple(moves))

    def __ge__(self, other: Progress) -> bool:
        return (self.sheet, len(self.moves)) >= (other.sheet, len(other.moves))

    def lost_from(self, acked: Progress) -> int:
        """Acknowledged moves missing from this (restored) progress."""
        if self.sheet > acked.sheet:
            return 0
        if self.sheet < acked.sheet:
            return len(acked.moves) + 1  # a whole finished deal went back
        common = 0
        for a, b in zip(self.moves, acked.moves, strict=False):
            if a != b:
                break
            common += 1
        return len(acked.moves) - common


def apply_patch(doc: Any, patch: list[Any]) -> Any:
    for path, op, value in patch:
        if not path:
            doc = value
            continue
        node = doc
        for step in path[:-1]:
            node = node[step]
        if op == "set":
            node[path[-1]] = value
        elif op == "append":
            node[path[-1]].extend(value)
        else:
            del node[path[-1]]
    return doc


# -- the campaign -------------------------------------------------------------------


@dataclass
class Figures:
    kills: int = 0
    redis_kills: int = 0
    acked_moves_lost: int = 0
    loss_events: list[dict[str, Any]] = field(default_factory=list)
    resume_failures: int = 0
    resumes: int = 0
    games_finished: int = 0
    games_matching_records: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    mismatches_redis_outage: int = 0
    restart_to_playing_s: list[float] = field(default_factory=list)
    tables_not_playing_again: int = 0
    moves_seen: int = 0
    redis_tables_checked: int = 0
    redis_writes_lost: int = 0
    redis_recovery_s: list[float] = field(default_factory=list)
    redis_outage_unsaved_max: int = 0


class Seat:
    """One human client of one table; reconnects and resumes by itself."""

    def __init__(self, run: Chaos, table: TableRun, seat: int) -> None:
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
                    msg = msgspec.msgpack.decode(await asyncio.wait_for(self.ws.recv(), 10))
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
                data = await self.ws.recv()
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
            trumps = [c for c in legal["ecart"] if c[0] == "T"]
            suits = [c for c in legal["ecart"] if c[0] != "T"]
            need = legal["ecart_trumps"]
            cards = suits + rng.sample(trumps, need) if need else rng.sample(suits, 6)
            move = {"t": "ecart", "cards": cards}
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
    def __init__(self, run: Chaos, index: int) -> None:
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
            msg = msgspec.msgpack.decode(await creator.ws.recv())
            if msg["t"] == "seated":
                self.table_id, creator.token = msg["table_id"], msg["token"]
            elif msg["t"] == "table":
                creator.doc, creator.seq = msg["view"], msg["seq"]
                break
        await other.open()
        await other.send({"t": "join", "table_id": self.table_id, "seat": 1})
        while True:
            assert other.ws is not None
            msg = msgspec.msgpack.decode(await other.ws.recv())
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
            await asyncio.sleep(2.0)  # tables get going
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

    async def kill_server(self, server: ServerProcess) -> None:
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


def summary(f: Figures, elapsed: float) -> dict[str, Any]:
    times = sorted(f.restart_to_playing_s)

    def pct(q: float) -> float | None:
        return times[min(len(times) - 1, int(q * len(times)))] if times else None

    return {
        "server_kills": f.kills,
        "acknowledged_moves_lost": f.acked_moves_lost,
        "loss_events": f.loss_events[:20],
        "moves_seen": f.moves_seen,
        "resumes": f.resumes,
        "resume_failures": f.resume_failures,
        "games_finished": f.games_finished,
        "games_with_scores_equal_to_records": f.games_matching_records,
        "games_not_equal_during_a_redis_outage": f.mismatches_redis_outage,
        "games_not_equal_otherwise": len(f.mismatches) - f.mismatches_redis_outage,
        "mismatches": f.mismatches[:20],
        "restart_to_every_table_playing_s": {
            "median": pct(0.5),
            "p90": pct(0.9),
            "max": times[-1] if times else None,
        },
        "tables_not_playing_again_within_30s": f.tables_not_playing_again,
        "redis_kills": f.redis_kills,
        "redis_tables_checked": f.redis_tables_checked,
        "redis_acknowledged_writes_lost": f.redis_writes_lost,
        "redis_outage_max_unsaved_tables": f.redis_outage_unsaved_max,
        "redis_restart_to_healthz_ok_s": f.redis_recovery_s,
        "seconds": round(elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--redis-kills", type=int, default=5)
    parser.add_argument("--bot-think", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    chaos = Chaos(args)
    started = time.monotonic()
    figures = asyncio.run(chaos.run())
    report = summary(figures, time.monotonic() - started) | {"notes": chaos.notes[:20]}
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)


if __name__ == "__main__":
    main()

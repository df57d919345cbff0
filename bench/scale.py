"""Benchmark: many server processes on one Redis (issue 16) against one.

Every configuration runs ``atout-server`` processes on their own ports, on a
fresh Redis, driven by bench/load.py's client processes and measured the same
way (its clients, its latency of move-to-last-seat-update, its summary):

``--mode owner`` (a): each table's four clients connect to the process where
the table was created, which owns it: no Redis round trip beyond the save.
Client process i talks to server i mod N.

``--mode spread`` (b): each table's four clients connect to different
processes (client k of table t to server (t + k) mod N): every move crosses
the bus. Needs the cluster core (server/cluster/); without it the bench
stops at once, saying so, after one probe.

Both compare ``--processes N`` with one process, in the same run, at the same
number of tables (``--tables``, default 1,000) and pace: server CPU per move
summed over the processes, and the ratio to one process; p50/p99 latency.

``--mode failover``: ``--tables`` busy tables (clients spread) on
``--processes`` processes (3); ``--kills K`` times, kill -9 one process (in
turn) and start it again at once; for each table whose lease changed hands
(``atout:lease:{table}`` in Redis, before the kill and after
``--settle`` seconds), the time from the kill to the first move its clients
saw after it (median, max), and the acknowledged moves lost (a client's view
that went back). Clients of the killed process reconnect to the next
process and resume with their tokens. The servers run with ``--grace 0``
(a seat whose client is away is played by a bot at once) so the figure is
the takeover, not the reconnection; ``--server-args`` may say otherwise.

    python bench/scale.py --mode owner --processes 3 --tables 300 --measure 20
    python bench/scale.py --mode spread --processes 3 --tables 1000
    python bench/scale.py --mode failover --processes 3 --tables 300 --kills 10

``--profile PATH`` (owner and spread) py-spy-records the first server process
of each run for the measured window (bench/load.py's ``profile_window``):
``PATH`` with ``-Nproc`` / ``-1proc`` before its suffix. Raw stacks (a .txt)
are compared side by side: that process's CPU per move it served, split as
its busy samples are (per component, per task the loop ran, per function);
.svg or .json are written for a viewer. The profiled runs' CPU figures carry
py-spy's own cost (it stops the process 100 times a second): compare them
with each other only.

Loopback only, bounded (``--max-time``), every child killed at the end.
``--client`` is the client process's entry point, not for people.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common.host import code_version, load_average
from bench.common.pinning import child_setup, parse_cores, raise_nofile
from bench.common.procfs import CLK_TCK, proc_cpu, proc_rss
from bench.load_bench.profiling import COMPONENTS, IDLE_LEAVES, profile_window
from bench.load_bench.report import HEADER, row_text
from bench.load_bench.server_run import Run
from bench.load_bench.stats import summarize
from bench.load_bench.table_clients import PERF, Client, TableRun
from bench.load_bench.worker import Worker, worker_main
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parent.parent


class NoCluster(Exception):
    """The servers do not form one service: (b) and failover cannot run."""

    def __init__(self, why: str) -> None:
        super().__init__(
            f"scale.py: {why}. Clients spread over processes and failover need the "
            "cluster core (issue 16, server/cluster/); --mode owner runs without it."
        )


# =============================================================================
# The client side, for failover: clients that reconnect, tables that keep times
# =============================================================================


RESUME_RID = 4


class ResumingClient(Client):
    """A client that takes its seat back on another server when its own dies."""

    def __init__(self, run: TableRun, idx: int) -> None:
        super().__init__(run, idx)
        self.token: str | None = None
        self.moved = 0  # reconnections: each goes to the next server

    def url(self) -> str:
        urls = self.run.worker.urls
        return urls[(self.run.number + self.idx + self.moved) % len(urls)]

    async def take(self, msg: Any) -> None:
        t = msg.get("t")
        if t == "seated":
            self.token = msg.get("token") or self.token
            if self.resuming:
                # Back in the seat. A move this client sent to the dead server
                # was never made (nobody saw it): forget it, the view decides.
                self.resuming = False
                self.run.pending.clear()
                self.run.sent_at = None
                self.run.owed = True
        elif t == "error" and msg.get("rid") == RESUME_RID and self.resuming:
            # Not yet (the table's old owner still holds its lease): ask again.
            self.run.worker.count(f"resume_again:{msg.get('code')}")
            loop = asyncio.get_running_loop()
            self.run.worker.tasks.add(loop.create_task(self.ask_seat(delay=0.25)))
            return
        await super().take(msg)

    async def ask_seat(self, delay: float = 0.0) -> None:
        if delay:
            await asyncio.sleep(delay)
        if not self.closed:
            await self.send(
                {"t": "resume", "rid": RESUME_RID, "token": self.token, "last_seq": self.seq}
            )

    async def read(self) -> None:
        await super().read()
        w = self.run.worker
        if not w.quitting and self.token is not None:
            w.tasks.add(asyncio.get_running_loop().create_task(self.reconnect()))

    async def reconnect(self) -> None:
        w = self.run.worker
        # Not asked to move until the resume is answered: a move sent before
        # would be refused (not_at_table), as the terminal client never does.
        self.resuming = True
        for attempt in range(50):
            self.moved += 1
            self.closed, self.welcomed = False, False
            try:
                await self.open()
                await self.ask_seat()
                w.count("resumed")
                return
            except Exception:
                self.closed = True
                await asyncio.sleep(min(0.1 * (attempt + 1), 1.0))
        w.count("resume_failed")


class TimedTable(TableRun):
    """Keeps when its clients' views moved on, and whether one went back."""

    def __init__(self, worker: Worker, number: int) -> None:
        super().__init__(worker, number)
        self.progress_times: list[float] = []
        self.best: Any = None  # the furthest progress any client saw
        self.went_back = 0
        self.back: list[list[Any]] = []
        """Each view that went back: when, which client, from where to where."""

    async def on_update(self, client: Client) -> None:
        # Client counts a view that goes back as a new game; a game of
        # 40 deals never ends in a run, so here it is a lost move.
        progress = client.progress
        if client.game > 0:
            self.went_back += client.game
            self.back.append(
                [PERF(), client.idx, list(self.best or ()), list(progress[1:]), client.seq]
            )
            client.game = 0
            progress = client.progress = (0, *progress[1:])
        if self.best is None or progress > self.best:
            self.best = progress
            self.progress_times.append(PERF())
        await super().on_update(client)


class FailoverWorker(Worker):
    client_class = ResumingClient
    table_class = TimedTable

    async def other_command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        if cmd["cmd"] == "since":
            # Per table: its id, the first move seen after ``at``, and the
            # views that went back so far.
            at = cmd["at"]
            out = []
            for t in self.tables:
                host = t.clients[0]
                if not isinstance(t, TimedTable) or host.doc is None:
                    continue
                first = next((x for x in t.progress_times if x > at), None)
                out.append([host.doc["table_id"], first, t.went_back])
            back = [
                [t.clients[0].doc["table_id"], *b]
                for t in self.tables
                if isinstance(t, TimedTable) and t.clients[0].doc is not None
                for b in t.back
                if b[0] > at
            ]
            return {"tables": out, "back": back, "errors": dict(self.errors)}
        return await super().other_command(cmd)


# =============================================================================
# The coordinator
# =============================================================================


class ScaleRun(Run):
    """``processes`` servers on one fresh Redis, and load.py's client processes."""

    def __init__(self, args: argparse.Namespace, tmp: Path, processes: int, placement: str) -> None:
        super().__init__(args, "ours", "redis", tmp)
        self.processes = processes
        self.placement = placement
        self.label = f"{processes}proc/{placement}"
        self.ports = [free_port() for _ in range(processes)]
        self.port = self.ports[0]
        self.servers: list[asyncio.subprocess.Process | None] = [None] * processes

    def server_cmd(self, i: int) -> list[str]:
        return [
            sys.executable, "-m", "server", "serve",
            "--port", str(self.ports[i]),
            "--redis", self.redis.url,
            "--log-level", "warning",
            "--rate", "1000", "--burst", "1000",
            *shlex.split(self.args.server_args),
        ]  # fmt: skip

    async def start_server(self, i: int) -> None:
        log = self.log_file(f"server-{self.label.replace('/', '-')}-{i}.log")
        no_limits = {"ATOUT_MAX_PER_IP": "0", "ATOUT_CONNECT_RATE": "0", "ATOUT_CREATE_RATE": "0"}
        proc = await asyncio.create_subprocess_exec(
            *self.server_cmd(i),
            cwd=self.args.server_root,
            env={**os.environ, **no_limits},
            stdout=log,
            stderr=log,
            preexec_fn=child_setup(self.args.server_cores, signal.SIGTERM),
        )
        self.servers[i] = proc
        deadline = time.monotonic() + 30
        while True:
            if proc.returncode is not None:
                raise SystemExit(f"scale.py: server {i} exited; see {log.name}")
            try:
                _, w = await asyncio.open_connection("127.0.0.1", self.ports[i])
                w.close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(
                        f"scale.py: server {i} did not listen; see {log.name}"
                    ) from None
                await asyncio.sleep(0.1)

    async def start(self, workers: int | None = None) -> None:
        from tests.support.redis import RedisServer

        args = self.args
        self.redis = RedisServer()
        os.sched_setaffinity(self.redis._proc.pid, args.client_cores)
        for i in range(self.processes):
            await self.start_server(i)
        urls = [f"ws://127.0.0.1:{p}/" for p in self.ports]
        here = [sys.executable, str(Path(__file__).resolve()), "--client"]
        for i in range(args.workers):
            url = urls[i % len(urls)] if self.placement == "owner" else ",".join(urls)
            self.workers.append(
                await asyncio.create_subprocess_exec(
                    *here,
                    "--url", url,
                    "--pace", str(args.pace), "--wid", str(i), "--seed", str(args.seed),
                    "--connect-concurrency", "32",
                    "--max-time", str(args.max_time),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=self.log_file(f"client-{self.label.replace('/', '-')}-{i}.log"),
                    limit=2**28,
                    preexec_fn=child_setup(args.client_cores, signal.SIGKILL),
                )
            )  # fmt: skip

    @property
    def pid(self) -> int:  # summarize's RSS and proc_wait: the first server
        server = self.servers[0]
        assert server is not None
        return server.pid

    def pids(self) -> list[int]:
        return [s.pid for s in self.servers if s is not None and s.returncode is None]

    def cpu(self) -> float:
        return sum(proc_cpu(pid) for pid in self.pids())

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.ask_all({"cmd": "quit"}, 5)
        for w in self.workers:
            with contextlib.suppress(ProcessLookupError):
                w.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(w.wait(), 5)
        for s in self.servers:
            if s is not None and s.returncode is None:
                s.terminate()
        for s in self.servers:
            if s is None:
                continue
            try:
                await asyncio.wait_for(s.wait(), 15)
            except TimeoutError:
                s.kill()
                await s.wait()
        if self.redis is not None:
            self.redis.close()
        self.files.close()


async def probe_cluster(run: ScaleRun) -> None:
    """A table created on one process, joined by its code from another: the
    cluster answers within seconds; without it the code is unknown there."""
    from clients.session import Session
    from protocol.messages import CreateTable, Error, JoinTable, Seated

    a, b = (f"ws://127.0.0.1:{p}" for p in run.ports[:2])
    host = await Session.open(a, "probe")
    guest = await Session.open(b, "probe")
    try:
        await host.send(CreateTable(name="scale probe", private=True))
        await host.wait_for(Seated, Error, timeout=10)
        view = await host.wait_view(lambda v: v.invite_code is not None, timeout=10)
        await guest.send(JoinTable(code=view.invite_code))
        try:
            answer = await guest.wait_for(Seated, Error, timeout=10)
        except TimeoutError:
            raise NoCluster(
                f"a table created on :{run.ports[0]} got no answer to a join from "
                f":{run.ports[1]} in 10 s"
            ) from None
        if not isinstance(answer, Seated):
            raise NoCluster(
                f"a table created on :{run.ports[0]} cannot be joined from :{run.ports[1]} "
                f"({answer.code}: {answer.message})"
            )
    finally:
        await host.close()
        await guest.close()


def profile_path(path: str, processes: int) -> str:
    """``/tmp/p.txt`` -> ``/tmp/p-3proc.txt``: one file per run."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{processes}proc{p.suffix}"))


def proc_counts(pid: int) -> tuple[float, float, int, int]:
    """User and system CPU seconds, voluntary and involuntary context switches."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    switches = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if "ctxt_switches" in line:
                name, _, value = line.partition(":")
                switches[name] = int(value)
    return (
        int(fields[11]) / CLK_TCK,
        int(fields[12]) / CLK_TCK,
        switches.get("voluntary_ctxt_switches", 0),
        switches.get("nonvoluntary_ctxt_switches", 0),
    )


def redis_calls(url: str) -> dict[str, int]:
    """Redis's command counts so far (INFO commandstats): calls per command."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}
    finally:
        client.close()


def served_by_first(run: ScaleRun, replies: list[dict[str, Any]]) -> int:
    """Moves whose table the first server runs: in (a) client process i talks
    to server i mod N, so those of client processes 0, N, 2N..."""
    if run.processes == 1:
        return sum(len(r["latencies_ms"]) for r in replies)
    return sum(len(r["latencies_ms"]) for i, r in enumerate(replies) if i % run.processes == 0)


def profile_sums(path: str) -> tuple[int, dict[str, dict[str, int]]]:
    """A raw py-spy file (profile_window's): busy samples, and busy samples
    per component (COMPONENTS), per task or callback the loop ran (the
    first Python frame under it) and per function (inclusive)."""
    busy = 0
    sums: dict[str, dict[str, int]] = {"component": {}, "entry": {}, "function": {}}
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            if not stack or frames[-1].split(" ", 1)[0] in IDLE_LEAVES:
                continue
            n = int(count)
            busy += n
            part = next(
                (name for name, keys in COMPONENTS if any(k in stack for k in keys)),
                "other (event loop, tasks, timers)",
            )
            below = next((i for i, fr in enumerate(frames) if fr.startswith("Runner.run")), 0)
            entry = next(
                (fr.split(" (")[0] for fr in frames[below + 1 :] if ".py:" in fr),
                "(C: the loop, the kernel) " + frames[-1].split(" (")[0],
            )
            keys = [("component", part), ("entry", entry)] + [
                ("function", fr)
                for fr in set(frames)
                if ".c:" not in fr and ".h:" not in fr and not fr.startswith("0x")
            ]
            for kind, key in keys:
                sums[kind][key] = sums[kind].get(key, 0) + n
    return busy, sums


def compare_profiles(
    many: tuple[str, int, float], one: tuple[str, int, float], top: int = 30
) -> str:
    """Side by side, in µs of CPU per move served: each profiled process's CPU
    in the window, split as its busy samples are. py-spy samples wall time: a
    process waiting for a core is sampled where it was preempted, so on a
    loaded machine it has far more busy samples than CPU time; shares of the
    samples are what it tells."""
    (path_n, moves_n, cpu_n), (path_1, moves_1, cpu_1) = many, one
    busy_n, sums_n = profile_sums(path_n)
    busy_1, sums_1 = profile_sums(path_1)
    us_n = 1e6 * cpu_n / max(moves_n, 1) / max(busy_n, 1)
    us_1 = 1e6 * cpu_1 / max(moves_1, 1) / max(busy_1, 1)
    lines = [
        f"# profile, us of CPU per move served: N processes (the first: {moves_n} moves,"
        f" {cpu_n:.2f} s, {busy_n} busy samples) vs 1 process ({moves_1} moves,"
        f" {cpu_1:.2f} s, {busy_1} busy samples), then the difference",
        f"{busy_n * us_n:8.0f} {busy_1 * us_1:8.0f} {busy_n * us_n - busy_1 * us_1:+8.0f}  all",
    ]
    for kind in ("component", "entry", "function"):
        lines.append(f"# by {kind}, largest difference first")
        a_of, b_of = sums_n[kind], sums_1[kind]
        names = sorted(
            set(a_of) | set(b_of), key=lambda k: -abs(a_of.get(k, 0) * us_n - b_of.get(k, 0) * us_1)
        )
        if kind == "function":  # not the frames under everything (main, Runner.run...)
            names = [k for k in names if a_of.get(k, 0) < 0.95 * busy_n]
        for name in names[: top if kind == "function" else 12]:
            a, b = a_of.get(name, 0) * us_n, b_of.get(name, 0) * us_1
            lines.append(f"{a:8.0f} {b:8.0f} {a - b:+8.0f}  {name}")
    return "\n".join(lines)


async def measure(args: argparse.Namespace, run: ScaleRun) -> dict[str, Any]:
    """Seat ``--tables`` tables, play, measure one window: load.py's figures."""
    added = await run.add_tables(args.tables)
    await run.ask_all({"cmd": "play"}, 30)
    print(
        f"# {run.label}: {added['joined']} tables seated in {added['seconds']:.1f}s"
        f" ({added['failed']} failed); warming up {args.warmup:.0f}s",
        file=sys.stderr,
        flush=True,
    )
    await asyncio.sleep(args.warmup)
    profiler = None
    if getattr(args, "profile", "") and args.mode != "failover":
        profiler = await profile_window(
            run, args.measure, profile_path(args.profile, run.processes)
        )
    each0 = [proc_cpu(pid) for pid in run.pids()]
    counts0 = [proc_counts(pid) for pid in run.pids()]
    assert run.redis is not None
    calls0 = redis_calls(run.redis.url)
    cpu0, rcpu0, t0 = run.cpu(), run.redis_cpu(), PERF()
    await run.ask_all({"cmd": "measure_start"}, 30)
    await asyncio.sleep(args.measure)
    cpu1, rcpu1, t1 = run.cpu(), run.redis_cpu(), PERF()
    each1 = [proc_cpu(pid) for pid in run.pids()]
    counts1 = [proc_counts(pid) for pid in run.pids()]
    calls1 = redis_calls(run.redis.url)
    replies = await run.ask_all({"cmd": "measure_stop", "grace": args.grace}, 60)
    r = summarize(run, args.tables, replies, cpu1 - cpu0, rcpu1 - rcpu0, t1 - t0)
    r["processes"] = run.processes
    r["placement"] = run.placement
    r["server_rss_mb"] = round(sum(proc_rss(pid) for pid in run.pids()) / 2**20, 1)
    r["server_cpu_s_each"] = [round(b - a, 2) for a, b in zip(each0, each1, strict=False)]
    r["moves_first_server"] = served_by_first(run, replies)
    print(row_text(r), flush=True)
    print(f"#   server CPU s per process: {r['server_cpu_s_each']}", flush=True)
    if r["moves"]:
        per_move = [
            sum(b[k] - a[k] for a, b in zip(counts0, counts1, strict=False)) / r["moves"]
            for k in range(4)
        ]
        r["server_user_us_per_move"] = round(1e6 * per_move[0], 1)
        r["server_sys_us_per_move"] = round(1e6 * per_move[1], 1)
        r["server_switches_per_move"] = round(per_move[2] + per_move[3], 2)
        r["server_involuntary_per_move"] = round(per_move[3], 2)
        r["redis_calls_per_move"] = {
            k: round((n - calls0.get(k, 0)) / r["moves"], 3)
            for k, n in sorted(calls1.items())
            if (n - calls0.get(k, 0)) / r["moves"] >= 0.001
        }
        print(
            f"#   per move, all servers: user {r['server_user_us_per_move']} us,"
            f" system {r['server_sys_us_per_move']} us, context switches"
            f" {r['server_switches_per_move']} ({r['server_involuntary_per_move']} involuntary);"
            f" redis calls {r['redis_calls_per_move']}",
            flush=True,
        )
    if profiler is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(profiler.wait(), 30)
        r["profile"] = profile_path(args.profile, run.processes)
        print(f"# profile of the first server written to {r['profile']}", file=sys.stderr)
    if r["errors"]:
        print(f"#   errors: {r['errors']}", file=sys.stderr, flush=True)
    print(f"#   redis-server CPU: {r['redis_cpu_pct']}% of a core", flush=True)
    return r


async def compare(args: argparse.Namespace, tmp: Path, results: list[dict[str, Any]]) -> None:
    placement = args.mode
    print(HEADER, flush=True)
    figures: dict[int, dict[str, Any]] = {}
    for processes in (args.processes, 1):  # N first: spread's probe fails at once
        run = ScaleRun(args, tmp, processes, placement)
        try:
            await run.start()
            if placement == "spread" and processes > 1:
                await probe_cluster(run)
            figures[processes] = await measure(args, run)
            results.append(figures[processes])
        finally:
            await run.stop()
    one, many = figures[1], figures[args.processes]
    ratio = many["server_us_per_move"] / one["server_us_per_move"]
    print(
        f"# {placement}: server CPU per move, {args.processes} processes "
        f"{many['server_us_per_move']:.0f} us vs 1 process {one['server_us_per_move']:.0f} us "
        f"-> ratio {ratio:.2f}; p99 {many['p99_ms']:.1f} ms vs {one['p99_ms']:.1f} ms",
        flush=True,
    )
    results.append({"mode": placement, "cpu_ratio": round(ratio, 2)})
    if "profile" in many and "profile" in one and not args.profile.endswith((".svg", ".json")):
        print(
            compare_profiles(
                (many["profile"], many["moves_first_server"], many["server_cpu_s_each"][0]),
                (one["profile"], one["moves_first_server"], one["server_cpu_s_each"][0]),
            ),
            flush=True,
        )


def leases(url: str) -> dict[str, str]:
    """``atout:lease:{table}`` -> the owning process, as Redis holds them now."""
    import redis

    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        keys = list(client.scan_iter("atout:lease:*", count=1000))
        values = client.mget(keys) if keys else []
        return {
            k.removeprefix("atout:lease:"): v
            for k, v in zip(keys, values, strict=True)
            if v is not None
        }
    finally:
        client.close()


async def failover(args: argparse.Namespace, tmp: Path, results: list[dict[str, Any]]) -> None:
    if "--grace" not in args.server_args:
        args.server_args += " --grace 0"
    run = ScaleRun(args, tmp, args.processes, "spread")
    try:
        await run.start()
        await probe_cluster(run)
        await measure(args, run)  # seats and plays the tables; a window before any kill
        assert run.redis is not None
        waits: list[float] = []
        stuck = 0
        lost_before = 0
        for k in range(args.kills):
            victim = k % run.processes
            before = leases(run.redis.url)
            if not before:
                raise NoCluster("Redis holds no lease (atout:lease:*) while tables play")
            server = run.servers[victim]
            assert server is not None
            at = PERF()
            server.kill()
            await server.wait()
            await run.start_server(victim)
            await asyncio.sleep(args.settle)
            after = leases(run.redis.url)
            moved = {t for t, owner in before.items() if after.get(t) != owner}
            replies = await run.ask_all({"cmd": "since", "at": at}, 30)
            seen = {tid: (first, back) for r in replies for tid, first, back in r["tables"]}
            for r in replies:
                for tid, when, idx, best, now, seq in r.get("back", []):
                    print(
                        f"#   view went back: table {tid} client {idx} at +{when - at:.2f} s:"
                        f" best seen {best} -> {now} (seq {seq})",
                        flush=True,
                    )
            errors: dict[str, int] = {}
            for r in replies:
                for code, n in r.get("errors", {}).items():
                    errors[code] = errors.get(code, 0) + n
            print(f"#   client errors so far: {errors}", flush=True)
            times = [seen[t][0] - at for t in moved if t in seen and seen[t][0] is not None]
            stuck_now = sum(1 for t in moved if t in seen and seen[t][0] is None)
            lost = sum(back for _, back in seen.values())
            waits += times
            stuck += stuck_now
            row = {
                "kill": k + 1,
                "victim": victim,
                "tables_moved": len(moved),
                "median_s": round(statistics.median(times), 2) if times else None,
                "max_s": round(max(times), 2) if times else None,
                "no_move_within_settle": stuck_now,
                "views_gone_back": lost - lost_before,
            }
            lost_before = lost
            results.append(row)
            print(f"# kill {k + 1}: {json.dumps(row)}", flush=True)
        summary = {
            "mode": "failover",
            "kills": args.kills,
            "tables": args.tables,
            "median_s": round(statistics.median(waits), 2) if waits else None,
            "max_s": round(max(waits), 2) if waits else None,
            "tables_with_no_move_within_settle": stuck,
            "acknowledged_moves_lost": lost_before,
        }
        results.append(summary)
        print(f"# failover: {json.dumps(summary)}", flush=True)
    finally:
        await run.stop()


async def coordinate(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="atout-scale-"))
    version = code_version(args.server_root)
    print(
        f"# mode {args.mode}, {args.processes} processes, {args.tables} tables at "
        f"{args.pace}/s, {args.workers} client processes, server cores "
        f"{sorted(args.server_cores)}, client cores {sorted(args.client_cores)}, "
        f"code {version}, load {load_average()}, logs in {tmp}",
        flush=True,
    )
    results.append({"meta": True, "code": version, "args": {
        k: (sorted(v) if isinstance(v, set) else v) for k, v in vars(args).items()}})  # fmt: skip
    if args.mode == "failover":
        await failover(args, tmp, results)
    else:
        await compare(args, tmp, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("owner", "spread", "failover"), default="owner")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--pace", type=float, default=1.0, help="moves per second per table")
    parser.add_argument("--measure", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--grace", type=float, default=5.0, help="wait for late updates (s)")
    parser.add_argument("--workers", type=int, default=0, help="client processes (default: N)")
    parser.add_argument("--server-cores", default="", help="default: every core")
    parser.add_argument("--client-cores", default="", help="default: every core")
    parser.add_argument("--server-root", default=str(ROOT))
    parser.add_argument("--server-args", default="", help="more `atout-server serve` flags")
    parser.add_argument("--kills", type=int, default=10, help="failover: kill -9 this often")
    parser.add_argument(
        "--settle", type=float, default=15.0, help="failover: seconds after each kill"
    )
    parser.add_argument("--json", default="")
    parser.add_argument(
        "--profile", default="", help="py-spy the first server of each run: .txt, .svg or .json"
    )
    parser.add_argument("--seed", default="1")
    parser.add_argument("--max-time", type=float, default=1800.0, help="hard stop (s)")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--wid", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--connect-concurrency", type=int, default=32, help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_nofile()
    if args.client:
        args.kind = "ours"
        worker_main(args, FailoverWorker)
        return
    if args.processes < 2 and args.mode != "failover":
        parser.error("--processes: 2 or more (one process is the comparison)")
    available = os.sched_getaffinity(0)
    args.server_cores = parse_cores(args.server_cores) or available
    args.client_cores = parse_cores(args.client_cores) or available
    # A multiple of N client processes: in (a) each server gets the same load.
    args.workers = args.workers or args.processes
    results: list[dict[str, Any]] = []

    async def bounded() -> None:
        try:
            await asyncio.wait_for(coordinate(args, results), args.max_time)
        except TimeoutError:
            print(f"# stopped: --max-time {args.max_time:.0f}s reached", file=sys.stderr)

    try:
        asyncio.run(bounded())
    except NoCluster as exc:
        sys.exit(str(exc))
    finally:
        if args.json and results:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""The backend under test (ours with a store, or bare), its client
processes, the commands sent to them, and the cleanup."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from bench.common.pinning import child_setup
from bench.common.procfs import proc_cpu
from bench.common.redis_server import start_redis
from bench.common.servers import spawn_server, wait_listening
from bench.load_bench.gc_log import GC_WRAPPER
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "bench" / "load.py"
"""The command the client processes run (``--worker``)."""


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

    def log_file(self, name: str) -> IO[Any]:
        # Open for the children's whole life; ``stop`` closes them all.
        return self.files.enter_context(open(self.tmp / name, "ab"))

    async def start(self, workers: int | None = None) -> None:
        args = self.args
        name = self.label.replace("/", "-")
        log = self.log_file(f"server-{name}.log")
        if self.target == "bare":
            cmd = [sys.executable, str(ROOT / "bench" / "bare_server.py"), "--port", str(self.port)]
        else:
            if args.gc_log or args.gc_threshold or args.gc_freeze_every or args.stall_log:
                self.gc_log = self.tmp / f"gc-{name}.log"
                launcher = ["-c", GC_WRAPPER, str(self.gc_log)]
                if args.gc_threshold:
                    launcher += ["--gc-threshold", args.gc_threshold]
                if args.gc_freeze_every:
                    launcher += ["--gc-freeze-every", str(args.gc_freeze_every)]
                if args.stall_log:
                    launcher += ["--gc-stall-ms", str(args.stall_log)]
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
                # As deploy/redis.conf has it: an append-only file (in the
                # server's temp directory), synced as the mode says.
                aof = ("--appendonly", "yes", "--appendfsync", self.aof) if self.aof else ()
                self.redis = start_redis(
                    *aof, cores=args.redis_cores or args.client_cores, nice=args.nice
                )
                cmd += ["--redis", self.redis.url]
        if args.callgrind:
            # Instrumented only during each measurement window (``callgrind_window``).
            self.callgrind_out = Path(args.callgrind).resolve() / f"callgrind.{name}"
            self.callgrind_out.parent.mkdir(parents=True, exist_ok=True)
            for old in self.callgrind_out.parent.glob(self.callgrind_out.name + "*"):
                old.unlink()  # a dump of an earlier run has the same name
            # The cache simulation: this VM's L1 data cache and its L2 (1 MiB,
            # per core) as the last level, which a table's objects outgrow.
            cache = ("--cache-sim=yes", "--D1=32768,8,64", "--LL=1048576,16,64")
            cmd = [
                "valgrind", "--tool=callgrind", "--instr-atstart=no",
                *(cache if args.cache_sim else ()),
                f"--callgrind-out-file={self.callgrind_out}", *cmd,
            ]  # fmt: skip
        self.server = await spawn_server(cmd, args.server_root, log, args.server_cores, args.nice)
        await wait_listening(self.server, self.port, f"{self.label} server", log.name)
        for i in range(workers or args.workers):
            self.workers.append(
                await asyncio.create_subprocess_exec(
                    sys.executable, str(ENTRY), "--worker",
                    "--kind", "bare" if self.target == "bare" else "ours",
                    "--protocol", str(args.protocol),
                    "--url", f"ws://127.0.0.1:{self.port}/",
                    "--pace", str(args.pace), "--spread", str(args.spread),
                    "--wid", str(i), "--seed", str(args.seed),
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

    async def seat_and_play(
        self, count: int, warmup: float, said: Callable[[dict[str, Any]], str]
    ) -> dict[str, Any]:
        """Seat ``count`` more tables, set every table playing, say so in the
        caller's words (``said`` of ``add_tables``'s figures), then warm up."""
        added = await self.add_tables(count)
        await self.ask_all({"cmd": "play"}, 30)
        print(f"{said(added)}; warming up {warmup:.0f}s", file=sys.stderr, flush=True)
        await asyncio.sleep(warmup)
        return added

    async def stop_workers(self) -> None:
        with contextlib.suppress(Exception):
            await self.ask_all({"cmd": "quit"}, 5)
        for w in self.workers:
            with contextlib.suppress(ProcessLookupError):
                w.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(w.wait(), 5)

    async def stop(self) -> None:
        await self.stop_workers()
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

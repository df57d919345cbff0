"""The servers of a scale run: ``processes`` of them on one fresh Redis,
load.py's client processes driving them, and the probe that tells whether
they form one service (the cluster core)."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import signal
import sys
from pathlib import Path

from bench.common.pinning import child_setup
from bench.common.procfs import proc_cpu
from bench.common.redis_server import start_redis
from bench.common.servers import spawn_server, wait_listening
from bench.load_bench.server_run import Run
from tests.support.ports import free_port

ENTRY = Path(__file__).resolve().parents[2] / "bench" / "scale.py"
"""The command the client processes run (``--client``)."""


class NoCluster(Exception):
    """The servers do not form one service: (b) and failover cannot run."""

    def __init__(self, why: str) -> None:
        super().__init__(
            f"scale.py: {why}. Clients spread over processes and failover need the "
            "cluster core (issue 16, server/cluster/); --mode owner runs without it."
        )


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
        proc = await spawn_server(
            self.server_cmd(i), self.args.server_root, log, self.args.server_cores
        )
        self.servers[i] = proc
        try:
            await wait_listening(proc, self.ports[i], f"server {i}", log.name)
        except RuntimeError as e:
            raise SystemExit(f"scale.py: {e}") from None

    async def start(self, workers: int | None = None) -> None:
        args = self.args
        self.redis = start_redis(cores=args.client_cores)
        for i in range(self.processes):
            await self.start_server(i)
        urls = [f"ws://127.0.0.1:{p}/" for p in self.ports]
        here = [sys.executable, str(ENTRY), "--client"]
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
        await self.stop_workers()
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

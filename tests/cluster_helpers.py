"""``atout-server serve`` processes on one Redis, for the cluster tests.

Each ``Proc`` is a real server process on its own port; the tests signal
them (SIGKILL, SIGTERM, SIGSTOP/SIGCONT) and read ``/healthz``.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
            "--bot-think", "0.02",
            "--deal-pause", "0.05",
            "--result-wait", "0",
            "--grace", "60",
            "--rate", "1000",
            "--burst", "1000",
            "--max-per-ip", "0",
            "--connect-rate", "0",
            "--create-rate", "0",
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

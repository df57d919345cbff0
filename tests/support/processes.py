"""Real server processes: ``python -m server`` run to its end, and
``atout-server serve`` processes on one Redis (``Proc``) that tests signal
(SIGKILL, SIGTERM, SIGSTOP/SIGCONT) and read ``/healthz`` of."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

from tests.support.ports import free_port
from tests.support.waits import patient, wait_until

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_MD = (ROOT / "docs" / "DEPLOY.md").read_text(encoding="utf-8")
"""The operator's guide: every one-line startup mistake is explained there."""
TIMEOUT_S = 20  # each run takes about a second; a hang fails the test instead of the suite
# (seconds of an unhurried machine: ``patient``)


def atout_server(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=patient(TIMEOUT_S),
    )


def one_line(result: subprocess.CompletedProcess[str], status: int) -> str:
    """The one line the run printed on stderr, having checked its status."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert result.returncode == status, result.stderr
    assert result.stdout == ""
    assert lines[0].startswith("atout-server: ")
    return lines[0]


def healthz(port: int) -> dict[str, Any] | None:
    """One ``/healthz``, on a new connection (so the kernel may pick any worker)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            body: dict[str, Any] = json.load(r)
            return body
    except OSError:
        return None


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

    def __init__(
        self, redis_url: str, *extra: str, lease: float = 1.0, port: int | None = None
    ) -> None:
        self.port = port or free_port()  # a fixed port: started again on the same one
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
        out: int | IO[bytes] = subprocess.DEVNULL
        if log_dir is not None:
            self.log_path = log_dir / f"server-{self.port}.log"
            out = open(self.log_path, "ab")  # noqa: SIM115  (the child keeps it)
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)

        def up() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                self.health()
            except OSError:
                return False
            return True

        wait_until(up, 20, what=f"the server on port {self.port} answering /healthz")
        return self

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

    def terminate(self) -> None:
        """SIGTERM (after SIGCONT: a stopped process cannot end); ``stop`` waits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()

    def stop(self) -> None:
        """Terminate and wait; killed if still there after 10 s."""
        self.terminate()
        if self.proc is None:
            return
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def stop_all(procs: list[Proc]) -> None:
    """Stop ``procs`` together: each shutdown runs beside the others'."""
    for p in procs:
        p.terminate()
    for p in procs:
        p.stop()


__all__ = [
    "DEPLOY_MD",
    "QUICK_GAME_FLAGS",
    "ROOT",
    "TIMEOUT_S",
    "Proc",
    "atout_server",
    "healthz",
    "one_line",
    "stop_all",
]

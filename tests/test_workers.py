"""``atout-server --workers N``: real worker processes on one port, a real
Redis, the real supervisor (server/process/workers.py).

Each worker says who it is in ``/healthz``; connections reach both; a worker
killed outright is started again; SIGTERM stops them all cleanly; a mistake
at start is one line, printed once; a worker that keeps dying stops
everything with one line; without Redis, more than one worker is refused.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.ports import free_port
from tests.support.processes import DEPLOY_MD, atout_server, healthz, one_line
from tests.support.redis import RedisServer

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 30.0


def workers_seen(port: int, want: set[int], proc: subprocess.Popen[str]) -> dict[int, int]:
    """Ask ``/healthz`` until every worker number in ``want`` answered: number -> pid."""
    seen: dict[int, int] = {}
    deadline = time.monotonic() + TIMEOUT_S
    while not want <= set(seen):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, f"only workers {sorted(seen)} answered"
        body = healthz(port)
        if body is not None:
            seen[body["worker"]] = body["pid"]
        else:
            time.sleep(0.05)
    return seen


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def events(stderr: str) -> list[dict[str, Any]]:
    """The JSON log events on ``stderr``. The workers share the pipe, so two
    events may land on one line (CI saw it): each is read whole."""
    found: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    for line in stderr.splitlines():
        at = 0
        while line.startswith("{", at):
            event, at = decoder.raw_decode(line, at)
            found.append(event)
    return found


@contextmanager
def supervisor(*args: str, code: str | None = None) -> Iterator[subprocess.Popen[str]]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    launcher = ["-c", code] if code is not None else ["-m", "server"]
    proc = subprocess.Popen(
        [sys.executable, *launcher, *args, "--log-format", "json"],
        cwd=ROOT,
        env=clean,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_workers_share_the_port_restart_when_killed_and_stop_on_sigterm(
    redis_server: RedisServer,
) -> None:
    port = free_port()
    with supervisor("--workers", "2", "--port", str(port), "--redis", redis_server.url) as proc:
        first = workers_seen(port, {0, 1}, proc)
        assert len(set(first.values())) == 2
        assert all(parent_of(pid) == proc.pid for pid in first.values())

        os.kill(first[0], signal.SIGKILL)
        deadline = time.monotonic() + TIMEOUT_S
        while (body := healthz(port)) is None or body["worker"] != 0 or body["pid"] == first[0]:
            assert time.monotonic() < deadline, "worker 0 was not started again"
        again = body["pid"]
        assert parent_of(again) == proc.pid

        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 0, err
    assert not alive(first[1]) and not alive(again)
    logged = events(err)
    died = [e for e in logged if e["event"] == "worker_died"]
    assert len(died) == 1 and died[0]["worker"] == 0 and died[0]["pid"] == first[0], died
    assert died[0]["how"] == "killed by signal SIGKILL"
    assert any(e["event"] == "worker_restarting" and e["worker"] == 0 for e in logged)
    # Each worker's lines name it, and each stopped by itself, cleanly.
    stopped = {(e["worker"], e["pid"]) for e in logged if e["event"] == "stopped"}
    assert stopped == {(0, again), (1, first[1])}, stopped
    assert logged[-1]["event"] == "workers_stopped" and logged[-1]["exits"] == [0, 0]


def test_a_worker_that_keeps_dying_stops_everything_with_one_line(
    redis_server: RedisServer,
) -> None:
    port = free_port()
    # The real supervisor with short pauses (0.5 s doubling to 8 s would make
    # this test 16 s long): the pauses are not what is tested.
    code = (
        "import sys\n"
        "from server import __main__ as cli\n"
        "from server.base import config\n"
        "from server.process import workers\n"
        "settings = config.load(cli.serve_parser().parse_args(sys.argv[1:]))\n"
        "try:\n"
        "    sys.exit(workers.supervise(settings, cli.cannot_start, backoff=(0.05, 0.05)))\n"
        "except workers.GaveUp as exc:\n"
        "    cli._say(exc.message, exc.status)\n"
    )
    args = ("--workers", "2", "--port", str(port), "--redis", redis_server.url)
    with supervisor(*args, "--shutdown-grace", "1", code=code) as proc:
        first = workers_seen(port, {0, 1}, proc)
        redis_server.stop()  # a restarted worker cannot start any more
        os.kill(first[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 1, err
    last = err.splitlines()[-1]
    assert last.startswith("atout-server: worker 0 died 3 times in a row"), err
    assert "cannot reach Redis" in last
    assert not alive(first[1]), "the other worker was left running"
    died = [e for e in events(err) if e["event"] == "worker_died"]
    assert [e["deaths_in_a_row"] for e in died] == [1, 2, 3], died


def test_the_port_taken_is_one_line_printed_once(taken_port: int) -> None:
    redis = f"redis://127.0.0.1:{free_port()}/0"
    line = one_line(atout_server("--workers", "3", "--port", str(taken_port), "--redis", redis), 1)
    assert f"port {taken_port} is already in use" in line


def test_unreachable_redis_is_one_line_printed_once() -> None:
    redis = f"redis://127.0.0.1:{free_port()}/0"
    line = one_line(atout_server("--workers", "2", "--port", str(free_port()), "--redis", redis), 1)
    assert "cannot reach Redis" in line


def test_more_than_one_worker_without_redis_is_refused() -> None:
    line = one_line(atout_server("--workers", "4"), 2)
    assert line.removeprefix("atout-server: ") in DEPLOY_MD
    line = one_line(atout_server(ATOUT_WORKERS="auto"), 2)
    assert line.startswith("atout-server: ATOUT_WORKERS=auto: more than one worker needs Redis")


@pytest.mark.parametrize("bad", ["0", "many"])
def test_a_worker_count_that_is_none_is_refused(bad: str) -> None:
    line = one_line(atout_server("--workers", bad), 2)
    assert line.startswith(f"atout-server: --workers {bad}: ")
    assert "or auto" in line

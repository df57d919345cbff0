"""deploy/haproxy.cfg works: HAProxy in front of two ``atout-server``
processes on one Redis, and games played through it.

The shipped file is used as it is, with only its ``bind`` and ``server``
addresses replaced by free local ports. Skipped when ``haproxy`` is not
installed (``.ci/run`` installs it when the machine lets it).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.session import Session
from protocol.messages import CreateTable, Error, Seated, StartGame
from protocol.views import TableView
from tests.support.clients import autoplay, finished
from tests.support.ports import free_port
from tests.support.redis import RedisServer
from tests.support.waits import wait_until

pytestmark = [pytest.mark.redis, pytest.mark.asyncio]

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "deploy" / "haproxy.cfg"
TIMEOUT_S = 30.0


def local_config(listen: int, servers: list[int]) -> str:
    """The shipped configuration, listening on ``listen``, in front of ``servers``."""
    text = CONFIG.read_text(encoding="utf-8")
    text, binds = re.subn(r"(?m)^(\s+)bind :8765$", rf"\1bind 127.0.0.1:{listen}", text)
    assert binds == 1, "deploy/haproxy.cfg: no `bind :8765` line"
    shipped = re.findall(r"(?m)^\s+server (\S+) \S+$", text)
    assert len(shipped) == len(servers), shipped
    for name, port in zip(shipped, servers, strict=True):
        text = re.sub(rf"(?m)^(\s+server {name}) \S+$", rf"\1 127.0.0.1:{port}", text)
    return text


def wait_http(port: int, proc: subprocess.Popen[bytes]) -> None:
    def answers() -> bool:
        assert proc.poll() is None, f"exited with {proc.returncode}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    wait_until(answers, TIMEOUT_S, what=f"an answer to /healthz on port {port}", poll=0.1)


def connections(port: int) -> int:
    import json

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
        return int(json.load(r)["connections"])


@pytest.fixture
def haproxy() -> str:
    found = shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(p, os.X_OK)),
        None,
    )
    if found is None:
        pytest.skip("haproxy is not installed (apt-get install haproxy; .ci/run tries to)")
    return found


@pytest.fixture
def behind_haproxy(
    haproxy: str, redis_server: RedisServer, tmp_path: Path
) -> Iterator[tuple[int, list[int]]]:
    """Two servers on one Redis, HAProxy in front: (its port, theirs)."""
    ports = [free_port(), free_port()]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "server", "serve", "--port", str(port)],
                    cwd=ROOT,
                    env={
                        **clean,
                        "ATOUT_REDIS_URL": redis_server.url,
                        "ATOUT_TRUSTED_PROXIES": "127.0.0.1",
                        "ATOUT_BOT_THINK": "0.01",
                        "ATOUT_DEAL_PAUSE": "0.1",
                        "ATOUT_LOG_LEVEL": "warning",
                    },
                )
            )
        for port, proc in zip(ports, procs, strict=True):
            wait_http(port, proc)
        listen = free_port()
        config = tmp_path / "haproxy.cfg"
        config.write_text(local_config(listen, ports), encoding="utf-8")
        check = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        procs.append(subprocess.Popen([haproxy, "-db", "-f", str(config)]))
        wait_http(listen, procs[-1])
        yield listen, ports
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def test_two_servers_behind_haproxy_each_play_a_game(
    behind_haproxy: tuple[int, list[int]],
) -> None:
    listen, ports = behind_haproxy
    url = f"ws://127.0.0.1:{listen}"
    players = []
    for name in ("Alice", "Bob"):
        s = await Session.open(url, name, keep=True)
        await s.send(
            CreateTable(name=f"{name} behind haproxy", deals=1, bot_level="random", seed="lb")
        )
        seated = await s.wait_for(Seated, Error)
        assert isinstance(seated, Seated), seated
        players.append(s)
    # leastconn: the second long-lived connection went to the other server.
    assert [await asyncio.to_thread(connections, p) for p in ports] == [1, 1]

    async def play(s: Session, seed: int) -> TableView:
        await s.send(StartGame())
        return await autoplay(s, random.Random(seed), finished, timeout=60.0)

    views = await asyncio.gather(*(play(s, i) for i, s in enumerate(players)))
    for view in views:
        assert view.ranking is not None and sorted(view.ranking) == [0, 1, 2, 3]
        assert len([line for line in view.sheet if line.annulled is None]) == 1
        assert sum(view.scores) == 0
    for s in players:
        await s.close()

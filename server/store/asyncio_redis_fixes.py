"""The pinned asyncio-redis (0.16.0), its bugs worked around, behind one typed door.

asyncio-redis 0.16 predates Python 3.11 but runs on it: it uses no removed
asyncio API (its ``loop=`` parameters are only deprecated, and we never pass
them). What bites a long-lived server are bugs of its own, fixed here by
subclassing its protocol, connection and pool and overriding private methods
(``_push_answer``, ``_queue``, ``_connect``, ``_connections``...). That only
holds for the version pinned in pyproject.toml: ``LIBRARY_VERSION`` says
which, and ``tests/test_asyncio_redis_fixes.py`` fails when the installed
version differs, when an internal used here is gone, or when a bug fixed here
no longer shows in the library (then the fix may go). The fixes:

1. the first connect retries forever if Redis is down, and the reconnect loop
   survives ``close()`` (``_Connection.open``, ``_Connection.close``);
2. reconnect backoff grows to 60 s, so a short Redis restart could stall
   every table for up to a minute (``_Connection.RETRY_*``);
3. AUTH and SELECT run in a detached task after the connection is already
   handed out, so a command can reach db 0 before SELECT (``_Protocol``);
4. an error reply for a request whose caller gave up (our timeouts) kills the
   reply reader, and the connection never answers again
   (``_Protocol._push_answer``);
5. EVALSHA turns every error reply (NOSCRIPT included) into a bare
   ``ScriptKilledError``, and decoding a script's list reply is broken for
   strings, so our scripts return integers or nil only (``Script``);
6. a subscribed connection that reconnects sends SUBSCRIBE before fix 3's
   AUTH/SELECT (which then fail: "Cannot run command inside pubsub
   subscription"), so with a password or a db other than 0 it never
   subscribes again and receives nothing, silently (``_Protocol``); nor does
   the library say that it subscribed again, while anything published in
   between is lost (``Subscription.on_resubscribed``);
7. a script's reply read with ``EvalScriptReply.return_value()`` leaves a
   reference cycle behind (its decoder is a closure that calls itself,
   holding the reply): garbage only the full collector frees. The group
   commit runs a script every 10 ms, and the server freezes what survives
   (``tune_gc``), so at 4,000 busy tables ~380,000 such objects piled up
   between two full sweeps (docs/LOAD.md). ``script_value`` reads the reply
   without a closure (``Script``).

The library has no type hints: ``RedisClient`` is the one place its calls
are typed (mypy checks everything else strictly; this module is exempt from
the subclassing rule only, see pyproject.toml).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable

import asyncio_redis
import structlog
from asyncio_redis.encoders import BytesEncoder
from asyncio_redis.protocol import MultiBulkReply

log = structlog.get_logger("server.store.redis")

LIBRARY_VERSION = "0.16.0"
"""The asyncio-redis these fixes were written for (pinned in pyproject.toml)."""

REDIS_ERRORS = (asyncio_redis.Error, asyncio_redis.ErrorReply, OSError)
"""What the library raises, plus OSError, which covers ConnectionError and the
TimeoutError of our own deadlines."""

ScriptReply = int | list[int] | None


class Script:
    """A Lua script run with EVALSHA, loaded when Redis does not know it.

    The digest is computed here, so nothing is loaded at connect time; Redis
    forgets scripts when it restarts, and the first run after that reloads.
    """

    def __init__(self, code: str) -> None:
        self.code = code
        self.sha = hashlib.sha1(code.encode()).hexdigest()

    async def run(self, client: RedisClient, keys: list[bytes], args: list[bytes]) -> ScriptReply:
        """Run the script; it must return an integer, a list of integers or nil."""
        pool = client.pool
        try:
            reply = await pool.evalsha(self.sha, keys, args)
        except asyncio_redis.ScriptKilledError:
            # Fix 5: asyncio-redis reports every error reply to EVALSHA as a
            # bare ScriptKilledError, so NOSCRIPT cannot be told apart from a
            # real failure: load and retry once; a real failure fails again.
            await pool.script_load(self.code)
            reply = await pool.evalsha(self.sha, keys, args)
        return await script_value(reply)


async def script_value(reply: asyncio_redis.replies.EvalScriptReply) -> ScriptReply:
    """Fix 7: the integer, list of integers or nil a script returned, read
    without ``return_value()``'s self-referencing closure (no cycle left)."""
    value = reply._value
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, MultiBulkReply):
        return [int(await item) for item in value]
    raise TypeError(f"a script returned {type(value).__name__}, not an integer, list or nil")


class _Protocol(asyncio_redis.RedisProtocol):
    """RedisProtocol that is only handed out once authenticated and on its db."""

    _in_pubsub: bool  # the library's: subscribed (fix 6 clears it while it reconnects)

    def __init__(
        self, *, password: bytes | None, db: int, connection_lost: Callable[[], None]
    ) -> None:
        # Fix 3: AUTH and SELECT are done by ``_handshake``, not the library: it runs
        # them in a detached task while the connection already counts as
        # connected, so the pool may send a command to db 0 before SELECT.
        super().__init__(
            encoder=BytesEncoder(),
            connection_lost_callback=connection_lost,
            # Its type checks run inspect.getcallargs on every request, about
            # a tenth of a save's latency (bench/store.py); our few call sites
            # are typed and each one is exercised by tests/test_store_redis.py.
            enable_typechecking=False,
        )
        self._auth = password
        self._db = db
        self._ready = False
        self._resubscribe = False
        self.handshake: asyncio.Task[None] | None = None
        self.lost = asyncio.Event()
        self.on_resubscribed: Callable[[], None] | None = None
        """Called each time a subscribed connection subscribed again (fix 6)."""

    @property
    def is_connected(self) -> bool:
        # What the pool checks before handing out a connection; the library's
        # own requests (AUTH, SELECT) check ``_is_connected`` and go through.
        return bool(self._is_connected and self._ready)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._ready = False
        self.lost.clear()
        # Fix 6: out of pub/sub mode until ``_handshake`` has run AUTH and
        # SELECT, or the library's detached re-run subscribes first and the
        # client side then refuses AUTH/SELECT on a subscribed connection.
        # (Still due if the last handshake failed before it subscribed.)
        self._resubscribe = self._resubscribe or self._in_pubsub
        self._in_pubsub = False
        super().connection_made(transport)
        self.handshake = asyncio.get_running_loop().create_task(self._handshake(transport))
        self.handshake.add_done_callback(_report_handshake)

    async def _handshake(self, transport: asyncio.BaseTransport) -> None:
        try:
            if self._auth:
                await self.auth(self._auth)
            if self._db:
                await self.select(self._db)
            if self._resubscribe:
                await self._subscribe_again()
        except BaseException:
            # Wrong password or db: useless connection. Dropping it lets the
            # reconnect loop try again (or ``_Connection.open`` report it).
            transport.close()
            raise
        finally:
            # ``auth``/``select`` record their argument for the library's
            # detached re-run on reconnect, which is exactly the race above.
            self.password, self.db = None, 0
        self._ready = True
        if self._resubscribe:
            self._resubscribe = False
            log.info("redis.resubscribed", channels=len(self._pubsub_channels))
            if self.on_resubscribed is not None:
                self.on_resubscribed()

    async def _subscribe_again(self) -> None:
        # What the library's re-run does, once AUTH and SELECT went through.
        # SUBSCRIBE gets no reply future (its confirmations arrive as pub/sub
        # messages), so this only writes it; Redis then answers in order.
        self._in_pubsub = True
        if self._pubsub_channels:
            await self._subscribe(self._subscription, list(self._pubsub_channels))
        if self._pubsub_patterns:
            await self._psubscribe(self._subscription, list(self._pubsub_patterns))

    def connection_lost(self, exc: Exception | None) -> None:
        self._ready = False
        super().connection_lost(exc)
        self.lost.set()

    def _push_answer(self, answer: object) -> None:
        # Fix 4: the library calls ``set_exception`` on the waiting future even when
        # its caller gave up (our deadlines cancel it); that raises inside the
        # reply reader, which dies, and no reply is ever read again on this
        # connection. An answer nobody waits for is simply dropped.
        if self._queue and self._queue[0].cancelled():
            self._queue.popleft()
            return
        super()._push_answer(answer)


def _report_handshake(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("redis.handshake_failed", error=repr(task.exception()))


class _Connection(asyncio_redis.Connection):
    """One connection that reconnects quickly and stops when closed."""

    # Fix 2: the library starts at 0.5 s and grows to 60 s. Refused connects cost
    # nothing, and every table waits on the store, so retry fast and often.
    RETRY_FIRST_S = 0.1
    RETRY_MAX_S = 2.0

    _reconnecting: asyncio.Task[None] | None

    @classmethod
    async def open(cls, host: str, port: int, *, password: bytes | None, db: int) -> _Connection:
        """Connect once, failing fast; reconnect on its own after that (fix 1).

        ``Connection.create`` would retry forever while Redis is down, which
        leaves a server that cannot start hanging instead of saying so.
        """
        self = cls()
        self.host, self.port = host, port
        self._closing = self._closed = False
        self._auto_reconnect = False  # until this first connect succeeded
        self._reconnecting = None
        self._reset_retry_interval()
        self.protocol = _Protocol(password=password, db=db, connection_lost=self._on_lost)
        try:
            await self._connect_and_handshake()
        except BaseException:
            self.close()
            raise
        self._auto_reconnect = True
        return self

    async def _connect_and_handshake(self) -> None:
        await self._connect()
        assert self.protocol.handshake is not None  # started by connection_made
        await self.protocol.handshake

    def _on_lost(self) -> None:
        # The library starts this task and drops it; we keep it, to cancel it
        # on close (its own loop never looks at ``_closing``).
        if not self._auto_reconnect or self._closing:
            return
        if self._reconnecting is not None and not self._reconnecting.done():
            return  # a failed handshake inside ``_reconnect``: it retries itself
        log.warning("redis.connection_lost", host=self.host, port=self.port)
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        while not self._closing:
            try:
                # The library's loop returns once TCP connects; a failing AUTH
                # (say, a changed password) would then loop with no backoff.
                await self._connect_and_handshake()
            except REDIS_ERRORS:
                self._increase_retry_interval()
                await asyncio.sleep(self._retry_interval)
            else:
                self._reset_retry_interval()
                log.info("redis.reconnected", host=self.host, port=self.port)
                return

    def _reset_retry_interval(self) -> None:
        self._retry_interval = self.RETRY_FIRST_S

    def _increase_retry_interval(self) -> None:
        self._retry_interval = min(self.RETRY_MAX_S, 1.5 * self._retry_interval)

    def close(self) -> None:
        super().close()
        if self._reconnecting is not None:
            self._reconnecting.cancel()

    async def wait_closed(self) -> None:
        """After ``close()``: until the socket is gone and the reconnect loop ended."""
        # Bounded: closing must not hang on a peer that never finishes the close.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                if self.protocol.transport is not None:
                    await self.protocol.lost.wait()
                if self._reconnecting is not None:
                    with contextlib.suppress(asyncio.CancelledError):
                        await self._reconnecting


class _Pool(asyncio_redis.Pool):
    """The library's pool (it picks a free, connected connection per request),
    filled with ``_Connection``s instead of its own."""

    @classmethod
    async def open(
        cls, host: str, port: int, *, password: bytes | None, db: int, size: int
    ) -> _Pool:
        connections: list[_Connection] = []
        try:
            # One at a time, so that on failure (or our deadline) we hold
            # every connection made so far and can close it.
            for _ in range(size):
                connections.append(await _Connection.open(host, port, password=password, db=db))
        except BaseException:
            for connection in connections:
                connection.close()
            raise
        pool = cls()
        pool._host, pool._port, pool._poolsize = host, port, size
        pool._connections = connections
        return pool

    async def aclose(self) -> None:
        connections = list(self._connections)
        self.close()
        await asyncio.gather(*(c.wait_closed() for c in connections))


class RedisClient:
    """The typed door to asyncio-redis: the few calls the store makes."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool

    @classmethod
    async def open(
        cls, host: str, port: int, *, password: bytes | None, db: int, size: int
    ) -> RedisClient:
        return cls(await _Pool.open(host, port, password=password, db=db, size=size))

    async def hmget(self, key: bytes, fields: list[bytes]) -> list[bytes | None]:
        return list(await self.pool.hmget_aslist(key, fields))

    async def smembers(self, key: bytes) -> set[bytes]:
        return set(await self.pool.smembers_asset(key))

    async def lrange(self, key: bytes, start: int, stop: int) -> list[bytes]:
        return list(await self.pool.lrange_aslist(key, start, stop))

    # -- what the player and daily stores call (server/store/redis_players.py,
    # server/daily/redis_board.py)

    async def get(self, key: bytes) -> bytes | None:
        value: bytes | None = await self.pool.get(key)
        return value

    async def set_if_absent(self, key: bytes, value: bytes) -> None:
        await self.pool.set(key, value, only_if_not_exists=True)

    async def exists(self, key: bytes) -> bool:
        return bool(await self.pool.exists(key))

    async def hget(self, key: bytes, field: bytes) -> bytes | None:
        value: bytes | None = await self.pool.hget(key, field)
        return value

    async def hsetnx(self, key: bytes, field: bytes, value: bytes) -> bool:
        return bool(await self.pool.hsetnx(key, field, value))

    async def hgetall(self, key: bytes) -> dict[bytes, bytes]:
        return dict(await self.pool.hgetall_asdict(key))

    async def hlen(self, key: bytes) -> int:
        return int(await self.pool.hlen(key))

    async def zrevrange(self, key: bytes, start: int, stop: int) -> dict[bytes, float]:
        """Members from rank ``start`` to ``stop`` (highest first) and their scores."""
        reply = await self.pool.zrevrange(key, start, stop)
        return {bytes(k): float(v) for k, v in (await reply.asdict()).items()}

    async def zrangebyscore_upto(
        self, key: bytes, score: float, limit: int, offset: int = 0
    ) -> list[bytes]:
        """At most ``limit`` members with a score up to ``score``, lowest first,
        after skipping ``offset`` of them."""
        reply = await self.pool.zrangebyscore(
            key,
            asyncio_redis.ZScoreBoundary("-inf"),
            asyncio_redis.ZScoreBoundary(float(score)),
            offset=offset,
            limit=limit,
        )
        # asdict keeps the order (a dict keeps insertion order).
        return [bytes(k) for k in await reply.asdict()]

    async def zcard(self, key: bytes) -> int:
        return int(await self.pool.zcard(key))

    async def zscore(self, key: bytes, member: bytes) -> float | None:
        score = await self.pool.zscore(key, member)
        return None if score is None else float(score)

    async def zcount_above(self, key: bytes, score: float) -> int:
        """Members with a score strictly above ``score``."""
        above = asyncio_redis.ZScoreBoundary(score, exclude_boundary=True)
        return int(await self.pool.zcount(key, above, asyncio_redis.ZScoreBoundary("+inf")))

    # -- pub/sub (server/cluster/bus.py): one connection publishes, in order,
    # another one subscribes (a subscribed connection can do nothing else)

    async def publish(self, channel: bytes, message: bytes) -> int:
        """Publish; how many subscribers received it (0: nobody listens there)."""
        return int(await self.pool.publish(channel, message))

    async def subscribe(self, channels: list[bytes]) -> Subscription:
        """Turn this client (a pool of one) into a subscriber of ``channels``.

        It subscribes again by itself after a reconnect, once authenticated
        and on its db (fix 6); ``Subscription.on_resubscribed`` says when.
        """
        subscription = await self.pool.start_subscribe()
        await subscription.subscribe(channels)
        (connection,) = self.pool._connections
        return Subscription(subscription, connection.protocol)

    async def ping(self) -> bool:
        reply = await self.pool.ping()
        return bool(reply.status == "PONG")

    async def aclose(self) -> None:
        await self.pool.aclose()


class Subscription:
    """What a subscribed client receives: ``(channel, message)`` pairs, in order.

    In order, but with gaps: what is published while the connection is down
    never arrives. ``on_resubscribed`` (set it to a callable) is called each
    time the connection is back and subscribed again, so that its owner can
    catch up on what it may have missed.
    """

    def __init__(self, subscription: asyncio_redis.Subscription, protocol: _Protocol) -> None:
        self._subscription = subscription
        self._protocol = protocol

    @property
    def on_resubscribed(self) -> Callable[[], None] | None:
        return self._protocol.on_resubscribed

    @on_resubscribed.setter
    def on_resubscribed(self, callback: Callable[[], None] | None) -> None:
        self._protocol.on_resubscribed = callback

    @property
    def subscribed(self) -> bool:
        """Connected and subscribed (False while it reconnects: messages are lost)."""
        return self._protocol.is_connected and self._protocol.in_pubsub

    async def next(self) -> tuple[bytes, bytes]:
        reply = await self._subscription.next_published()
        return bytes(reply.channel), bytes(reply.value)

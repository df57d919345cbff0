"""The Redis ``TableStore``: table state that survives a server restart.

Owns the key layout, the Lua scripts that keep writes atomic, and the
connection to Redis (through asyncio-redis, with the fixes below).

Key layout, all under ``atout:``:

- ``atout:table:{id}``   hash ``{v: version, blob: state}``
- ``atout:records:{id}`` list of deal records, oldest first
- ``atout:open``         set of open table ids: the lobby index

Every write sets both per-table keys to expire ``expire_s`` after it, so a
table nobody has played at for that long disappears by itself, open or not.
The lobby index is cleaned of such tables lazily, by ``open_tables()``.

Errors: anything Redis or the network does wrong surfaces as ``StoreError``
(retry with backoff); ``StaleWrite`` means the caller is stale and must stop.

asyncio-redis 0.16 predates Python 3.11 but runs on it: it uses no removed
asyncio API (its ``loop=`` parameters are only deprecated, and we never pass
them). What does bite a long-lived server are bugs of its own, fixed by the
small ``_Protocol``/``_Connection``/``_Pool`` shim in this module, each at the
place it applies:

- the first connect retries forever if Redis is down, and the reconnect loop
  survives ``close()``;
- reconnect backoff grows to 60 s, so a short Redis restart could stall every
  table for up to a minute;
- AUTH and SELECT run in a detached task after the connection is already
  handed out, so a command can reach db 0 before SELECT;
- an error reply for a request whose caller gave up (our timeouts) kills the
  reply reader, and the connection never answers again;
- EVALSHA turns every error reply (NOSCRIPT included) into a bare
  ``ScriptKilledError``, and decoding a script's list reply is broken for
  strings, so our scripts return integers or nil only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import unquote, urlsplit

import asyncio_redis
import structlog
from asyncio_redis.encoders import BytesEncoder

from server.store.base import StaleWrite, StoreError

log = structlog.get_logger(__name__)

PREFIX = b"atout:"
TABLE = PREFIX + b"table:"
RECORDS = PREFIX + b"records:"
OPEN = PREFIX + b"open"

SAVE_BATCH = 200
"""Most saves in one request: a script blocks Redis while it runs (~10 µs a table)."""

# What the library raises, plus OSError, which covers ConnectionError and the
# TimeoutError of our own deadlines.
_REDIS_ERRORS = (asyncio_redis.Error, asyncio_redis.ErrorReply, OSError)


# --- Lua scripts --------------------------------------------------------------

# Saves tables (one or many: a group commit, see ``RedisStore.save``) unless
# a newer version is stored. Returns 0 when all were saved, else per table in
# order 0 when saved or the newer stored version that refused it.
_SAVE = """
-- KEYS: the open set, then per table: its hash, its records list
-- ARGV: ttl in ms, then per table: version, blob, "1" if open else "0", id
local out, stale = {}, 0
for i = 1, (#KEYS - 1) / 2 do
  local hash, records, a = KEYS[2 * i], KEYS[2 * i + 1], 4 * i - 2
  local stored = redis.call('HGET', hash, 'v')
  if stored and tonumber(stored) > tonumber(ARGV[a]) then
    out[i] = tonumber(stored)
    stale = stale + 1
  else
    redis.call('HSET', hash, 'v', ARGV[a], 'blob', ARGV[a + 1])
    redis.call('PEXPIRE', hash, ARGV[1])
    redis.call('PEXPIRE', records, ARGV[1])
    if ARGV[a + 2] == '1' then
      redis.call('SADD', KEYS[1], ARGV[a + 3])
    else
      redis.call('SREM', KEYS[1], ARGV[a + 3])
    end
    out[i] = 0
  end
end
if stale == 0 then
  return 0 -- the usual answer, and one integer is far cheaper to read than a list
end
return out
"""

_APPEND_RECORD = """
-- KEYS: records list.  ARGV: record, ttl in ms
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return false
"""

_DELETE = """
-- KEYS: table hash, records list, open set.  ARGV: table id
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
return false
"""

# Touches keys it was not given in KEYS (the tables named by the set), which
# only a Redis Cluster would mind; Atout runs one Redis.
_PRUNE_OPEN = """
-- KEYS: open set.  ARGV: table key prefix.  Returns how many ids were dropped.
local dropped = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then
    redis.call('SREM', KEYS[1], id)
    dropped = dropped + 1
  end
end
return dropped
"""


class Script:
    """A Lua script run with EVALSHA, loaded when Redis does not know it.

    The digest is computed here, so nothing is loaded at connect time; Redis
    forgets scripts when it restarts, and the first run after that reloads.
    """

    def __init__(self, code: str) -> None:
        self.code = code
        self.sha = hashlib.sha1(code.encode()).hexdigest()

    async def run(self, pool: _Pool, keys: list[bytes], args: list[bytes]) -> Any:
        try:
            reply = await pool.evalsha(self.sha, keys, args)
        except asyncio_redis.ScriptKilledError:
            # asyncio-redis reports every error reply to EVALSHA as a bare
            # ScriptKilledError, so NOSCRIPT cannot be told apart from a real
            # failure: load and retry once; a real failure fails again.
            await pool.script_load(self.code)
            reply = await pool.evalsha(self.sha, keys, args)
        return await reply.return_value()


# --- asyncio-redis shim ---------------------------------------------------------


class _Protocol(asyncio_redis.RedisProtocol):
    """RedisProtocol that is only handed out once authenticated and on its db."""

    def __init__(
        self, *, password: bytes | None, db: int, connection_lost: Callable[[], None]
    ) -> None:
        # AUTH and SELECT are done by ``_handshake``, not the library: it runs
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
        self.handshake: asyncio.Task[None] | None = None
        self.lost = asyncio.Event()

    @property
    def is_connected(self) -> bool:
        # What the pool checks before handing out a connection; the library's
        # own requests (AUTH, SELECT) check ``_is_connected`` and go through.
        return bool(self._is_connected and self._ready)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._ready = False
        self.lost.clear()
        super().connection_made(transport)
        self.handshake = asyncio.get_running_loop().create_task(self._handshake(transport))
        self.handshake.add_done_callback(_report_handshake)

    async def _handshake(self, transport: asyncio.BaseTransport) -> None:
        try:
            if self._auth:
                await self.auth(self._auth)
            if self._db:
                await self.select(self._db)
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

    def connection_lost(self, exc: Exception | None) -> None:
        self._ready = False
        super().connection_lost(exc)
        self.lost.set()

    def _push_answer(self, answer: object) -> None:
        # The library calls ``set_exception`` on the waiting future even when
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

    # The library starts at 0.5 s and grows to 60 s. Refused connects cost
    # nothing, and every table waits on the store, so retry fast and often.
    RETRY_FIRST_S = 0.1
    RETRY_MAX_S = 2.0

    @classmethod
    async def open(cls, host: str, port: int, *, password: bytes | None, db: int) -> _Connection:
        """Connect once, failing fast; reconnect on its own after that.

        ``Connection.create`` would retry forever while Redis is down, which
        leaves a server that cannot start hanging instead of saying so.
        """
        self = cls()
        self.host, self.port = host, port
        self._closing = self._closed = False
        self._auto_reconnect = False  # until this first connect succeeded
        self._reconnecting: asyncio.Task[None] | None = None
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
            except _REDIS_ERRORS:
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


# --- the store ------------------------------------------------------------------


def parse_url(url: str) -> tuple[str, int, int, bytes | None]:
    """``redis://[:password@]host[:port][/db]`` -> ``(host, port, db, password)``."""
    parts = urlsplit(url)
    if parts.scheme != "redis":
        raise ValueError(f"not a redis:// URL: {parts.scheme}://...")
    if parts.username:
        # asyncio-redis sends the one-argument AUTH only (no ACL users).
        raise ValueError("redis URL: a user name is not supported, only :password@")
    path = parts.path.strip("/")
    try:
        db = int(path) if path else 0
    except ValueError:
        raise ValueError(f"redis URL: the path must be a db number, not {path!r}") from None
    password = unquote(parts.password).encode() if parts.password else None
    return parts.hostname or "localhost", parts.port or 6379, db, password


class RedisStore:
    """Tables kept in Redis; see the module docstring for the layout.

    Get one with ``await RedisStore.connect(url)``. Every request has a
    deadline (``timeout_s``) so a Redis that hangs fails like one that is down.
    """

    _save = Script(_SAVE)
    _append_record = Script(_APPEND_RECORD)
    _delete = Script(_DELETE)
    _prune_open = Script(_PRUNE_OPEN)

    def __init__(
        self, pool: _Pool, *, expire_s: float, timeout_s: float, save_interval_s: float = 0.0
    ) -> None:
        if expire_s <= 0:
            raise ValueError("expire_s must be positive")
        self._pool = pool
        self._ttl_ms = str(max(1, round(expire_s * 1000))).encode()
        self._timeout_s = timeout_s
        self._save_interval_s = save_interval_s
        self._pending: list[tuple[bytes, int, bytes, bool, asyncio.Future[int]]] = []
        self._saver: asyncio.Task[None] | None = None
        self._last_request = 0.0  # loop time the last save request was sent

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        expire_s: float = 86400,
        timeout_s: float = 5.0,
        save_interval_s: float = 0.0,
        poolsize: int = 2,
    ) -> RedisStore:
        """Connect to ``redis://[:password@]host[:port][/db]``.

        Raises ``StoreError`` if Redis cannot be reached within ``timeout_s``
        (the caller decides whether to retry); once connected, the store
        reconnects on its own after an outage.
        """
        host, port, db, password = parse_url(url)
        try:
            async with asyncio.timeout(timeout_s):
                pool = await _Pool.open(host, port, password=password, db=db, size=poolsize)
        except _REDIS_ERRORS as exc:
            raise StoreError(f"cannot connect to redis at {host}:{port}/{db}: {exc!r}") from exc
        return cls(pool, expire_s=expire_s, timeout_s=timeout_s, save_interval_s=save_interval_s)

    @property
    def pool(self) -> _Pool:
        """The connection pool, shared by the other Redis stores (players, daily)."""
        return self._pool

    def request(self, what: str) -> contextlib.AbstractAsyncContextManager[None]:
        """A request with this store's deadline; Redis errors become ``StoreError``."""
        return self._request(what)

    @contextlib.asynccontextmanager
    async def _request(self, what: str) -> AsyncIterator[None]:
        try:
            async with asyncio.timeout(self._timeout_s):
                yield
        except _REDIS_ERRORS as exc:
            raise StoreError(f"redis {what}: {exc!r}") from exc

    async def save(self, table_id: str, version: int, blob: bytes, *, open_: bool = True) -> None:
        # Group commit: at most one save request every ``save_interval_s``;
        # saves asked for meanwhile (or while a request is on its way) go
        # together in the next one, one script run for all of them. A request
        # costs the client library and the kernel far more than Redis spends
        # per table (docs/LOAD.md), so a busy server spends much less CPU,
        # while a save after a quiet spell still goes at once. Each caller
        # returns only once its own state is stored.
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._pending.append((table_id.encode(), version, blob, open_, done))
        if self._saver is None or self._saver.done():
            self._saver = loop.create_task(self._save_pending())
        stored = await done
        if stored:
            raise StaleWrite(table_id, version, stored)

    async def _save_pending(self) -> None:
        batch: list[tuple[bytes, int, bytes, bool, asyncio.Future[int]]] = []
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                wait = self._last_request + self._save_interval_s - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._last_request = loop.time()
                batch = self._pending[:SAVE_BATCH]
                del self._pending[:SAVE_BATCH]
                keys = [OPEN]
                args = [self._ttl_ms]
                for tid, version, blob, open_, _ in batch:
                    keys += (TABLE + tid, RECORDS + tid)
                    args += (str(int(version)).encode(), blob, b"1" if open_ else b"0", tid)
                try:
                    async with self._request("save"):
                        stored = await self._save.run(self._pool, keys, args)
                    if stored == 0:
                        stored = [0] * len(batch)
                    elif len(stored) != len(batch):
                        raise StoreError(f"redis save: {len(stored)} replies for {len(batch)}")
                except StoreError as exc:
                    for *_, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                for (*_, done), one in zip(batch, stored, strict=True):
                    if not done.done():  # its caller may have given up
                        done.set_result(int(one))
        finally:
            # Normally every future here is already done; if this task was
            # cancelled (the store closes), nobody may wait forever.
            for *_, done in batch + self._pending:
                if not done.done():
                    done.set_exception(StoreError("redis save: the store closed"))
            self._pending.clear()

    async def load(self, table_id: str) -> tuple[int, bytes] | None:
        async with self._request("load"):
            version, blob = await self._pool.hmget_aslist(
                TABLE + table_id.encode(), [b"v", b"blob"]
            )
        if version is None or blob is None:
            return None
        return int(version), blob

    async def open_tables(self) -> list[str]:
        async with self._request("open_tables"):
            await self._prune_open.run(self._pool, [OPEN], [TABLE])
            ids = await self._pool.smembers_asset(OPEN)
        return sorted(i.decode() for i in ids)

    async def delete(self, table_id: str) -> None:
        tid = table_id.encode()
        async with self._request("delete"):
            await self._delete.run(self._pool, [TABLE + tid, RECORDS + tid, OPEN], [tid])

    async def append_record(self, table_id: str, record: bytes) -> None:
        async with self._request("append_record"):
            await self._append_record.run(
                self._pool, [RECORDS + table_id.encode()], [record, self._ttl_ms]
            )

    async def records(self, table_id: str) -> list[bytes]:
        async with self._request("records"):
            return list(await self._pool.lrange_aslist(RECORDS + table_id.encode(), 0, -1))

    async def healthy(self) -> bool:
        try:
            async with self._request("ping"):
                reply = await self._pool.ping()
        except StoreError:
            return False
        return bool(reply.status == "PONG")

    async def close(self) -> None:
        await self._pool.aclose()
        if self._saver is not None:
            self._saver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._saver

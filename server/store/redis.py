"""The Redis ``TableStore``: table state that survives a server restart.

Owns the key layout, the Lua scripts that keep writes atomic, and the
connection to Redis (through asyncio-redis, with the fixes below).

Key layout, all under ``atout:`` (or a namespace's ``atout:ns:{namespace}:``,
server/store/redis_keys.py, which names every key and channel of a service):

- ``atout:table:{id}``   hash ``{v: version, blob: state, e: owner epoch,
  w: epoch of the owner that last wrote v and blob (a save without an epoch
  leaves it; none: ``e``), r:{key}: 1}``: the ``r:``
  fields name the deal records already appended (``append_record``); ``e``
  fences out older owners (server/cluster/lease.py)
- ``atout:records:{id}`` list of deal records, oldest first
- ``atout:open``         set of open table ids: the lobby index
- ``atout:lease:{id}``   the owning process's id, expiring ``lease`` after its
  last renewal (server/cluster/lease.py)
- ``atout:leases``       sorted set: table id -> when its lease expires (ms,
  Redis's clock), kept by the lease scripts; it only narrows the orphan scan
  to the leases that lapsed, the lease key stays the truth

Every write sets both per-table keys to expire ``expire_s`` after it, so a
table nobody has played at for that long disappears by itself, open or not.
The lobby index is cleaned of such tables lazily, by ``open_tables()``.

Errors: anything Redis or the network does wrong surfaces as ``StoreError``
(retry with backoff); ``StaleWrite`` means the caller is stale and must stop.

The client library's own bugs are worked around in
``server.store.asyncio_redis_fixes``, which is also the one typed door to it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import unquote, urlsplit

import msgspec

from server.store.asyncio_redis_fixes import REDIS_ERRORS, RedisClient, Script
from server.store.base import StaleWrite, StoreError
from server.store.redis_keys import Keys

PRUNE_STEP = b"500"
"""Open tables looked at per step of dropping the ones gone (an ``SSCAN`` hint)."""
SAVE_BATCH = 200
"""Most saves in one request: a script blocks Redis while it runs (~10 µs a table)."""

Row = tuple[str, int, msgspec.Raw, bool, int]
"""A save in a group commit's request: id, version, blob, open, epoch (``_SAVE``)."""

encode_rows = msgspec.msgpack.Encoder().encode
"""Many tables' arguments as one argument of a script, which reads it with
cmsgpack (here the saves' ``Row``s, server/cluster/lease.py a renewal's):
asyncio-redis builds each argument of a request in Python."""


def as_lua_string(blob: bytes) -> msgspec.Raw:
    """``blob`` encoded as a MessagePack string, not as binary: the MessagePack
    of Redis's scripts (cmsgpack) reads no binary type, and a Lua string holds
    any bytes (it checks no UTF-8)."""
    n = len(blob)
    if n < 0x20:
        head = bytes((0xA0 | n,))
    elif n < 0x100:
        head = bytes((0xD9, n))
    elif n < 0x10000:
        head = b"\xda" + n.to_bytes(2, "big")
    else:
        head = b"\xdb" + n.to_bytes(4, "big")
    return msgspec.Raw(head + blob)


# --- Lua scripts --------------------------------------------------------------

# Saves tables (one or many: a group commit, see ``RedisStore.save``) unless
# a newer version is stored, or a newer owner claimed the table (its epoch,
# field ``e``, is above the saver's: server/cluster/lease.py). Returns 0 when
# all were saved, else per table in order 0 when saved, the newer stored
# version that refused it, or minus the newer epoch that did.
#
# An owner's save (epoch above 0) of an open table whose lease is missing
# sets the lease again: Redis restarted without its data, and this save puts
# the table back in the open set, where another process's orphan scan would
# find it unleased and take it from its live owner. Nobody else claimed it
# since (a claim raises the epoch): it is still ours.
#
# A saver whose epoch is above the stored one is the newest owner Redis can
# know of (Redis lost its data since its claim: normally the stored epoch is
# the current owner's). It writes its epoch back and takes the lease, fencing
# out the older owner that may hold it (a paused one that woke up first:
# whoever sets a lease writes its epoch with it, so its holder is older).
# Versions are compared only with a state written at the saver's epoch or a
# later one (``w``): one an older owner wrote is replaced whatever its
# version (after a data loss, an older owner that woke first may have played
# further on its stale state than the newer one on the real one). A save
# without an epoch (0) leaves ``w`` as it was: were it 0, the owner's next
# save would skip the version check, and an older version of it would pass.
_SAVE = """
-- KEYS: the open set, the leases set
-- ARGV: ttl in ms, the saver's process id, lease in ms ("0": none), the key
-- prefixes of a table's hash, records list and lease, then the tables: one
-- MessagePack array of [id, version, blob, open, epoch] (``Row``). One
-- argument for them all rather than eight a table: asyncio-redis builds each
-- argument of a request in Python, which was most of a save's cost to the
-- server (docs/LOAD.md). Their keys are made here from the prefixes, like
-- _PRUNE_OPEN's (one Redis, no cluster: see there).
local out, stale, now = {}, 0, nil
local rows = cmsgpack.unpack(ARGV[7])
for i, row in ipairs(rows) do
  local id, version, blob, open, epoch = row[1], row[2], row[3], row[4], row[5]
  local hash, records, lease = ARGV[4] .. id, ARGV[5] .. id, ARGV[6] .. id
  local found = redis.call('HMGET', hash, 'e', 'v', 'w')
  local owner = tonumber(found[1] or '0')
  local stored = found[2]
  local writer = tonumber(found[3] or found[1] or '0')
  if epoch > 0 and owner > epoch then
    out[i] = -owner
    stale = stale + 1
  elseif stored and tonumber(stored) > version and epoch <= writer then
    out[i] = tonumber(stored)
    stale = stale + 1
  else
    if epoch > 0 then
      redis.call('HSET', hash, 'v', version, 'blob', blob, 'w', epoch)
    else
      -- No owner (a tool, a lone server): the writer's epoch stays the one
      -- before, so its owner's saves are still fenced by this version.
      redis.call('HSET', hash, 'v', version, 'blob', blob)
    end
    if epoch > owner then
      -- A Redis that lost its data comes back fenced by the saver's epoch.
      redis.call('HSET', hash, 'e', epoch)
    end
    redis.call('PEXPIRE', hash, ARGV[1])
    redis.call('PEXPIRE', records, ARGV[1])
    if open then
      redis.call('SADD', KEYS[1], id)
      if epoch > 0 and ARGV[3] ~= '0'
          and (epoch > owner or redis.call('EXISTS', lease) == 0) then
        if not now then
          local t = redis.call('TIME')
          now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        end
        redis.call('SET', lease, ARGV[2], 'PX', ARGV[3])
        redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), id)
      end
    else
      redis.call('SREM', KEYS[1], id)
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
-- KEYS: records list, table hash.  ARGV: record, ttl in ms, record key, epoch
-- Once per key: the table's hash notes the keys it holds records of (it
-- lives and expires with the table, and a delete drops both). An older
-- owner's record is dropped (its next save is refused).
local epoch = tonumber(ARGV[4])
if epoch > 0 and tonumber(redis.call('HGET', KEYS[2], 'e') or '0') > epoch then
  return false
end
if redis.call('HSETNX', KEYS[2], 'r:' .. ARGV[3], '1') == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return false
"""

_DELETE = """
-- KEYS: table hash, records list, open set, leases set.  ARGV: table id
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return false
"""

# Touches keys it was not given in KEYS (the tables named by the set), which
# only a Redis Cluster would mind; Atout runs one Redis.
_PRUNE_OPEN = """
-- KEYS: open set.  ARGV: table key prefix, SSCAN cursor, count.  One SSCAN
-- step over the set: the ids whose table is gone (expired) leave it. SSCAN
-- returns every id present for the whole walk. Returns the next cursor.
local step = redis.call('SSCAN', KEYS[1], ARGV[2], 'COUNT', ARGV[3])
for _, id in ipairs(step[2]) do
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then
    redis.call('SREM', KEYS[1], id)
  end
end
return tonumber(step[1])
"""


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
        self,
        pool: RedisClient,
        *,
        expire_s: float,
        timeout_s: float,
        save_interval_s: float = 0.0,
        keys: Keys | None = None,
    ) -> None:
        if expire_s <= 0:
            raise ValueError("expire_s must be positive")
        self._pool = pool
        self.keys = keys or Keys()
        """This service's names (its database and namespace), for every Redis store."""
        self._ttl_ms = str(max(1, round(expire_s * 1000))).encode()
        self._timeout_s = timeout_s
        self._save_interval_s = save_interval_s
        self._pending: list[Row] = []
        self._waiting: list[asyncio.Future[int]] = []
        """Each pending save's caller, in ``_pending``'s order."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop the saves run on, kept: on Python 3.11 each
        ``get_running_loop()`` is a ``getpid`` system call, once a move here."""
        self._saver: asyncio.Task[None] | None = None
        self._last_request = 0.0  # loop time the last save request was sent
        self._owner = [b"", b"0"]  # the process id and lease (ms) of ``lease_as``

    def lease_as(self, proc: bytes, lease_ms: bytes) -> None:
        """Saves with an owner epoch are this process's (``proc``, holding
        ``lease_ms`` leases): one that finds its table's lease gone sets it
        again (see ``_SAVE``)."""
        self._owner = [proc, lease_ms]

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        expire_s: float = 86400,
        timeout_s: float = 5.0,
        save_interval_s: float = 0.0,
        poolsize: int = 2,
        namespace: str = "",
    ) -> RedisStore:
        """Connect to ``redis://[:password@]host[:port][/db]``, as the service
        of that database and ``namespace`` ("": the database alone).

        Raises ``StoreError`` if Redis cannot be reached within ``timeout_s``
        (the caller decides whether to retry); once connected, the store
        reconnects on its own after an outage.
        """
        host, port, db, password = parse_url(url)
        keys = Keys(db, namespace)
        try:
            async with asyncio.timeout(timeout_s):
                pool = await RedisClient.open(host, port, password=password, db=db, size=poolsize)
        except REDIS_ERRORS as exc:
            raise StoreError(f"cannot connect to redis at {host}:{port}/{db}: {exc!r}") from exc
        return cls(
            pool, expire_s=expire_s, timeout_s=timeout_s, save_interval_s=save_interval_s, keys=keys
        )

    @property
    def pool(self) -> RedisClient:
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
        except REDIS_ERRORS as exc:
            raise StoreError(f"redis {what}: {exc!r}") from exc

    async def save(
        self, table_id: str, version: int, blob: bytes, *, open_: bool = True, epoch: int = 0
    ) -> None:
        # Group commit: at most one save request every ``save_interval_s``;
        # saves asked for meanwhile (or while a request is on its way) go
        # together in the next one, one script run for all of them. A request
        # costs the client library and the kernel far more than Redis spends
        # per table (docs/LOAD.md), so a busy server spends much less CPU,
        # while a save after a quiet spell still goes at once. Each caller
        # returns only once its own state is stored.
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._pending.append((table_id, version, as_lua_string(blob), open_, epoch))
        self._waiting.append(done)
        if self._saver is None or self._saver.done():
            self._saver = loop.create_task(self._save_pending())
        stored = await done
        if stored > 0:
            raise StaleWrite(table_id, version, stored)
        if stored < 0:
            raise StaleWrite(table_id, version, 0, epoch=-stored)

    async def settled(self) -> None:
        """Return once every save asked for so far has had its answer (stored
        or refused): none is on its way to Redis any more."""
        while self._saver is not None and not self._saver.done():
            await asyncio.wait([self._saver])

    async def _save_pending(self) -> None:
        waiting: list[asyncio.Future[int]] = []
        loop = asyncio.get_running_loop()
        k = self.keys
        keys = [k.open, k.leases]
        try:
            while self._pending:
                wait = self._last_request + self._save_interval_s - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._last_request = loop.time()
                rows = self._pending[:SAVE_BATCH]
                waiting = self._waiting[:SAVE_BATCH]
                del self._pending[:SAVE_BATCH], self._waiting[:SAVE_BATCH]
                args = [self._ttl_ms, *self._owner, k.table, k.records, k.lease, encode_rows(rows)]
                try:
                    async with self._request("save"):
                        reply = await self._save.run(self._pool, keys, args)
                    if reply == 0:
                        stored = [0] * len(rows)
                    elif isinstance(reply, list) and len(reply) == len(rows):
                        stored = reply
                    else:
                        raise StoreError(f"redis save: {reply!r} for {len(rows)} saves")
                except StoreError as exc:
                    for done in waiting:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                for done, one in zip(waiting, stored, strict=True):
                    if not done.done():  # its caller may have given up
                        done.set_result(int(one))
        finally:
            # Normally every future here is already done; if this task was
            # cancelled (the store closes), nobody may wait forever.
            for done in waiting + self._waiting:
                if not done.done():
                    done.set_exception(StoreError("redis save: the store closed"))
            self._pending.clear()
            self._waiting.clear()

    async def load(self, table_id: str) -> tuple[int, bytes] | None:
        async with self._request("load"):
            version, blob = await self._pool.hmget(
                self.keys.table + table_id.encode(), [b"v", b"blob"]
            )
        if version is None or blob is None:
            return None
        return int(version), blob

    async def open_tables(self) -> list[str]:
        async with self._request("open_tables"):
            # A step of the pruning at a time: one script over 10,000 open
            # tables blocked Redis (every process's saves) for about 40 ms.
            cursor: object = 0
            while True:
                cursor = await self._prune_open.run(
                    self._pool,
                    [self.keys.open],
                    [self.keys.table, str(cursor).encode(), PRUNE_STEP],
                )
                if not cursor:
                    break
            ids = await self._pool.smembers(self.keys.open)
        return sorted(i.decode() for i in ids)

    async def delete(self, table_id: str) -> None:
        tid, k = table_id.encode(), self.keys
        async with self._request("delete"):
            await self._delete.run(
                self._pool, [k.table + tid, k.records + tid, k.open, k.leases], [tid]
            )

    async def append_record(
        self, table_id: str, record: bytes, key: str, *, epoch: int = 0
    ) -> None:
        tid = table_id.encode()
        async with self._request("append_record"):
            await self._append_record.run(
                self._pool,
                [self.keys.records + tid, self.keys.table + tid],
                [record, self._ttl_ms, key.encode(), str(int(epoch)).encode()],
            )

    async def records(self, table_id: str) -> list[bytes]:
        async with self._request("records"):
            return await self._pool.lrange(self.keys.records + table_id.encode(), 0, -1)

    async def healthy(self) -> bool:
        try:
            async with self._request("ping"):
                return await self._pool.ping()
        except StoreError:
            return False

    async def close(self) -> None:
        await self._pool.aclose()
        if self._saver is not None:
            self._saver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._saver

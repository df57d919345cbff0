"""Table leases and owner epochs: exactly one process runs a table.

``atout:lease:{table}`` holds the owner's process id and expires ``lease``
after its last renewal. Claiming a table bumps its owner epoch, the field
``e`` of the table's hash; every save and deal record carries the saver's
epoch and Redis refuses one from an older owner (server/store/redis.py). So
a process that was paused past its lease and wakes up cannot write: its next
save is refused (``StaleWrite``) or its next renewal reports the table lost,
whichever comes first, and it steps down.

``atout:leases`` (table id -> expiry in ms, Redis's clock) follows every
claim, renewal and release, so the orphan scan reads only the leases that
lapsed (``lapsed``) instead of every open table; it is checked against the
lease keys, which stay the truth. Tables it does not know (saved before
leases existed, held by a process of a version before it, or whose lease
vanished with Redis's data) are found by the rarer full pass (``orphans``
over every open table), which enters those that are held in the set.

Key names are those of the service (``store.keys``, server/store/redis_keys.py:
above, a service without a namespace); the scripts that reach a key they
were not given build its name from a prefix passed to them.

Scripts take the time from Redis (``TIME``), never from a process: the
processes' clocks need not agree. They return integers only (asyncio-redis
decodes nothing else reliably, server/store/asyncio_redis_fixes.py fix 5).
"""

from __future__ import annotations

import asyncio

from server.store.asyncio_redis_fixes import Script
from server.store.base import StoreError
from server.store.redis import RedisStore, encode_rows

RENEW_BATCH = 500
"""Most leases renewed by one script run: a script blocks Redis while it runs."""
ORPHANS_BATCH = 500
"""Most tables looked at by one run of the orphan script: the full pass gives
every open table, and 10,000 in one run blocked Redis (every process's
saves) for about 90 ms."""
FREE_STEP = 500
"""Leases looked at per step of freeing a dead process's (a ``ZSCAN`` hint)."""

_NOW_MS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

_CLAIM = (
    """
-- KEYS: lease, table hash, leases set.  ARGV: process id, lease ms, table
-- expiry ms, "1" for a table that must already be stored (a takeover, not a
-- creation), table id.
-- Returns the new owner epoch, or 0 when another process holds the lease
-- (or there is no such table to take over).
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return 0
end
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[2], 'v') == 0 then
  return 0
end
"""
    + _NOW_MS
    + """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[5])
local epoch = tonumber(redis.call('HGET', KEYS[2], 'e') or '0')
if holder and epoch > 0 then
  return epoch -- already ours: the same owner, the same epoch
end
epoch = redis.call('HINCRBY', KEYS[2], 'e', 1)
if redis.call('PTTL', KEYS[2]) < 0 then
  -- A new table's hash: it expires like a saved one until its first save.
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return epoch
"""
)

_RENEW = (
    """
-- KEYS: the leases set.  ARGV: process id, lease ms, table expiry ms, the key
-- prefixes of a table's lease and hash, then the tables: one MessagePack
-- array of [id, our epoch] (one argument, not four a table: asyncio-redis
-- builds each argument in Python; the save script's way, server/store/redis.py).
-- Returns 0 when every lease is renewed, else the 1-based positions of the
-- tables lost.
-- A lease that lapsed while nobody claimed the table (we were slow, or Redis
-- lost its data) is taken again: no other owner exists as long as the epoch
-- is still ours. A stored epoch below ours means Redis lost its data since our
-- claim: we are the newest owner it can know of, so we write our epoch back
-- and take the lease even from another process, which can only be an older
-- owner that woke up first (whoever sets a lease writes its epoch with it).
"""
    + _NOW_MS
    + """
local lost, expiry = {}, now + tonumber(ARGV[2])
for i, row in ipairs(cmsgpack.unpack(ARGV[6])) do
  local id, ours = row[1], row[2]
  local lease, hash = ARGV[4] .. id, ARGV[5] .. id
  local holder = redis.call('GET', lease)
  local epoch = tonumber(redis.call('HGET', hash, 'e') or '0')
  if epoch < ours or (epoch == ours and (not holder or holder == ARGV[1])) then
    if epoch < ours then
      redis.call('HSET', hash, 'e', ours)
      if redis.call('PTTL', hash) < 0 then
        redis.call('PEXPIRE', hash, ARGV[3]) -- as a new table's, until a save
      end
    end
    redis.call('SET', lease, ARGV[1], 'PX', ARGV[2])
    redis.call('ZADD', KEYS[1], expiry, id)
  else
    lost[#lost + 1] = i
  end
end
if #lost == 0 then
  return 0
end
return lost
"""
)

_RELEASE = """
-- KEYS: lease, leases set.  ARGV: process id, table id.  Drops the lease if
-- it is still ours, and marks it lapsed (score 0) in the leases set: the next
-- lapsed-lease scan of any process finds the table (a drain whose Released
-- message went astray, a takeover that could not load).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('ZADD', KEYS[2], 0, ARGV[2])
end
return 0
"""

_TIME = (
    _NOW_MS
    + """
-- Redis's clock in ms: the leases' expiries are on it.
return now
"""
)

# Touches keys it was not given in KEYS (the tables named in ARGV), as
# server/store/redis.py's _PRUNE_OPEN does; Atout runs one Redis.
#
# One script for both scans: the quick one passes the ids the set says lapsed,
# the full pass every open table. Per id it reads the set first: an entry that
# says the lease runs for at most one lease more is taken at its word (one
# read, as the EXISTS of before: the full pass costs Redis what it did). An
# entry missing, lapsed, or further ahead than a lease sends it to the lease
# key, and to putting the set right, so the full pass also enters the tables
# the set lacks (held by a process of a version before ``atout:leases``,
# during a rolling upgrade): the quick scans see them lapse. No writer puts an
# entry further ahead than a lease (claim, renewal and save write now + lease,
# this script now + the lease's PTTL), so one further ahead was written before
# Redis's clock stepped back (a failover to a replica whose clock lags, a VM's
# clock step): trusted, it would hide a dead process's table from every scan
# for as long as the step. The quick scan, each lease / 2, still reads only
# the lapsed entries.
_ORPHANS = (
    """
-- KEYS: leases set, open set.  ARGV: lease key prefix, table key prefix,
-- lease ms, then table ids (the lapsed ones of the set, or every open table).
-- Returns per id 1 for an orphan (open, stored, and nobody holds its lease),
-- else 0. An id whose entry says its lease runs, and for no more than a
-- lease, is not looked at further; for the others the set is put right: a
-- lease held gets its expiry, a table closed or gone leaves the set.
"""
    + _NOW_MS
    + """
local out, latest = {}, now + tonumber(ARGV[3])
for i = 4, #ARGV do
  local id = ARGV[i]
  local expiry = tonumber(redis.call('ZSCORE', KEYS[1], id) or '0')
  out[i - 3] = 0
  if expiry <= now or expiry > latest then
    local ttl = redis.call('PTTL', ARGV[1] .. id)
    if ttl ~= -2 then
      redis.call('ZADD', KEYS[1], now + math.max(ttl, 1), id)
    elseif redis.call('SISMEMBER', KEYS[2], id) == 0
        or redis.call('HEXISTS', ARGV[2] .. id, 'v') == 0 then
      redis.call('ZREM', KEYS[1], id)
    else
      out[i - 3] = 1
    end
  end
end
return out
"""
)


# Touches the lease keys of the ids ZSCAN returns, not given in KEYS, as
# _ORPHANS does; Atout runs one Redis.
_FREE_DEAD = """
-- KEYS: leases set.  ARGV: a dead process's id, lease key prefix, ZSCAN cursor,
-- count.  One ZSCAN step over the leases: each lease still held by exactly
-- that process is dropped, and its entry put at 0 (lapsed long ago), so the
-- next lapsed-lease scan of any process looks at it first. ZSCAN returns
-- every entry present for the whole walk; a score changed on the way does not
-- hide one. Returns {next cursor, leases freed}.
local step = redis.call('ZSCAN', KEYS[1], ARGV[3], 'COUNT', ARGV[4])
local found, freed = step[2], 0
for i = 1, #found, 2 do
  local id = found[i]
  if redis.call('GET', ARGV[2] .. id) == ARGV[1] then
    redis.call('DEL', ARGV[2] .. id)
    redis.call('ZADD', KEYS[1], 0, id)
    freed = freed + 1
  end
end
return {tonumber(step[1]), freed}
"""


class RenewalFailed(StoreError):
    """A renewal run failed or did not answer in time; ``lost`` holds the
    tables the other runs found lost, to step down all the same."""

    def __init__(self, why: str, lost: list[str]) -> None:
        super().__init__(why)
        self.lost = lost


class Leases:
    """This process's side of the leases (``proc`` is its id)."""

    _claim = Script(_CLAIM)
    _renew = Script(_RENEW)
    _release = Script(_RELEASE)
    _time = Script(_TIME)
    _orphans = Script(_ORPHANS)
    _free_dead = Script(_FREE_DEAD)

    def __init__(self, store: RedisStore, proc: str, lease_s: float, expire_s: float) -> None:
        self.store = store
        self.keys = store.keys
        self.proc = proc.encode()
        self.lease_ms = str(max(1, round(lease_s * 1000))).encode()
        self.renew_within_s = lease_s / 4
        """A renewal's own deadline, below the renewal period (lease / 3) and so
        well below the lease: the store's (5 s) can equal the lease, and a
        renewal that answers after the lease lapsed renewed nothing in time."""
        self.expire_ms = str(max(1, round(expire_s * 1000))).encode()
        self._renewals = 0
        store.lease_as(self.proc, self.lease_ms)

    def _lease_key(self, table_id: str) -> bytes:
        return self.keys.lease + table_id.encode()

    async def claim(self, table_id: str, *, new: bool = False) -> int:
        """Own ``table_id``: its new owner epoch, or 0 if another process holds
        it (or, unless ``new``, no such table is stored)."""
        tid = table_id.encode()
        async with self.store.request("claim"):
            reply = await self._claim.run(
                self.store.pool,
                [self.keys.lease + tid, self.keys.table + tid, self.keys.leases],
                [self.proc, self.lease_ms, self.expire_ms, b"0" if new else b"1", tid],
            )
        return int(reply) if isinstance(reply, int) else 0

    async def renew(self, owned: dict[str, int]) -> list[str]:
        """Renew the leases of ``owned`` (table id -> our epoch); the ids lost.

        ``RENEW_BATCH`` tables a script run, each run within ``renew_within_s``.
        A run that fails or times out does not hide what the runs before it
        found lost (those step down all the same); it raises after the others
        ran, and the batches start one further along each time, so one slow
        batch is not always the last reached."""
        if not owned:
            return []
        ids = list(owned)
        batches = [ids[i : i + RENEW_BATCH] for i in range(0, len(ids), RENEW_BATCH)]
        self._renewals += 1
        turn = self._renewals % len(batches)
        lost: list[str] = []
        failed: BaseException | None = None
        k = self.keys
        for batch in batches[turn:] + batches[:turn]:
            rows = encode_rows([(table_id, owned[table_id]) for table_id in batch])
            args = [self.proc, self.lease_ms, self.expire_ms, k.lease, k.table, rows]
            try:
                async with self.store.request("renew"), asyncio.timeout(self.renew_within_s):
                    reply = await self._renew.run(self.store.pool, [k.leases], args)
            except (StoreError, TimeoutError) as exc:
                failed = exc
                continue
            if isinstance(reply, list):
                lost += [batch[i - 1] for i in reply]
        if failed is not None:
            raise RenewalFailed(str(failed), lost) from failed
        return lost

    async def release(self, table_id: str) -> None:
        """Give the table up at once (drain): another process may claim it now."""
        async with self.store.request("release"):
            await self._release.run(
                self.store.pool,
                [self._lease_key(table_id), self.keys.leases],
                [self.proc, table_id.encode()],
            )

    async def free_dead(self, dead: str) -> int:
        """Drop every lease still held by process ``dead``: how many.

        Only for a process known to be gone, never guessed: one its supervisor
        reaped (server/process/workers.py, docs/CLUSTER.md "A reaped worker"). Its
        tables become orphans at once instead of a lease later; the claim
        that follows bumps their epochs, as any takeover does."""
        assert dead.encode() != self.proc, "a process does not bury itself"
        cursor, freed = b"0", 0
        while True:
            async with self.store.request("free_dead"):
                reply = await self._free_dead.run(
                    self.store.pool,
                    [self.keys.leases],
                    [dead.encode(), self.keys.lease, cursor, str(FREE_STEP).encode()],
                )
            assert isinstance(reply, list)
            freed += reply[1]
            if reply[0] == 0:
                return freed
            cursor = str(reply[0]).encode()

    async def holder(self, table_id: str) -> str | None:
        """The process holding ``table_id``'s lease, if any."""
        async with self.store.request("holder"):
            value = await self.store.pool.get(self._lease_key(table_id))
        return value.decode() if value is not None else None

    async def orphans(self, table_ids: list[str]) -> list[str]:
        """Those of ``table_ids`` that are orphans: open, stored, and nobody
        holds their lease (the full pass gives every open table). Those whose
        entry in ``atout:leases`` is missing, lapsed, or further ahead than
        a lease (Redis's clock stepped back) are put right in it. One script
        run per ``ORPHANS_BATCH`` tables."""
        found: list[str] = []
        for start in range(0, len(table_ids), ORPHANS_BATCH):
            batch = table_ids[start : start + ORPHANS_BATCH]
            async with self.store.request("orphans"):
                reply = await self._orphans.run(
                    self.store.pool,
                    [self.keys.leases, self.keys.open],
                    [self.keys.lease, self.keys.table, self.lease_ms, *(t.encode() for t in batch)],
                )
            flags = reply if isinstance(reply, list) else []
            found += [t for t, orphan in zip(batch, flags, strict=False) if orphan]
        return found

    async def now_ms(self) -> int:
        """Redis's clock, in ms: the one the leases' expiries are on."""
        async with self.store.request("time"):
            now = await self._time.run(self.store.pool, [], [])
        assert isinstance(now, int)
        return now

    async def lapsed(self, most: int, skip: int = 0) -> tuple[list[str], list[str]]:
        """The leases ``atout:leases`` says lapsed, at most ``most`` of them
        (the longest lapsed first, after ``skip``), checked against the lease keys: ``(orphans,
        looked at)``. Those looked at that were not orphans are put right in the
        set (a lease held gets its expiry, a table closed or gone leaves it),
        so asking again goes on to the next ones."""
        now = await self.now_ms()
        async with self.store.request("lapsed"):
            page = await self.store.pool.zrangebyscore_upto(self.keys.leases, now, most, skip)
        ids = [t.decode() for t in page]
        return await self.orphans(ids), ids

"""``DailyBoard`` in Redis (contract and periods: ``server/daily/board.py``).

Key layout under ``atout:daily:`` (or a namespace's, server/store/redis_keys.py),
nothing expiring (a day is ~100 bytes a player; dropping old days is left to
the operator):

- ``{day}:claims``    hash player -> table id of the ranked attempt
- ``{day}:results``   hash player -> "s0,s1,..." (the human seat's score per deal)
- ``{day}:deal:{k}``  hash score -> number of results on deal k
- ``{day}:board``     sorted set player -> ``board_score(percent, points)``
- ``{day}:pct``       hash player -> the day's exact percent
- ``{day}:built``     how many results ``board`` and ``pct`` were built from
- ``days``            set of days with results; ``closed``: set of closed days
- ``all:sum``, ``all:days``  hashes player -> sum of daily percents, days played
- ``all``             sorted set player -> ``board_score(mean, days)``, from MIN_DAYS
- ``week:{last}``     sorted set for the 7 days ending ``last`` (built once)

Reads are one ``ZREVRANGE`` (a page) or ``ZSCORE`` + ``ZCOUNT`` (a position)
on a materialized sorted set: that is what keeps them fast (bench/daily.py).
A day's board is rebuilt from its results (a Lua script) by ``record``,
before the player is told the result, and by a read when results came in
since it was built, at most once per ``refresh_s`` per process: a result
changes the percentage of every player below or level with it on some deal,
so there is no cheap incremental update. Closing a day (final board, added to
the all-time sums) is a Lua script, run once whichever process gets there.
"""

from __future__ import annotations

import contextlib
import datetime as dt

from server.base.clock import WALL, Clock
from server.daily.board import (
    BoardLine,
    Period,
    board_days,
    is_closed,
    last_closed_day,
)
from server.daily.coalesce import Coalesce
from server.daily.ranking import MIN_DAYS, from_board_score, positions
from server.store.asyncio_redis_fixes import Script
from server.store.base import StoreError
from server.store.redis import RedisStore

_RECORD = Script(
    """
-- KEYS: claims, results, days, closed.  ARGV: player, "s0,s1,...", day, deal key prefix
-- 0: recorded; 1: already recorded; 2: never claimed; 3: the day is closed.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 2 end
if redis.call('SISMEMBER', KEYS[4], ARGV[3]) == 1 then return 3 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 1 end
local k = 0
for score in string.gmatch(ARGV[2], '[^,]+') do
  redis.call('HINCRBY', ARGV[4] .. k, score, 1)
  k = k + 1
end
redis.call('SADD', KEYS[3], ARGV[3])
return 0
"""
)

_CLOSE = Script(
    """
-- KEYS: closed, the day's pct hash, all:sum, all:days.  ARGV: day.
-- Adds a final day to the all-time sums, once. 1: closed now; 0: already.
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
local pct = redis.call('HGETALL', KEYS[2])
for i = 1, #pct, 2 do
  redis.call('HINCRBYFLOAT', KEYS[3], pct[i], pct[i + 1])
  redis.call('HINCRBY', KEYS[4], pct[i], 1)
end
return 1
"""
)

# board_score() in Lua: percent to 0.01 rounded half up, then the days.
_PERIOD_LUA = """
local function add(dest, player, sum, days, min_days)
  if days >= min_days then
    local centi = math.floor(sum / days * 100 + 0.5)
    redis.call('ZADD', dest, centi * 10000000 + days + 5000000, player)
  end
end
"""

_ALL = Script(
    _PERIOD_LUA
    + """
-- KEYS: all:sum, all:days, temporary, all.  ARGV: min days.  Rebuilds all.
redis.call('DEL', KEYS[3])
local sums = redis.call('HGETALL', KEYS[1])
local n = 0
for i = 1, #sums, 2 do
  local days = tonumber(redis.call('HGET', KEYS[2], sums[i]))
  add(KEYS[3], sums[i], tonumber(sums[i + 1]), days, tonumber(ARGV[1]))
  n = n + 1
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('RENAME', KEYS[3], KEYS[4])
else
  redis.call('DEL', KEYS[4])
end
return n
"""
)

_WEEK = Script(
    _PERIOD_LUA
    + """
-- KEYS: destination, then the pct hashes of the days.  ARGV: min days.
local sums, days = {}, {}
for k = 2, #KEYS do
  local pct = redis.call('HGETALL', KEYS[k])
  for i = 1, #pct, 2 do
    sums[pct[i]] = (sums[pct[i]] or 0) + tonumber(pct[i + 1])
    days[pct[i]] = (days[pct[i]] or 0) + 1
  end
end
redis.call('DEL', KEYS[1])
for player, sum in pairs(sums) do
  add(KEYS[1], player, sum, days[player], tonumber(ARGV[1]))
end
redis.call('SET', KEYS[1] .. ':built', '1')
return 0
"""
)

# A day's board from its results, in Redis: day_standings() and board_score()
# in Lua. Done in Python it cost ~1 s for 10,000 results, nearly all of it
# asyncio-redis parsing the HGETALL reply while the server's loop stalls; here
# Redis spends a few tens of ms (bench/daily.py: board_rebuild_ms).
_BUILD = Script(
    """
-- KEYS: results, temporary board, temporary pct, board, pct, built.
-- ARGV: deal key prefix.  Returns the number of results built from.
local ranks = {}  -- per deal: score -> percent of the others it beats
local k = 0
while true do
  local counts = redis.call('HGETALL', ARGV[1] .. k)
  if #counts == 0 then break end
  local scores, n, how_many = {}, 0, {}
  for i = 1, #counts, 2 do
    local s = tonumber(counts[i])
    scores[#scores + 1] = s
    how_many[s] = tonumber(counts[i + 1])
    n = n + how_many[s]
  end
  table.sort(scores)
  local percent, below = {}, 0
  for _, s in ipairs(scores) do
    if n <= 1 then
      percent[s] = 50.0
    else
      percent[s] = 100.0 * (below + 0.5 * (how_many[s] - 1)) / (n - 1)
    end
    below = below + how_many[s]
  end
  k = k + 1
  ranks[k] = percent
end
redis.call('DEL', KEYS[2], KEYS[3])
local results = redis.call('HGETALL', KEYS[1])
-- Written 500 players per call: one call per player cost most of the time.
local zargs, hargs = {}, {}
local function flush()
  if #zargs > 0 then
    redis.call('ZADD', KEYS[2], unpack(zargs))
    redis.call('HSET', KEYS[3], unpack(hargs))
    zargs, hargs = {}, {}
  end
end
for i = 1, #results, 2 do
  local sum, points, deals = 0.0, 0, 0
  for score in string.gmatch(results[i + 1], '[^,]+') do
    deals = deals + 1
    local s = tonumber(score)
    sum = sum + ranks[deals][s]
    points = points + s
  end
  local mean = sum / deals
  local tie = math.max(-4999999, math.min(4999999, points))
  zargs[#zargs + 1] = math.floor(mean * 100 + 0.5) * 10000000 + tie + 5000000
  zargs[#zargs + 1] = results[i]
  hargs[#hargs + 1] = results[i]
  hargs[#hargs + 1] = string.format('%.17g', mean)
  if #zargs >= 1000 then flush() end
end
flush()
if #results > 0 then
  redis.call('RENAME', KEYS[2], KEYS[4])
  redis.call('RENAME', KEYS[3], KEYS[5])
end
redis.call('SET', KEYS[6], #results / 2)
return #results / 2
"""
)


class RedisBoard:
    """Daily results and boards in the Redis of ``store``."""

    def __init__(
        self,
        store: RedisStore,
        *,
        refresh_s: float = 2.0,
        min_days: int = MIN_DAYS,
        clock: Clock = WALL,
    ) -> None:
        self._store = store
        self._pool = store.pool
        self._daily = store.keys.daily
        self._days = self._daily + b"days"
        self._closed = self._daily + b"closed"
        self._all_sum = self._daily + b"all:sum"
        self._all_days = self._daily + b"all:days"
        self._all = self._daily + b"all"
        self.refresh_s = refresh_s
        self.clock = clock
        self.min_days = min_days
        self._checked: dict[str, float] = {}  # day -> clock time of its last staleness check
        self._built: dict[str, int] = {}  # day -> results its board was built from
        self._rebuilds = Coalesce(lambda day: self._fresh_day(day, force=True))

    def _day_key(self, day: str, what: bytes) -> bytes:
        return self._daily + day.encode() + b":" + what

    # -- attempts and results ---------------------------------------------------

    async def claim(self, day: str, player: str, table_id: str) -> str | None:
        key = self._day_key(day, b"claims")
        async with self._store.request("daily claim"):
            if await self._pool.hsetnx(key, player.encode(), table_id.encode()):
                return None
            earlier = await self._pool.hget(key, player.encode())
        return None if earlier is None else earlier.decode()

    async def record(self, day: str, player: str, scores: list[int], now: float) -> bool:
        if is_closed(day, now):
            return False
        keys = [
            self._day_key(day, b"claims"),
            self._day_key(day, b"results"),
            self._days,
            self._closed,
        ]
        args = [
            player.encode(),
            ",".join(str(int(s)) for s in scores).encode(),
            day.encode(),
            self._day_key(day, b"deal:"),
        ]
        async with self._store.request("daily record"):
            outcome = await _RECORD.run(self._pool, keys, args)
        if outcome != 0:
            return False
        # The board holds the result before the player hears of it: a
        # leaderboard read right after ``daily_result``, from any process,
        # lists the player (reads only rebuild every ``refresh_s``).
        with contextlib.suppress(StoreError):  # recorded: a later read rebuilds it
            await self._rebuilds.after_change(day)
        return True

    async def result(self, day: str, player: str) -> list[int] | None:
        async with self._store.request("daily result"):
            raw = await self._pool.hget(self._day_key(day, b"results"), player.encode())
        return None if raw is None else [int(s) for s in raw.split(b",")]

    async def deal_counts(self, day: str) -> list[dict[int, int]]:
        counts: list[dict[int, int]] = []
        async with self._store.request("daily deal counts"):
            while True:
                key = self._day_key(day, b"deal:%d" % len(counts))
                found = await self._pool.hgetall(key)
                if not found:
                    return counts
                counts.append({int(s): int(n) for s, n in found.items()})

    # -- boards -------------------------------------------------------------------

    async def _fresh_day(self, day: str, force: bool = False) -> None:
        """Rebuild ``day``'s board if results came in since (see the module docstring)."""
        now = self.clock.time()
        # 0 <=: a wall clock stepped back does not put the next check off.
        if not force and 0 <= now - self._checked.get(day, -1e9) < self.refresh_s:
            return
        self._checked[day] = now
        results_key = self._day_key(day, b"results")
        async with self._store.request("daily board check"):
            n = await self._pool.hlen(results_key)
            if not force and n == self._built.get(day):
                return
            built = await self._pool.get(self._day_key(day, b"built"))
            if not force and built is not None and int(built) == n:
                self._built[day] = n
                return
        keys = [
            results_key,
            self._day_key(day, b"board:tmp"),
            self._day_key(day, b"pct:tmp"),
            self._day_key(day, b"board"),
            self._day_key(day, b"pct"),
            self._day_key(day, b"built"),
        ]
        async with self._store.request("daily board build"):
            built_from = await _BUILD.run(self._pool, keys, [self._day_key(day, b"deal:")])
            self._built[day] = int(built_from) if isinstance(built_from, int) else 0

    async def _close_days(self, now: float) -> None:
        """Close every day with results that is over (``board.CLOSE_GRACE``)."""
        last = last_closed_day(now)
        async with self._store.request("daily days"):
            days = await self._pool.smembers(self._days)
            closed = await self._pool.smembers(self._closed)
        todo = sorted(
            d.decode() for d in days - closed if dt.date.fromisoformat(d.decode()) <= last
        )
        for day in todo:
            await self._fresh_day(day, force=True)
            async with self._store.request("daily close"):
                await _CLOSE.run(
                    self._pool,
                    [self._closed, self._day_key(day, b"pct"), self._all_sum, self._all_days],
                    [day.encode()],
                )
        if todo:
            async with self._store.request("daily all-time board"):
                await _ALL.run(
                    self._pool,
                    [self._all_sum, self._all_days, self._all + b":tmp", self._all],
                    [str(self.min_days).encode()],
                )

    async def _board(self, period: Period, now: float) -> bytes:
        """The sorted set holding ``period``'s board at ``now``, brought up to date."""
        first, last = board_days(period, now)
        if period in ("today", "yesterday"):
            day = first.isoformat()
            if is_closed(day, now):
                await self._close_days(now)  # its final board, built once
            else:
                await self._fresh_day(day)
            return self._day_key(day, b"board")
        await self._close_days(now)
        if period == "all":
            return self._all
        key = self._daily + b"week:" + last.isoformat().encode()
        async with self._store.request("daily week board"):
            if not await self._pool.exists(key + b":built"):
                days = [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]
                keys = [key] + [self._day_key(d.isoformat(), b"pct") for d in days]
                await _WEEK.run(self._pool, keys, [str(self.min_days).encode()])
        return key

    def _line(self, period: Period, player: str, score: float, position: int) -> BoardLine:
        percent, tiebreak = from_board_score(score)
        if period in ("today", "yesterday"):
            return BoardLine(position=position, player=player, percent=percent, points=tiebreak)
        return BoardLine(position=position, player=player, percent=percent, points=0, days=tiebreak)

    async def page(
        self, period: Period, now: float, start: int, count: int
    ) -> tuple[list[BoardLine], int]:
        key = await self._board(period, now)
        if count <= 0:
            return [], 0
        async with self._store.request("daily page"):
            found = await self._pool.zrevrange(key, start, start + count - 1)
            total = await self._pool.zcard(key)
            if not found:
                return [], total
            best = max(found.values())
            above = await self._pool.zcount_above(key, best)
        # The sorted set's own order: score, then member, descending.
        ordered = sorted(((s, p.decode()) for p, s in found.items()), reverse=True)
        ranks = positions([s for s, _ in ordered])
        lines = [
            self._line(period, p, s, r + above) for r, (s, p) in zip(ranks, ordered, strict=True)
        ]
        return lines, total

    async def position(self, period: Period, now: float, player: str) -> BoardLine | None:
        key = await self._board(period, now)
        async with self._store.request("daily position"):
            score = await self._pool.zscore(key, player.encode())
            if score is None:
                return None
            above = await self._pool.zcount_above(key, score)
        return self._line(period, player, score, above + 1)

"""Where tournaments are kept: in this process's memory (a server alone, no
Redis), or in Redis (they survive restarts; every process of a service sees
the same ones).

A tournament is saved whole (``TournamentState``, msgpack) under a version:
``save`` writes version ``n + 1`` only over version ``n``. Two processes may
change one tournament at once (two tables of a round ending on two
processes): the later write is refused, and its writer reads the
tournament again and decides again (``server.tournament.service``). That
is the fencing: there is no owner of a tournament to elect, and a process
that dies mid-change leaves the last whole version behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from server.store.asyncio_redis_fixes import Script
from server.tournament.state import TournamentState, decode_tournament, encode_tournament

if TYPE_CHECKING:
    from server.store.redis import RedisStore


class TournamentStore(Protocol):
    async def load(self, code: str) -> TournamentState | None:
        """The tournament ``code`` as last saved (None: no such tournament)."""
        ...

    async def save(self, state: TournamentState, *, new: bool = False) -> bool:
        """Store ``state`` (its ``version`` one more than the stored one; ``new``:
        only if no tournament has its code). False: refused, nothing written."""
        ...

    async def playing(self) -> list[str]:
        """The codes of the tournaments in play (a restarted service looks at them)."""
        ...


class MemoryTournaments:
    def __init__(self) -> None:
        self._kept: dict[str, bytes] = {}
        self._versions: dict[str, int] = {}

    async def load(self, code: str) -> TournamentState | None:
        blob = self._kept.get(code)
        return None if blob is None else decode_tournament(blob)

    async def save(self, state: TournamentState, *, new: bool = False) -> bool:
        stored = self._versions.get(state.code)
        if (stored is not None) if new else stored != state.version - 1:
            return False
        # Kept encoded: a state handed out is the caller's to change.
        self._kept[state.code] = encode_tournament(state)
        self._versions[state.code] = state.version
        return True

    async def playing(self) -> list[str]:
        return [c for c, b in self._kept.items() if decode_tournament(b).status == "playing"]


# KEYS: the tournament's hash, the set of tournaments in play.
# ARGV: the version it must have ("" for none: a new one), the new version,
# the state, its code, "1" if it is in play.
_SAVE = """
local stored = redis.call('HGET', KEYS[1], 'v')
if (stored or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'state', ARGV[3])
if ARGV[5] == '1' then
  redis.call('SADD', KEYS[2], ARGV[4])
else
  redis.call('SREM', KEYS[2], ARGV[4])
end
return 1
"""


class RedisTournaments:
    """Tournaments in the Redis of ``store`` (its connections, deadline and names)."""

    _save = Script(_SAVE)

    def __init__(self, store: RedisStore) -> None:
        self.store = store

    def _key(self, code: str) -> bytes:
        return self.store.keys.tournament + code.encode()

    async def load(self, code: str) -> TournamentState | None:
        async with self.store.request("load tournament"):
            blob = await self.store.pool.hget(self._key(code), b"state")
        return None if blob is None else decode_tournament(blob)

    async def save(self, state: TournamentState, *, new: bool = False) -> bool:
        before = b"" if new else str(state.version - 1).encode()
        args = [
            before,
            str(state.version).encode(),
            encode_tournament(state),
            state.code.encode(),
            b"1" if state.status == "playing" else b"0",
        ]
        keys = [self._key(state.code), self.store.keys.tournaments]
        async with self.store.request("save tournament"):
            return bool(await self._save.run(self.store.pool, keys, args))

    async def playing(self) -> list[str]:
        async with self.store.request("tournaments in play"):
            codes = await self.store.pool.smembers(self.store.keys.tournaments)
        return sorted(c.decode() for c in codes)

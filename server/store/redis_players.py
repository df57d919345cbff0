"""``PlayerStore`` in Redis (contract: ``server/store/players.py``).

Key layout, all under ``atout:`` (or a namespace's, server/store/redis_keys.py),
none of them expiring:

- ``atout:pkey:{digest}``  string: the player id of a key digest
- ``atout:pname:{name key}`` string: the player id owning a name
- ``atout:names``          hash player id -> display name (one HMGET
  names a whole leaderboard page)

Claiming and renaming are Lua scripts, so two keys racing for one name
cannot both get it. The scripts return integers only (asyncio-redis cannot
decode a script's string replies, see ``server/store/redis.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from server.base.players import Player, name_key, new_player_id
from server.store.asyncio_redis_fixes import Script
from server.store.players import NameTaken
from server.store.redis import RedisStore

_REGISTER = Script(
    """
-- KEYS: pkey, pname, names.  ARGV: new id, name.
-- 1: the key is already registered; 2: the name is taken; 0: registered.
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 0
"""
)

# Deletes the old name's key, which it was not given in KEYS (only a Redis
# Cluster would mind; Atout runs one Redis).
_RENAME = Script(
    """
-- KEYS: new pname, names.  ARGV: id, new name, old pname key or ''.
-- 2: the name is someone else's; 0: renamed.
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return 2 end
if ARGV[3] ~= '' and ARGV[3] ~= KEYS[1] then redis.call('DEL', ARGV[3]) end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 0
"""
)


class RedisPlayers:
    """Players in the Redis of ``store`` (same connection pool and deadlines)."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._pool = store.pool
        self._keys = store.keys

    async def find(self, digest: str) -> Player | None:
        async with self._store.request("player find"):
            pid = await self._pool.get(self._keys.pkey + digest.encode())
            if pid is None:
                return None
            name = await self._pool.hget(self._keys.names, pid)
        return Player(id=pid.decode(), name=(name or b"?").decode())

    async def register(self, digest: str, name: str) -> Player:
        pid = new_player_id()
        k = self._keys
        keys = [k.pkey + digest.encode(), k.pname + name_key(name).encode(), k.names]
        async with self._store.request("player register"):
            outcome = await _REGISTER.run(self._pool, keys, [pid.encode(), name.encode()])
        if outcome == 2:
            raise NameTaken(name)
        if outcome == 1:
            known = await self.find(digest)
            assert known is not None  # keys are never deleted
            return known
        return Player(id=pid, name=name)

    async def rename(self, player_id: str, name: str) -> Player:
        async with self._store.request("player rename"):
            old = await self._pool.hget(self._keys.names, player_id.encode())
            if old is None:
                raise KeyError(player_id)
            old_key = self._keys.pname + name_key(old.decode()).encode()
            keys = [self._keys.pname + name_key(name).encode(), self._keys.names]
            outcome = await _RENAME.run(
                self._pool, keys, [player_id.encode(), name.encode(), old_key]
            )
        if outcome == 2:
            raise NameTaken(name)
        return Player(id=player_id, name=name)

    async def names(self, player_ids: Iterable[str]) -> dict[str, str]:
        ids = list(player_ids)
        if not ids:
            return {}
        async with self._store.request("player names"):
            found = await self._pool.hmget(self._keys.names, [i.encode() for i in ids])
        return {pid: n.decode() for pid, n in zip(ids, found, strict=True) if n is not None}

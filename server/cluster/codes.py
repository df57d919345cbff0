"""Invite codes and listings in Redis: the directory every process shares.

``atout:codes`` (code -> table id) makes an invite code unique in the whole
service and tells any process which table a code opens, even one created a
moment ago elsewhere; ``atout:listings`` (table id -> its last ``Listed``)
gives a process that joins every table listed so far (the lobby channel
tells the changes after). Key names are the service's (``store.keys``).
"""

from __future__ import annotations

import contextlib

import msgspec

from server.cluster.bus import Listed, decode_listed
from server.store.asyncio_redis_fixes import Script
from server.store.base import StoreError
from server.store.redis import RedisStore

_RESERVE_CODE = Script("""
-- KEYS: the codes hash.  ARGV: code, table id.  1 if the code was free (now ours).
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
""")

_DROP_CODE = Script("""
-- KEYS: the codes hash.  ARGV: code, table id.  Only the table's own code.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
""")

_LIST = Script("""
-- KEYS: the listings hash.  ARGV: table id, listing ("" drops it)
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return 0
""")


class RedisDirectory:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.keys = store.keys

    async def reserve_code(self, code: str, table_id: str) -> bool:
        """Make ``code`` the invite code of ``table_id`` in every process; False
        if another table has it (``StoreError`` if Redis does not answer)."""
        async with self.store.request("reserve_code"):
            taken = await _RESERVE_CODE.run(
                self.store.pool, [self.keys.codes], [code.encode(), table_id.encode()]
            )
        return taken == 1

    async def table_of_code(self, code: str) -> str | None:
        """The table an invite code opens, as Redis holds it (StoreError if down)."""
        async with self.store.request("code"):
            (found,) = await self.store.pool.hmget(self.keys.codes, [code.encode()])
        return found.decode() if found is not None else None

    async def drop_code(self, code: str, table_id: str) -> None:
        """``table_id`` closed: its code is free (if still its own); errors ignored."""
        with contextlib.suppress(StoreError):
            async with self.store.request("drop_code"):
                await _DROP_CODE.run(
                    self.store.pool, [self.keys.codes], [code.encode(), table_id.encode()]
                )

    async def write_listing(self, table_id: str, blob: bytes) -> None:
        """Keep ``table_id``'s last ``Listed`` (b"": drop it); errors ignored."""
        with contextlib.suppress(StoreError):
            async with self.store.request("listing"):
                await _LIST.run(self.store.pool, [self.keys.listings], [table_id.encode(), blob])

    async def listings(self) -> list[Listed]:
        """Every table listed so far, and open (``StoreError`` if Redis does not answer)."""
        async with self.store.request("listings"):
            listed = await self.store.pool.hgetall(self.keys.listings)
        open_ids = set(await self.store.open_tables())
        out = []
        for blob in listed.values():
            try:
                msg = decode_listed(blob)
            except msgspec.DecodeError:
                continue
            if msg.table in open_ids:
                out.append(msg)
        return out

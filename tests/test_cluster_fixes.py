"""Review fixes of the cluster (issue 16) that the process tests do not reach.

A real ``redis-server`` (tests/redis_server.py).
"""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from server.cluster.lease import Leases
from server.store.base import StoreError
from server.store.redis import RedisStore
from tests.redis_server import RedisServer

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]

# Keeps Redis busy (it runs one script at a time) for about a second.
_BUSY = b"""
local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
while true do
  local n = redis.call('TIME')
  if n[1] * 1000000 + n[2] - start > 1000000 then return 0 end
end
"""


async def test_a_renewal_gives_up_within_a_quarter_lease(redis_server: RedisServer) -> None:
    """The store's deadline (5 s) can equal the lease: a renewal has its own."""
    store = await RedisStore.connect(redis_server.url)
    leases = Leases(store, "p", lease_s=0.4, expire_s=60)
    epoch = await leases.claim("t1", new=True)
    try:
        with socket.create_connection(("127.0.0.1", redis_server.port)) as busy:
            busy.sendall(b"*3\r\n$4\r\nEVAL\r\n$%d\r\n%s\r\n$1\r\n0\r\n" % (len(_BUSY), _BUSY))
            await asyncio.sleep(0.05)  # the script is running
            started = time.monotonic()
            with pytest.raises(StoreError):
                await leases.renew({"t1": epoch})
            took = time.monotonic() - started
            busy.recv(16)  # until the script ended
        assert took < 0.3, took  # lease / 4 = 0.1 s, not the store's 5 s
        assert await leases.renew({"t1": epoch}) == []  # and renews again after it
    finally:
        await store.close()

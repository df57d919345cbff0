"""The throwaway ``redis-server`` a bench runs its server on
(tests/support/redis.py), kept off the server's core."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.support.redis import RedisServer


def start_redis(*args: str, cores: set[int], nice: int = 0) -> RedisServer:
    """A fresh Redis with ``args`` (e.g. an append-only file) on ``cores``."""
    from tests.support.redis import RedisServer

    redis = RedisServer(*args)
    assert redis._proc is not None
    # Redis stands for a separate machine: keep it off the server's core.
    os.sched_setaffinity(redis._proc.pid, cores)
    if nice:
        os.setpriority(os.PRIO_PROCESS, redis._proc.pid, nice)
    return redis

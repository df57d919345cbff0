"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.redis import RedisServer, RedisUnavailable, find_redis_server

__all__ = ["RedisServer", "RedisUnavailable", "find_redis_server"]

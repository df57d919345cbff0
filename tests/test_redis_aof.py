"""The throwaway Redis run as deployed: ``bench/load.py --redis-aof`` starts
``RedisServer`` with an append-only file the way deploy/redis.conf ships it,
and reads its persistence figures with ``info``. A write it acknowledged
must survive a SIGKILL, as docs/DEPLOY.md ("What is lost if Redis fails")
promises."""

from __future__ import annotations

from pathlib import Path

from tests.support.redis import RedisServer, command, info

ROOT = Path(__file__).resolve().parent.parent


def deployed_aof() -> dict[str, str]:
    """The append-only file's settings of deploy/redis.conf."""
    settings: dict[str, str] = {}
    for line in (ROOT / "deploy" / "redis.conf").read_text().splitlines():
        name, _, value = line.strip().partition(" ")
        if name in ("appendonly", "appendfsync"):
            settings[name] = value.strip()
    return settings


def test_info_reads_the_whole_section() -> None:
    with RedisServer("--appendonly", "yes", "--appendfsync", "everysec") as redis:
        persistence = info(redis.port, "persistence")
    # The last field of the section too (shown while the file is on): the
    # bulk reply was read whole.
    assert persistence["aof_enabled"] == "1"
    assert persistence["aof_delayed_fsync"] == "0"
    assert all(not name.startswith("#") for name in persistence)


def test_the_deployed_aof_keeps_an_acknowledged_write_through_a_kill() -> None:
    deployed = deployed_aof()
    assert deployed == {"appendonly": "yes", "appendfsync": "always"}
    # The arguments bench/load.py --redis-aof always gives it.
    with RedisServer("--appendonly", "yes", "--appendfsync", deployed["appendfsync"]) as redis:
        assert command(redis.port, None, b"CONFIG", b"GET", b"appendfsync") == b"always"
        assert command(redis.port, None, b"SET", b"table:1", b"seat 2 played trump 14") == b"+OK"
        persistence = info(redis.port, "persistence")
        assert persistence["aof_enabled"] == "1"
        assert int(persistence["aof_current_size"]) > 0
        redis.stop()  # SIGKILL, right after the answer
        redis.start()
        assert command(redis.port, None, b"GET", b"table:1") == b"seat 2 played trump 14"

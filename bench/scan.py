"""Benchmark: what one orphan scan costs with many open tables (docs/CLUSTER.md).

Every process of a service scans for orphans every ``lease / 2``. Before
``atout:leases`` a scan read every open table: ``_PRUNE_OPEN`` (an EXISTS per
open table), SMEMBERS of ``atout:open``, and an EXISTS per lease of every
table it did not own. Now a scan reads only the leases that lapsed
(``Leases.lapsed``), and one in ten is the full pass (``Leases.orphans`` over
every open table: a ZSCORE in ``atout:leases`` per table where the EXISTS
of the lease was, the lease itself read only for an entry missing or lapsed).

Here ``--tables`` open tables are created through the real code (a claim and
a save each, by another process id), their leases held as live owners hold
them. Then each way of scanning runs ``--scans`` times against a throwaway
``redis-server`` (tests/support/redis.py) and prints, per scan, the wall time
seen by the scanning process, the time Redis spent (``INFO commandstats``,
all commands' ``usec`` summed) and the longest single script run (Redis's
slow log, on for every command): how long a scan blocks Redis at once. Nothing is lapsed, the
steady state: every scan of a healthy service finds no orphan.

Run: ``nice -n 19 python bench/scan.py [--tables 10000] [--scans 20]``.
Prints ``name: value`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import redis

# Runnable as a plain script: the project and its tests folder from the root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.cluster.lease import Leases
from server.cluster.ownership import FULL_SCAN_EVERY, SCAN_PAGE
from server.store.redis import RedisStore
from tests.support.redis import RedisServer


def redis_usec(client: redis.Redis) -> int:
    """Microseconds Redis spent in commands so far (INFO itself left out)."""
    stats = client.info("commandstats")
    return sum(int(v["usec"]) for k, v in stats.items() if k != "cmdstat_info")


async def fill(store: RedisStore, tables: int) -> None:
    """``tables`` open tables, each claimed and saved by a live owner."""
    owner = Leases(store, "owner", lease_s=3600, expire_s=86400)
    blob = os.urandom(1500)  # a table's state is about this size (bench/store.py)
    for start in range(0, tables, 500):
        ids = [f"t{i:05d}" for i in range(start, min(start + 500, tables))]
        epochs = [await owner.claim(t, new=True) for t in ids]
        await asyncio.gather(
            *(store.save(t, 1, blob, epoch=e) for t, e in zip(ids, epochs, strict=True))
        )


def longest_script_ms(client: redis.Redis) -> float:
    """The longest script run since the slow log was reset: how long one
    scan blocked Redis, and every other process's saves with it, at once."""
    runs = [
        entry["duration"]
        for entry in client.slowlog_get(100_000)
        if bytes(entry["command"]).upper().startswith(b"EVALSHA")
    ]
    return max(runs, default=0) / 1000


async def measure(
    name: str, scan: Callable[[], Awaitable[int]], client: redis.Redis, scans: int
) -> tuple[float, float]:
    await scan()  # warm: scripts loaded
    walls, usecs, longest = [], [], []
    for _ in range(scans):
        client.slowlog_reset()
        before = redis_usec(client)
        started = time.perf_counter()
        await scan()
        walls.append((time.perf_counter() - started) * 1000)
        usecs.append((redis_usec(client) - before) / 1000)
        longest.append(longest_script_ms(client))
    wall, busy = statistics.median(walls), statistics.median(usecs)
    print(f"{name}_wall_ms_median: {wall:.2f}")
    print(f"{name}_wall_ms_max: {max(walls):.2f}")
    print(f"{name}_redis_ms_median: {busy:.3f}")
    print(f"{name}_longest_script_ms_max: {max(longest):.3f}")
    return wall, busy


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--scans", type=int, default=20)
    args = parser.parse_args()
    with RedisServer() as server:
        store = await RedisStore.connect(server.url, poolsize=1)
        client = redis.Redis.from_url(server.url)
        client.config_set("slowlog-log-slower-than", 0)  # every command, with its time
        client.config_set("slowlog-max-len", 100_000)
        try:
            started = time.perf_counter()
            await fill(store, args.tables)
            print(f"tables: {args.tables}")
            print(f"fill_s: {time.perf_counter() - started:.1f}")
            scanner = Leases(store, "scanner", lease_s=5, expire_s=86400)

            async def full() -> int:
                # The scan before atout:leases, and now the full pass.
                open_ids = await store.open_tables()
                return len(await scanner.orphans(open_ids))

            async def lapsed() -> int:
                orphans, _ = await scanner.lapsed(SCAN_PAGE)
                return len(orphans)

            assert await full() == 0 and await lapsed() == 0
            full_wall, full_busy = await measure("full", full, client, args.scans)
            quick_wall, quick_busy = await measure("lapsed", lapsed, client, args.scans)
            # One full pass in FULL_SCAN_EVERY scans: the average scan now.
            n = FULL_SCAN_EVERY
            print(f"average_wall_ms_now: {(full_wall + (n - 1) * quick_wall) / n:.2f}")
            print(f"average_redis_ms_now: {(full_busy + (n - 1) * quick_busy) / n:.3f}")
        finally:
            client.close()
            await store.close()


if __name__ == "__main__":
    asyncio.run(main())

"""Benchmark: the daily leaderboard with many players, in Redis.

Registers ``--players`` players (key digest and name), records one daily
result each (4 deals) for today, then times what a client's leaderboard
screen asks for: the top 20 of today with names, and one player's own
position with name. Reads are timed twice: as most reads run (the board was
checked less than ``refresh_s`` ago: no staleness check), and with a
staleness check on every read (``refresh_s`` 0, one more round trip). The
rebuild of the day's board from every result is timed too: each ``record``
waits for one before it returns (one rebuild serves the records that arrive
while another runs), so ``claim_and_record_per_second`` includes them.

Against a throwaway ``redis-server`` (``tests/support/redis.py``). Run from
anywhere: ``python bench/daily.py [--players 10000] [--reads 500]``. Prints
``name: value`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

# Runnable as a plain script: the project and its tests folder from the root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.base.players import key_digest, new_key
from server.daily.deals import utc_day
from server.daily.redis_board import RedisBoard
from server.store.redis import RedisStore
from server.store.redis_players import RedisPlayers
from tests.support.redis import RedisServer

DEALS = 4
CONCURRENCY = 50  # requests in flight while loading (many tables finishing at once)


def deal_score(rng: random.Random) -> int:
    """A human seat's score on one deal: mostly defence (-1x), sometimes taker (+-3x)."""
    base = 25 + rng.randrange(0, 60)
    mult = rng.choice((1, 2, 4))
    return rng.choice((1, -1)) * base * mult * rng.choice((1, 1, 1, 3))


async def in_batches(coros: list, size: int) -> list:  # type: ignore[type-arg]
    out = []
    for i in range(0, len(coros), size):
        out += await asyncio.gather(*coros[i : i + size])
    return out


def ms(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples) * 1000, samples[int(len(samples) * 0.95)] * 1000


async def top20(board: RedisBoard, players: RedisPlayers, now: float) -> int:
    lines, _ = await board.page("today", now, 0, 20)
    names = await players.names(x.player for x in lines)
    return len(names)


async def own(board: RedisBoard, players: RedisPlayers, now: float, pid: str) -> int:
    line = await board.position("today", now, pid)
    assert line is not None
    names = await players.names([pid])
    return line.position + len(names)


async def main(n_players: int, reads: int) -> None:
    rng = random.Random(15)
    with RedisServer() as server:
        store = await RedisStore.connect(server.url, poolsize=4)
        players = RedisPlayers(store)
        board = RedisBoard(store, refresh_s=3600.0)
        now = time.time()
        day = utc_day(now).isoformat()

        started = time.perf_counter()
        registered = await in_batches(
            [players.register(key_digest(new_key()), f"Player {i}") for i in range(n_players)],
            CONCURRENCY,
        )
        took = time.perf_counter() - started
        print(f"players: {n_players}")
        print(f"register_per_second: {n_players / took:.0f}")
        ids = [p.id for p in registered]

        async def finish(pid: str) -> bool:
            await board.claim(day, pid, "t-" + pid)
            return await board.record(day, pid, [deal_score(rng) for _ in range(DEALS)], now)

        started = time.perf_counter()
        recorded = await in_batches([finish(pid) for pid in ids], CONCURRENCY)
        took = time.perf_counter() - started
        assert all(recorded)
        print(f"results: {sum(recorded)}")
        print(f"claim_and_record_per_second: {n_players / took:.0f}")

        started = time.perf_counter()
        await board._fresh_day(day, force=True)  # what each burst of records waits for
        print(f"board_rebuild_ms: {(time.perf_counter() - started) * 1000:.1f}")

        for label, refresh in (("", 3600.0), ("_checked", 0.0)):
            board.refresh_s = refresh
            top_times, own_times = [], []
            for _ in range(reads):
                t0 = time.perf_counter()
                assert await top20(board, players, now) == 20
                t1 = time.perf_counter()
                await own(board, players, now, rng.choice(ids))
                t2 = time.perf_counter()
                top_times.append(t1 - t0)
                own_times.append(t2 - t1)
            med, p95 = ms(top_times)
            print(f"top20{label}_median_ms: {med:.3f}")
            print(f"top20{label}_p95_ms: {p95:.3f}")
            med, p95 = ms(own_times)
            print(f"own_position{label}_median_ms: {med:.3f}")
            print(f"own_position{label}_p95_ms: {p95:.3f}")
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=500)
    args = parser.parse_args()
    asyncio.run(main(args.players, args.reads))

"""Benchmark: latency of one ``TableStore.save`` of a table-sized blob.

A table saves its whole state before anyone hears of a move, so this latency
sits on every move's path. Measures ``MemoryStore`` and ``RedisStore`` (against
a throwaway ``redis-server`` started here, see ``tests/redis_server.py``), one
save awaited at a time, the version growing as a real table's does.

Run from anywhere: ``python bench/store.py [--saves 5000]``. Prints
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

import msgspec

# Runnable as a plain script: the project and its tests folder from the root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.store.base import TableStore
from server.store.memory import MemoryStore
from server.store.redis import RedisStore
from tests.redis_server import RedisServer

WARMUP = 200


def table_blob(rng: random.Random) -> bytes:
    """About 3 KB of msgpack shaped like a table in the middle of a deal.

    A stand-in until the real state Struct exists: the same kinds of values
    (card codes, seats, token digests, a trick history, scores) so the size
    and the byte mix are close; the store never looks inside anyway.
    """
    cards = [f"{r}{s}" for s in "SHDC" for r in (*"123456789", "T", "V", "C", "D", "R")]
    cards += [f"T{i}" for i in range(1, 22)] + ["EX"]
    rng.shuffle(cards)
    seats = [
        {
            "name": f"player-{i}",
            "bot": i >= 2,
            "token_digest": rng.randbytes(32),
            "hand": cards[i * 18 : i * 18 + 9],
            "score": rng.randint(-500, 500),
        }
        for i in range(4)
    ]
    state = {
        "id": "t-" + rng.randbytes(8).hex(),
        "seed": rng.getrandbits(64),
        "phase": "play",
        "dealer": 1,
        "taker": 2,
        "contract": "garde",
        "chien": cards[72:],
        "ecart": cards[66:72],
        "seats": seats,
        "tricks": [
            {"leader": rng.randrange(4), "cards": cards[j * 4 : j * 4 + 4]} for j in range(9)
        ],
        "deals": [
            {
                "taker": rng.randrange(4),
                "contract": "petite",
                "points": [rng.randint(-200, 200)] * 4,
            }
            for _ in range(12)
        ],
        "deadlines": {"turn": time.time() + 30.0, "grace": [time.time() + 120.0] * 4},
        "log": [rng.randbytes(24) for _ in range(60)],
    }
    return msgspec.msgpack.encode(state)


async def time_saves(store: TableStore, blob: bytes, saves: int) -> list[float]:
    """Seconds per save, after a warm-up (script loading, allocator, caches)."""
    for version in range(WARMUP):
        await store.save("bench", version, blob)
    times = []
    for version in range(WARMUP, WARMUP + saves):
        start = time.perf_counter()
        await store.save("bench", version, blob)
        times.append(time.perf_counter() - start)
    return sorted(times)


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f}"


async def run(saves: int) -> None:
    blob = table_blob(random.Random(7))
    print(f"blob_bytes: {len(blob)}")
    print(f"saves: {saves}")

    memory = await time_saves(MemoryStore(), blob, saves)
    print(f"memory_save_median_us: {us(statistics.median(memory))}")
    print(f"memory_save_p99_us: {us(memory[int(saves * 0.99)])}")

    with RedisServer() as server:
        store = await RedisStore.connect(server.url)
        try:
            redis = await time_saves(store, blob, saves)
        finally:
            await store.close()
    print(f"redis_save_median_us: {us(statistics.median(redis))}")
    print(f"redis_save_p99_us: {us(redis[int(saves * 0.99)])}")
    print(f"redis_save_max_us: {us(redis[-1])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=5000, help="timed saves per store")
    asyncio.run(run(parser.parse_args().saves))


if __name__ == "__main__":
    main()

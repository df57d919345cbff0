"""Benchmark: latency of one ``TableStore.save`` of a table-sized blob.

A table saves its whole state before anyone hears of a move, so this latency
sits on every move's path. Measures ``MemoryStore`` and ``RedisStore`` (against
a throwaway ``redis-server`` started here, see ``tests/support/redis.py``), one
save awaited at a time, the version growing as a real table's does. Then the
CPU this process spends per Redis save when 1, 2, 4 ... tables save at once
and the store's group commit puts them in one request.

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

from protocol.cards import cards_of
from protocol.views import ChatLine
from server.game import Game
from server.store.base import TableStore
from server.store.memory import MemoryStore
from server.store.redis import RedisStore
from server.table import SeatState, TableState, digest
from tests.support.redis import RedisServer

WARMUP = 200


def table_blob(rng: random.Random) -> bytes:
    """The real persisted state of a table in the middle of a deal.

    A seeded game at a full table (three humans and a bot, token digests,
    some chat) played to the ninth trick of its third deal: what
    ``Table._commit`` writes on every move at that point.
    """
    game = Game(deals=8, seed="bench-store")
    while len(game.results) < 2 or len(game.deal.tricks) < 9:
        deal = game.deal
        if game.deal_over:
            game.next_deal()
            continue
        if deal.phase == "bidding":
            bids = deal.legal_bids()
            deal.bid(deal.turn, bids[1] if len(deal.bids) == 0 else bids[0])  # type: ignore[arg-type]
        elif deal.phase == "ecart":
            cands = cards_of(deal.ecart_candidates())
            need = deal.ecart_trumps_needed()
            suits = [c for c in cands if c < 56]
            deal.ecart(
                deal.taker, suits + [c for c in cands if c >= 56][:need] if need else suits[:6]
            )
        elif deal.phase == "chelem":
            deal.declare_chelem(deal.taker, False)
        else:
            deal.play(deal.turn, rng.choice(deal.legal_cards()))  # type: ignore[arg-type]
    seats = [SeatState("human", f"player-{i}", digest(f"token-{i}")) for i in range(3)]
    state = TableState(
        table_id=rng.randbytes(4).hex(),
        name="Friday night",
        code="ABC234",
        deals=8,
        seats=[*seats, SeatState("bot", "Bot Denis")],
        status="playing",
        game=game.state(),
        version=321,
        chat=[
            ChatLine(seat=i % 4, name=f"player-{i % 3}", text="bien joué !", at=time.time())
            for i in range(10)
        ],
    )
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


async def cpu_per_save(store: TableStore, blob: bytes, batch: int, saves: int) -> float:
    """CPU seconds of this process per save, ``batch`` tables saving at once.

    What a group commit buys: the saves of ``batch`` tables that ask at the
    same moment go in one request (see ``RedisStore.save``).
    """
    rounds = max(1, saves // batch)
    tables = [f"bench-{batch}-{i}" for i in range(batch)]
    await asyncio.gather(*(store.save(t, 0, blob) for t in tables))
    start = time.process_time()
    for version in range(1, rounds + 1):
        await asyncio.gather(*(store.save(t, version, blob) for t in tables))
    return (time.process_time() - start) / (rounds * batch)


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
            print(f"redis_save_median_us: {us(statistics.median(redis))}")
            print(f"redis_save_p99_us: {us(redis[int(saves * 0.99)])}")
            print(f"redis_save_max_us: {us(redis[-1])}")
            for batch in (1, 2, 4, 8, 16, 32, 64):
                cpu = await cpu_per_save(store, blob, batch, saves)
                print(f"redis_cpu_per_save_us_batch_{batch}: {us(cpu)}")
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=5000, help="timed saves per store")
    asyncio.run(run(parser.parse_args().saves))


if __name__ == "__main__":
    main()

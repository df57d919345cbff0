"""Benchmark: one table over real WebSockets — bytes per patch vs snapshot,
and action-to-broadcast latency.

One human (this script) and three bots play whole games against an
in-process server (memory store, bots answering at once). For every message
the human receives it records the encoded size; for every move it sends, the
time until the patch showing that move arrives. Prints ``name: value`` lines.

    python bench/table.py [--games 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clients.session import Session
from protocol.codec import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from protocol.messages import CreateTable, Seated, StartGame, TablePatch, TableSnapshot
from protocol.views import TableView
from server.base import metrics
from tests.support.clients import choose, wants_decision
from tests.support.servers import FAST, running, url


async def play_games(games: int, subprotocol: str) -> None:
    patch_bytes: list[int] = []
    snapshot_bytes: list[int] = []
    latencies: list[float] = []
    async with running(FAST) as server:
        s = await Session.open(url(server), "Bench", subprotocol=subprotocol)
        codec = s.codec

        # Sizes are measured by re-encoding what arrives with the same codec;
        # for each patch, also the snapshot of the view it produced: what the
        # server would have sent without diffs.
        def on_change(msg: object) -> None:
            if isinstance(msg, TablePatch) and s.table is not None:
                patch_bytes.append(len(codec.encode(msg)))
                snapshot = TableSnapshot(seq=msg.seq, view=s.table)
                snapshot_bytes.append(len(codec.encode(snapshot)))

        s.on_change = on_change

        # A decision (or the end) after the patch numbered ``seq``.
        def decision_after(seq: int) -> Callable[[TableView], bool]:
            return lambda v: v.status == "finished" or (s.table_seq > seq and wants_decision(v))

        def moved_past(seq: int) -> Callable[[TableView], bool]:
            return lambda v: s.table_seq > seq

        rng = random.Random(1)
        for g in range(games):
            await s.send(CreateTable(name=f"bench {g}", seed=f"bench-{g}"))
            await s.wait_for(Seated)
            await s.wait_view(lambda v: v.status == "waiting")
            await s.send(StartGame())
            acted = -1
            while True:
                view = await s.wait_view(decision_after(acted), timeout=60)
                if view.status == "finished":
                    break
                acted = s.table_seq
                t0 = time.perf_counter()
                await s.send(choose(view, rng))
                await s.wait_view(moved_past(acted), timeout=10)
                latencies.append(time.perf_counter() - t0)
            from protocol.messages import Leave

            await s.send(Leave())
            await asyncio.sleep(0.05)
        await s.close()
    latencies.sort()
    name = "msgpack" if subprotocol == SUBPROTOCOL_MSGPACK else "json"
    print(f"encoding: {name}")
    print(f"games: {games}")
    print(f"patches: {len(patch_bytes)}")
    print(f"patch_bytes_mean: {statistics.mean(patch_bytes):.0f}")
    print(f"patch_bytes_median: {statistics.median(patch_bytes):.0f}")
    print(f"snapshot_bytes_mean: {statistics.mean(snapshot_bytes):.0f}")
    print(f"snapshot_bytes_max: {max(snapshot_bytes)}")
    print(f"bytes_per_game_with_patches: {sum(patch_bytes) / games:.0f}")
    print(f"bytes_per_game_if_snapshots: {sum(snapshot_bytes) / games:.0f}")
    print(f"moves: {len(latencies)}")
    print(f"move_to_update_median_ms: {statistics.median(latencies) * 1e3:.2f}")
    print(f"move_to_update_p99_ms: {latencies[int(len(latencies) * 0.99)] * 1e3:.2f}")
    hist = metrics.ACTION_LATENCY
    print(f"server_action_to_broadcast_mean_us: {hist.sum / hist.count * 1e6:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="use the JSON subprotocol")
    args = parser.parse_args()
    asyncio.run(play_games(args.games, SUBPROTOCOL_JSON if args.json else SUBPROTOCOL_MSGPACK))


if __name__ == "__main__":
    main()

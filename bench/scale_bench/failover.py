"""``--mode failover``: one process killed (kill -9) and started again, in
turn; per kill, how soon the tables whose lease changed hands move again,
and the acknowledged moves lost."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path
from typing import Any

from bench.load_bench.table_clients import PERF
from bench.scale_bench.measure import measure
from bench.scale_bench.server_group import NoCluster, ScaleRun, probe_cluster


def leases(url: str) -> dict[str, str]:
    """``atout:lease:{table}`` -> the owning process, as Redis holds them now."""
    import redis

    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        keys = list(client.scan_iter("atout:lease:*", count=1000))
        values: list[Any] = client.mget(keys) if keys else []  # str: decode_responses
        return {
            k.removeprefix("atout:lease:"): v
            for k, v in zip(keys, values, strict=True)
            if v is not None
        }
    finally:
        client.close()


async def failover(args: argparse.Namespace, tmp: Path, results: list[dict[str, Any]]) -> None:
    if "--grace" not in args.server_args:
        args.server_args += " --grace 0"
    run = ScaleRun(args, tmp, args.processes, "spread")
    try:
        await run.start()
        await probe_cluster(run)
        await measure(args, run)  # seats and plays the tables; a window before any kill
        assert run.redis is not None
        waits: list[float] = []
        stuck = 0
        lost_before = 0
        for k in range(args.kills):
            victim = k % run.processes
            before = leases(run.redis.url)
            if not before:
                raise NoCluster("Redis holds no lease (atout:lease:*) while tables play")
            server = run.servers[victim]
            assert server is not None
            at = PERF()
            server.kill()
            await server.wait()
            await run.start_server(victim)
            await asyncio.sleep(args.settle)
            after = leases(run.redis.url)
            moved = {t for t, owner in before.items() if after.get(t) != owner}
            replies = await run.ask_all({"cmd": "since", "at": at}, 30)
            seen = {tid: (first, back) for r in replies for tid, first, back in r["tables"]}
            for r in replies:
                for tid, when, idx, best, now, seq in r.get("back", []):
                    print(
                        f"#   view went back: table {tid} client {idx} at +{when - at:.2f} s:"
                        f" best seen {best} -> {now} (seq {seq})",
                        flush=True,
                    )
            errors: dict[str, int] = {}
            for r in replies:
                for code, n in r.get("errors", {}).items():
                    errors[code] = errors.get(code, 0) + n
            print(f"#   client errors so far: {errors}", flush=True)
            times = [seen[t][0] - at for t in moved if t in seen and seen[t][0] is not None]
            stuck_now = sum(1 for t in moved if t in seen and seen[t][0] is None)
            lost = sum(back for _, back in seen.values())
            waits += times
            stuck += stuck_now
            row = {
                "kill": k + 1,
                "victim": victim,
                "tables_moved": len(moved),
                "median_s": round(statistics.median(times), 2) if times else None,
                "max_s": round(max(times), 2) if times else None,
                "no_move_within_settle": stuck_now,
                "views_gone_back": lost - lost_before,
            }
            lost_before = lost
            results.append(row)
            print(f"# kill {k + 1}: {json.dumps(row)}", flush=True)
        summary = {
            "mode": "failover",
            "kills": args.kills,
            "tables": args.tables,
            "median_s": round(statistics.median(waits), 2) if waits else None,
            "max_s": round(max(waits), 2) if waits else None,
            "tables_with_no_move_within_settle": stuck,
            "acknowledged_moves_lost": lost_before,
        }
        results.append(summary)
        print(f"# failover: {json.dumps(summary)}", flush=True)
    finally:
        await run.stop()

"""One measured window of a scale run: load.py's figures summed over the
server processes, with CPU split into user and system, context switches and
Redis calls per move."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from bench.common.procfs import proc_counts, proc_cpu, proc_rss
from bench.load_bench.profiling import profile_done, profile_window
from bench.load_bench.report import row_text
from bench.load_bench.stats import summarize
from bench.load_bench.table_clients import PERF
from bench.scale_bench.profiles import profile_path
from bench.scale_bench.server_group import ScaleRun


def redis_calls(url: str) -> dict[str, int]:
    """Redis's command counts so far (INFO commandstats): calls per command."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}
    finally:
        client.close()


def served_by_first(run: ScaleRun, replies: list[dict[str, Any]]) -> int:
    """Moves whose table the first server runs: in (a) client process i talks
    to server i mod N, so those of client processes 0, N, 2N..."""
    if run.processes == 1:
        return sum(len(r["latencies_ms"]) for r in replies)
    return sum(len(r["latencies_ms"]) for i, r in enumerate(replies) if i % run.processes == 0)


async def measure(args: argparse.Namespace, run: ScaleRun) -> dict[str, Any]:
    """Seat ``--tables`` tables, play, measure one window: load.py's figures."""
    await run.seat_and_play(
        args.tables,
        args.warmup,
        lambda a: (
            f"# {run.label}: {a['joined']} tables seated in {a['seconds']:.1f}s"
            f" ({a['failed']} failed)"
        ),
    )
    profiler = None
    if getattr(args, "profile", "") and args.mode != "failover":
        profiler = await profile_window(
            run, args.measure, profile_path(args.profile, run.processes)
        )
    each0 = [proc_cpu(pid) for pid in run.pids()]
    counts0 = [proc_counts(pid) for pid in run.pids()]
    assert run.redis is not None
    calls0 = redis_calls(run.redis.url)
    cpu0, rcpu0, t0 = run.cpu(), run.redis_cpu(), PERF()
    await run.ask_all({"cmd": "measure_start"}, 30)
    await asyncio.sleep(args.measure)
    cpu1, rcpu1, t1 = run.cpu(), run.redis_cpu(), PERF()
    each1 = [proc_cpu(pid) for pid in run.pids()]
    counts1 = [proc_counts(pid) for pid in run.pids()]
    calls1 = redis_calls(run.redis.url)
    replies = await run.ask_all({"cmd": "measure_stop", "grace": args.grace}, 60)
    r = summarize(run, args.tables, replies, cpu1 - cpu0, rcpu1 - rcpu0, t1 - t0)
    r["processes"] = run.processes
    r["placement"] = run.placement
    r["server_rss_mb"] = round(sum(proc_rss(pid) for pid in run.pids()) / 2**20, 1)
    r["server_cpu_s_each"] = [round(b - a, 2) for a, b in zip(each0, each1, strict=False)]
    r["moves_first_server"] = served_by_first(run, replies)
    print(row_text(r), flush=True)
    print(f"#   server CPU s per process: {r['server_cpu_s_each']}", flush=True)
    if r["moves"]:
        per_move = [
            sum(b[k] - a[k] for a, b in zip(counts0, counts1, strict=False)) / r["moves"]
            for k in range(4)
        ]
        r["server_user_us_per_move"] = round(1e6 * per_move[0], 1)
        r["server_sys_us_per_move"] = round(1e6 * per_move[1], 1)
        r["server_switches_per_move"] = round(per_move[2] + per_move[3], 2)
        r["server_involuntary_per_move"] = round(per_move[3], 2)
        r["redis_calls_per_move"] = {
            k: round((n - calls0.get(k, 0)) / r["moves"], 3)
            for k, n in sorted(calls1.items())
            if (n - calls0.get(k, 0)) / r["moves"] >= 0.001
        }
        print(
            f"#   per move, all servers: user {r['server_user_us_per_move']} us,"
            f" system {r['server_sys_us_per_move']} us, context switches"
            f" {r['server_switches_per_move']} ({r['server_involuntary_per_move']} involuntary);"
            f" redis calls {r['redis_calls_per_move']}",
            flush=True,
        )
    if profiler is not None:
        await profile_done(profiler)
        r["profile"] = profile_path(args.profile, run.processes)
        print(f"# profile of the first server written to {r['profile']}", file=sys.stderr)
    if r["errors"]:
        print(f"#   errors: {r['errors']}", file=sys.stderr, flush=True)
    print(f"#   redis-server CPU: {r['redis_cpu_pct']}% of a core", flush=True)
    return r

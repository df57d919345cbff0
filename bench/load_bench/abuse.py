"""``--abuse IDLE,STALLED``: the server's memory and the tables' latency
while idle connections wait and non-readers watch busy tables."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections import Counter
from typing import Any

from bench.common.host import load_average
from bench.common.procfs import proc_rss, proc_wait
from bench.load_bench.gc_log import gc_pauses
from bench.load_bench.report import print_window_notes, row_text
from bench.load_bench.server_run import Run, http_get_json
from bench.load_bench.stats import percentile, slowest_moves, summarize
from bench.load_bench.table_clients import PERF


async def abuse(args: argparse.Namespace, run: Run, results: list[dict[str, Any]]) -> None:
    """``--abuse IDLE,STALLED``: the server's RSS and the tables' latency while
    IDLE connections say hello and stay idle (reading what the lobby sends),
    then while STALLED connections watch busy tables and stop reading.

    The last of ``--steps`` tables play throughout; the non-readers watch half
    of them (the busy tables), so the others' p99 is the figure of the issue
    and the busy tables' own p99 comes apart. Windows: tables alone, with the
    idle connections, with the non-readers too (``--stall-time`` seconds, the
    server's RSS sampled twice a second); then how the non-readers ended (the
    server's ``client_too_slow`` drops) and the RSS once they are gone.
    """
    idle_n, stall_n = (int(x) for x in args.abuse.split(","))
    tables = int(args.steps.split(",")[-1])
    # The idle connections and the non-readers live in workers of their own:
    # in the table clients' processes, 5,000 lobby patches arriving at once
    # held the clients' loop and showed as the server's latency.
    run.table_workers = args.workers
    await run.start(workers=args.workers + args.abuse_workers)
    n_abuse = args.abuse_workers

    def split(count: int) -> list[int]:
        return [count // n_abuse + (1 if i < count % n_abuse else 0) for i in range(n_abuse)]

    added = await run.seat_and_play(
        tables,
        args.warmup,
        lambda a: f"# abuse: {a['joined']} tables seated ({a['failed']} failed)",
    )
    peak = [0]

    async def sample() -> None:
        while True:
            peak[0] = max(peak[0], proc_rss(run.pid))
            await asyncio.sleep(0.5)

    async def window(label: str, seconds: float) -> dict[str, Any]:
        peak[0] = 0
        sampler = asyncio.get_running_loop().create_task(sample())
        cpu0, t0, wait0 = run.cpu(), PERF(), proc_wait(run.pid)
        await run.ask_all({"cmd": "measure_start"}, 30)
        await asyncio.sleep(seconds)
        cpu1, t1, wait1 = run.cpu(), PERF(), proc_wait(run.pid)
        replies = await run.ask_all({"cmd": "measure_stop", "grace": args.grace}, 60)
        sampler.cancel()
        r = summarize(run, tables, replies, cpu1 - cpu0, 0.0, t1 - t0)
        busy = sorted(x for rep in replies for x in rep["busy_latencies_ms"])
        r["phase"] = label
        r["server_cpu_wait_pct"] = round(100 * (wait1 - wait0) / (t1 - t0), 1)
        r["server_rss_peak_mb"] = round(peak[0] / 2**20, 1)
        r["busy_moves"] = len(busy)
        r["busy_p99_ms"] = round(percentile(busy, 0.99), 2) if busy else None
        r["busy_max_ms"] = round(busy[-1], 2) if busy else None
        pauses: list[list[float]] = []
        if run.gc_log is not None:
            r["gc"] = gc_pauses(run.gc_log, t0, t1 + args.grace)
            pauses = r["gc"].pop("pauses", [])
        r["slowest"] = slowest_moves(replies, t0, pauses)
        results.append(r)
        print(f"# {label}", flush=True)
        print(row_text(r), flush=True)
        if busy:
            print(
                f"#   busy tables (watched by non-readers): {len(busy)} moves, "
                f"p99 {r['busy_p99_ms']} ms, max {r['busy_max_ms']} ms",
                flush=True,
            )
        print(
            f"#   server RSS peak in the window {r['server_rss_peak_mb']} MB; the server waited"
            f" for its core {r['server_cpu_wait_pct']}% of the window",
            flush=True,
        )
        print_window_notes(r, 8)
        return r

    async def spread(cmd: str, n: int, **extra: Any) -> tuple[list[dict[str, Any]], int, float]:
        """Have the workers open ``n`` connections of a kind (``cmd``) between
        them: their replies, how many opened, and the seconds it took."""
        t0 = PERF()
        replies = await run.ask(
            [{"cmd": cmd, "n": k, **extra} for k in split(n)], 120 + n, first=args.workers
        )
        return replies, sum(r[f"{cmd}_open"] for r in replies), PERF() - t0

    def too_slow() -> int:
        path = run.tmp / f"server-{run.label.replace('/', '-')}.log"
        return path.read_text(errors="replace").count("client_too_slow")

    rss_base = proc_rss(run.pid)
    base = await window(f"{tables} tables playing", args.measure)
    opened, idle_open, took = await spread("idle", idle_n)
    print(
        f"# +{idle_open} idle connections in {took:.1f}s (failed: {[r['failed'] for r in opened]})",
        file=sys.stderr,
        flush=True,
    )
    await asyncio.sleep(5)
    rss_idle = proc_rss(run.pid)
    with_idle = await window(f"+ {idle_open} idle connections", args.measure)
    t0 = PERF()  # the non-readers' clock: opened, then gone (below)
    codes = [c for r in await run.ask_all({"cmd": "busy"}, 30) for c in r["codes"]]
    stalled, stall_open, _ = await spread("stall", stall_n, asks=args.stall_asks, codes=codes)
    print(
        f"# +{stall_open} non-readers at {max(r['busy_tables'] for r in stalled)} busy tables "
        f"in {PERF() - t0:.1f}s (failed: {[r['failed'] for r in stalled]})",
        file=sys.stderr,
        flush=True,
    )
    rss_stall0 = proc_rss(run.pid)
    with_stall = await window(
        f"+ {stall_open} non-readers ({args.stall_asks} snapshot asks/s each)", args.stall_time
    )
    # Gone as the server sees it: a non-reader that asks nothing never
    # reads the close, so its own side cannot tell.
    others = 4 * added["joined"] + idle_open
    left = stall_open
    deadline = PERF() + 120
    while PERF() < deadline:
        with contextlib.suppress(Exception):
            left = (await http_get_json(run.port, "/healthz"))["connections"] - others
        if left <= 0:
            break
        await asyncio.sleep(2)
    gone_after = round(PERF() - t0, 1)
    status = await run.ask([{"cmd": "status"}] * n_abuse, 30, first=args.workers)
    await asyncio.sleep(3)
    rss_after = proc_rss(run.pid)
    failed: Counter[str] = Counter()
    for r in status:
        failed.update(r["stall_failed"])
    r = {
        "abuse": True,
        "tables": tables,
        "idle_connections": idle_open,
        "non_readers": stall_open,
        "stall_asks_per_s": args.stall_asks,
        "rss_base_mb": round(rss_base / 2**20, 1),
        "rss_idle_mb": round(rss_idle / 2**20, 1),
        "kib_per_idle_connection": round((rss_idle - rss_base) / max(idle_open, 1) / 1024, 1),
        "rss_non_readers_start_mb": round(rss_stall0 / 2**20, 1),
        "rss_non_readers_peak_mb": with_stall["server_rss_peak_mb"],
        "rss_after_non_readers_gone_mb": round(rss_after / 2**20, 1),
        "non_readers_still_open": max(left, 0),
        "non_readers_gone_after_s": gone_after,
        "non_readers_dropped_too_slow": too_slow(),
        "non_reader_ends": dict(failed),
        "snapshot_asks_sent": sum(r["stall_asks"] for r in status),
        "p99_ms": [base["p99_ms"], with_idle["p99_ms"], with_stall["p99_ms"]],
        "busy_p99_ms": with_stall["busy_p99_ms"],
        "load_avg": load_average(),
    }
    results.append(r)
    print("# abuse: " + json.dumps(r), flush=True)

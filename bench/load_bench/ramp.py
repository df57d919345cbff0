"""The ramp: tables added step by step on one server, each step warmed up
then measured, a row printed per step, until the last or past ``--give-up-ms``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from pathlib import Path
from typing import Any

from bench.common.procfs import proc_times, proc_wait
from bench.load_bench.gc_log import gc_pauses, stalls_in
from bench.load_bench.profiling import (
    callgrind_control,
    callgrind_window,
    hot_spots,
    profile_done,
    profile_window,
)
from bench.load_bench.redis_aof import aof_window_start, aof_window_stop
from bench.load_bench.report import print_window_notes, row_text
from bench.load_bench.server_run import Run, http_get_json
from bench.load_bench.stats import slowest_moves, summarize
from bench.load_bench.table_clients import PERF


async def ramp(args: argparse.Namespace, run: Run, results: list[dict[str, Any]]) -> None:
    steps = [int(s) for s in args.steps.split(",")]
    await run.start()
    total = 0
    for i, tables in enumerate(steps):
        await run.seat_and_play(
            tables - total,
            args.warmup,
            lambda a: (
                f"# {run.label}: +{a['joined']} tables seated in {a['seconds']:.1f}s"
                f" ({a['failed']} failed)"
            ),
        )
        total = tables
        profiler = None
        if args.profile and i == len(steps) - 1 and run.target == "ours":
            profiler = await profile_window(run, args.measure, args.profile)
        if run.callgrind_out is not None:
            await callgrind_control(run.pid, "--instr=on")
        aof0 = await aof_window_start(run)
        (user0, kernel0), rcpu0, t0 = proc_times(run.pid), run.redis_cpu(), PERF()
        wait0 = proc_wait(run.pid)
        await run.ask_all({"cmd": "measure_start"}, 30)
        await asyncio.sleep(args.measure)
        (user1, kernel1), rcpu1, t1 = proc_times(run.pid), run.redis_cpu(), PERF()
        wait1 = proc_wait(run.pid)
        aof = await aof_window_stop(run, aof0, t1 - t0)
        counted = None  # callgrind's events in the window
        if run.callgrind_out is not None:
            counted = await callgrind_window(run.pid, run.callgrind_out)
        replies = await run.ask_all({"cmd": "measure_stop", "grace": args.grace}, 60)
        cpu = user1 + kernel1 - user0 - kernel0
        r = summarize(run, tables, replies, cpu, rcpu1 - rcpu0, t1 - t0)
        r["server_cpu_wait_pct"] = round(100 * (wait1 - wait0) / (t1 - t0), 1)
        if r["moves"]:
            # User space against the kernel's share (mostly socket writes and
            # reads): instruction counts see only the first.
            r["server_user_us_per_move"] = round(1e6 * (user1 - user0) / r["moves"], 1)
            r["server_kernel_us_per_move"] = round(1e6 * (kernel1 - kernel0) / r["moves"], 1)
        r["window_start"] = time.strftime("%H:%M:%S", time.gmtime(time.time() - (PERF() - t0)))
        if aof is not None:
            r["redis_aof"] = aof
            if r["moves"] and aof["bytes"] is not None:
                aof["bytes_per_move"] = round(aof["bytes"] / r["moves"])
        if counted is not None and r["moves"]:
            r["server_instructions_per_move"] = round(counted["Ir"] / r["moves"])
            if "DLmr" in counted:  # --cache-sim
                r["server_ll_misses_per_move"] = [
                    round(counted[e] / r["moves"], 1) for e in ("DLmr", "DLmw")
                ]
        pauses: list[list[float]] = []
        if run.gc_log is not None:
            r["gc"] = gc_pauses(run.gc_log, t0, t1 + args.grace)
            pauses = r["gc"].pop("pauses", [])
            if args.stall_log:
                r["stalls"] = stalls_in(Path(f"{run.gc_log}.stalls"), t0, t1 + args.grace)
        r["slowest"] = slowest_moves(replies, t0, pauses)
        if run.target == "ours":
            with contextlib.suppress(Exception):
                health = await http_get_json(run.port, "/healthz")
                r["server_connections"] = health["connections"]
                r["server_tables"] = health["tables"]
        results.append(r)
        print(row_text(r), flush=True)
        print_window_notes(r, 12)
        print(
            f"#   server waited for its core {r['server_cpu_wait_pct']}% of the window"
            f" (other processes on it); the window began at {r['window_start']} UTC",
            flush=True,
        )
        if "server_user_us_per_move" in r:
            print(
                f"#   server CPU per move: user {r['server_user_us_per_move']:.0f} us,"
                f" kernel {r['server_kernel_us_per_move']:.0f} us",
                flush=True,
            )
        if r.get("redis_cpu_pct") is not None:
            print(f"#   redis-server CPU: {r['redis_cpu_pct']}% of a core", flush=True)
        if (aof := r.get("redis_aof")) is not None:
            print(
                f"#   redis AOF appendfsync {aof['appendfsync']}: "
                + (f"{n} fsyncs/s (perf)," if (n := aof["fsyncs_per_s"]) is not None else "")
                + f" {aof.get('bytes_per_move', '-')} AOF bytes per move, delayed fsyncs"
                f" {aof['delayed_fsyncs']}, AOF rewrites {aof['rewrites']}, RDB saves"
                f" {aof['rdb_saves']}",
                flush=True,
            )
        if r.get("server_instructions_per_move") is not None:
            print(
                f"#   server instructions per move (callgrind, the window):"
                f" {r['server_instructions_per_move']:,}",
                flush=True,
            )
        if (misses := r.get("server_ll_misses_per_move")) is not None:
            print(
                f"#   server last-level data misses per move (callgrind --cache-sim, 1 MiB):"
                f" {misses[0]:,} reads, {misses[1]:,} writes",
                flush=True,
            )
        if profiler is not None:
            await profile_done(profiler)
            if args.profile.endswith((".svg", ".json")):
                print(f"# profile written to {args.profile}", file=sys.stderr)
            else:
                print(hot_spots(args.profile), file=sys.stderr, flush=True)
        if r["p99_ms"] > args.give_up_ms:
            print(
                f"# {run.label}: p99 {r['p99_ms']:.0f} ms > {args.give_up_ms:.0f} ms: "
                "saturated, stopping this ramp",
                file=sys.stderr,
                flush=True,
            )
            break

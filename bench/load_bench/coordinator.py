"""The coordinator of a load run: the plan (idle memory, ramps of ours and
bare, rounds interleaved, or abuse), then the ratios of CPU per move to bare,
each Redis AOF mode against none, and the knee of each ramp."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common.host import code_version, compiled_in, interpreter, load_average
from bench.load_bench.abuse import abuse
from bench.load_bench.idle import idle_memory
from bench.load_bench.ramp import ramp
from bench.load_bench.report import HEADER
from bench.load_bench.server_run import Run


async def coordinate(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="atout-load-"))
    print(
        f"# pace {args.pace}/s per table, first moves spread over "
        f"{max(args.spread, 1 / args.pace)} s, server cores {sorted(args.server_cores)}, "
        f"client cores {sorted(args.client_cores)} x {args.workers} workers, nice {args.nice}, "
        f"load average {load_average()}, logs in {tmp}",
        file=sys.stderr,
        flush=True,
    )
    version = code_version(args.server_root)
    compiled = compiled_in(args.server_root)
    print(f"# server code: {args.server_root} at {version}, {compiled}", flush=True)
    python = interpreter()
    print(f"# python: {python}", flush=True)
    results.append(
        {
            "meta": True,
            "server_root": args.server_root,
            "code": version,
            "compiled": compiled,
            "python": python,
            "args": {k: (sorted(v) if isinstance(v, set) else v) for k, v in vars(args).items()},
            "load_avg_start": load_average(),
            "cpus": os.cpu_count(),
        }
    )
    stores = ["memory", "redis"] if args.store == "both" else [args.store]
    if "redis" in stores:  # one Redis per --redis-aof mode, each a ramp of its own
        modes = [m for m in args.redis_aof.split(",") if m]
        stores = [s for s in stores if s != "redis"] + [
            "redis" if m == "off" else f"redis+aof-{m}" for m in modes
        ]
    plan: list[tuple[str, str, str]] = []
    if args.abuse:
        run = Run(args, "ours", stores[0], tmp)
        try:
            print(HEADER, flush=True)
            await abuse(args, run, results)
        finally:
            await run.stop()
        return
    if args.idle:
        plan += [("idle", "ours", s) for s in stores]
    if args.target in ("ours", "both"):
        plan += [("ramp", "ours", s) for s in stores]
    if args.target in ("bare", "both"):
        plan.append(("ramp", "bare", "-"))
    # Rounds repeat the ramps, interleaved (ours, then bare, then ours again):
    # on a shared or virtual machine the cost of the same work drifts by tens
    # of percent over minutes, and a ratio is only fair between neighbours.
    idles = [p for p in plan if p[0] == "idle"]
    ramps = [p for p in plan if p[0] == "ramp"]
    header_done = False
    for round_, (what, target, store) in [(0, p) for p in idles] + [
        (n, p) for n in range(args.rounds) for p in ramps
    ]:
        run = Run(args, target, store, tmp)
        before = len(results)
        try:
            if what == "idle":
                await idle_memory(args, run, results)
            else:
                if not header_done:
                    print(HEADER, flush=True)
                    header_done = True
                if args.rounds > 1:
                    print(f"# round {round_ + 1} of {args.rounds}", flush=True)
                await ramp(args, run, results)
        finally:
            await run.stop()
        for r in results[before:]:
            r["round"] = round_
    bare = [r for r in results if r.get("target") == "bare" and "moves" in r]
    ratios: dict[tuple[str, int], list[float]] = {}
    for r in results:
        if "moves" not in r:
            continue
        twin = [b for b in bare if b["tables"] == r["tables"] and b["round"] == r["round"]]
        if r.get("target") != "bare" and twin and twin[0]["server_us_per_move"]:
            r["cpu_ratio_vs_bare"] = round(
                r["server_us_per_move"] / twin[0]["server_us_per_move"], 2
            )
            ratios.setdefault((r["target"], r["tables"]), []).append(r["cpu_ratio_vs_bare"])
            print(
                f"# {r['target']} at {r['tables']} tables"
                + (f" (round {r['round'] + 1})" if args.rounds > 1 else "")
                + f": {r['server_us_per_move']:.0f} us/move"
                f" vs bare {twin[0]['server_us_per_move']:.0f} us/move -> ratio "
                f"{r['cpu_ratio_vs_bare']:.1f}",
                flush=True,
            )
    if args.rounds > 1:
        for (label, tables), values in ratios.items():
            print(
                f"# {label} at {tables} tables, CPU ratio over {len(values)} rounds: "
                f"median {statistics.median(values):.2f}, worst {max(values):.2f}, "
                f"best {min(values):.2f}",
                flush=True,
            )
    # --redis-aof: each mode against the Redis without a file, same round and step.
    for r in results:
        if "redis_aof" not in r:
            continue
        twin = [
            o for o in results if o.get("target") == "ours/redis" and "moves" in o
            and o["tables"] == r["tables"] and o["round"] == r["round"]
        ]  # fmt: skip
        if twin and twin[0]["server_us_per_move"]:
            o = twin[0]
            print(
                f"# {r['target']} at {r['tables']} tables (round {r['round'] + 1}): "
                f"{r['server_us_per_move']:.0f} us/move, p99 {r['p99_ms']:.0f} ms, redis"
                f" {r['redis_cpu_pct']}% vs no AOF {o['server_us_per_move']:.0f} us/move,"
                f" p99 {o['p99_ms']:.0f} ms, redis {o['redis_cpu_pct']}% -> CPU ratio"
                f" {r['server_us_per_move'] / o['server_us_per_move']:.2f}",
                flush=True,
            )
    for label in sorted({r["target"] for r in results if "moves" in r}):
        knee = next(
            (r["tables"] for r in results if r.get("target") == label and "moves" in r
             and r["p99_ms"] > args.knee_ms),
            None,
        )  # fmt: skip
        print(
            f"# {label}: knee (p99 > {args.knee_ms:.0f} ms) "
            + (f"at {knee} tables" if knee else "not reached in this ramp"),
            flush=True,
        )

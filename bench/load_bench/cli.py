"""``python bench/load.py``'s command line: its options, then the client
process (``--worker``) or the coordinator, bounded by ``--max-time``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from bench.common.pinning import parse_cores, raise_nofile
from bench.load_bench.coordinator import coordinate
from bench.load_bench.server_run import ROOT
from bench.load_bench.worker import worker_main


def main(doc: str) -> None:
    """``doc``: bench/load.py's docstring, whose first line describes the command."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--steps", default="50,100,200,500,1000", help="tables at each step")
    parser.add_argument("--pace", type=float, default=1.0, help="moves per second per table")
    parser.add_argument(
        "--spread",
        type=float,
        default=0.0,
        help="seconds over which the tables' first moves are spread (0: within one move's"
        " period, so that their deals, ~80 moves, end within seconds of each other; one deal's"
        " length, 80 at one move a second, ends them apart as at a server whose tables began"
        " at different times)",
    )
    parser.add_argument("--measure", type=float, default=20.0, help="seconds measured per step")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds played before that")
    parser.add_argument("--grace", type=float, default=5.0, help="wait for late updates (s)")
    parser.add_argument("--store", choices=("memory", "redis", "both"), default="memory")
    parser.add_argument("--target", choices=("ours", "bare", "both"), default="ours")
    parser.add_argument(
        "--rounds", type=int, default=1, help="repeat the ramps, interleaved with bare"
    )
    parser.add_argument("--bare", action="store_true", help="same as --target bare")
    parser.add_argument("--idle", type=int, default=0, help="idle tables for the memory figures")
    parser.add_argument("--workers", type=int, default=2, help="client processes")
    parser.add_argument(
        "--abuse",
        default="",
        metavar="IDLE,STALLED",
        help="memory under abuse: idle connections, then non-readers at busy tables,"
        " while the last of --steps tables play (ours only)",
    )
    parser.add_argument(
        "--abuse-workers", type=int, default=2, help="--abuse: processes for the abuse clients"
    )
    parser.add_argument(
        "--stall-asks", type=float, default=1.0, help="--abuse: snapshots a non-reader asks per s"
    )
    parser.add_argument(
        "--stall-time", type=float, default=90.0, help="--abuse: seconds measured with non-readers"
    )
    parser.add_argument("--server-cores", default="0")
    parser.add_argument("--client-cores", default="", help="default: every other core")
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="nice value of the server, Redis and clients (negative needs root: on a shared"
        " machine, keeps other work from taking the measured cores)",
    )
    parser.add_argument("--redis-cores", default="", help="default: the client cores")
    parser.add_argument(
        "--redis-aof",
        default="off",
        help="the Redis's append-only file, as comma-separated modes each run as a ramp of its"
        " own (interleaved in --rounds): off (no file, the default), or an appendfsync value"
        " (always, as deploy/redis.conf ships; everysec; no), the file in its temp directory",
    )
    parser.add_argument("--connect-concurrency", type=int, default=32)
    parser.add_argument(
        "--server-root",
        default=str(ROOT),
        help="run the server from this copy of the project (e.g. a `git archive` export)",
    )
    parser.add_argument("--server-args", default="", help="more `atout-server serve` flags")
    parser.add_argument("--knee-ms", type=float, default=100.0)
    parser.add_argument(
        "--give-up-ms", type=float, default=3000.0, help="stop a ramp past this p99"
    )
    parser.add_argument("--profile", default="", help="py-spy the last step: .txt, .svg or .json")
    parser.add_argument(
        "--callgrind",
        default="",
        metavar="DIR",
        help="run the server under valgrind's callgrind (dumps in DIR) and print its instructions"
        " per move in each window: a measure of a change the machine's load does not move"
        " (use few tables: the server runs ~50x slower)",
    )
    parser.add_argument(
        "--cache-sim",
        action="store_true",
        help="with --callgrind: simulate the caches too (this VM's 1 MiB L2 as the last level)"
        " and print the last-level misses per move: a change's memory traffic, which the"
        " instruction count does not show",
    )
    parser.add_argument(
        "--gc-log", action="store_true", help="log the server's collector pauses per step"
    )
    parser.add_argument(
        "--gc-threshold",
        default="",
        help="experiment: override the server's gc thresholds (e.g. 700,10,10); implies --gc-log",
    )
    parser.add_argument(
        "--gc-freeze-every",
        type=float,
        default=0.0,
        help="experiment: the server calls gc.freeze() every this many seconds; implies --gc-log",
    )
    parser.add_argument(
        "--stall-log",
        type=float,
        default=0.0,
        metavar="MS",
        help="write the server's stack whenever its event loop ran nothing for MS ms"
        " (to the gc log's file + .stalls, in the logs folder); implies --gc-log",
    )
    parser.add_argument("--json", default="", help="also write every figure to this file")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--max-time", type=float, default=3600.0, help="hard stop (s)")
    # The client process's own flags.
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kind", default="ours", help=argparse.SUPPRESS)
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=2,
        help="the clients' protocol version (atout.v2.msgpack or atout.v1.msgpack)",
    )
    parser.add_argument("--url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--wid", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_nofile()
    if args.worker:
        worker_main(args)
        return
    if args.bare:
        args.target = "bare"
    args.server_cores = parse_cores(args.server_cores)
    args.redis_cores = parse_cores(args.redis_cores)
    if bad := set(args.redis_aof.split(",")) - {"off", "always", "everysec", "no"}:
        parser.error(f"--redis-aof: unknown mode {', '.join(sorted(bad))}")
    available = os.sched_getaffinity(0)
    args.client_cores = parse_cores(args.client_cores) or (available - args.server_cores)
    if not args.client_cores:
        args.client_cores = available
    os.sched_setaffinity(0, args.client_cores)  # the coordinator stays off the server's core

    results: list[dict[str, Any]] = []

    async def bounded() -> None:
        task = asyncio.get_running_loop().create_task(coordinate(args, results))
        done, _ = await asyncio.wait([task], timeout=args.max_time)
        if not done:
            task.cancel()  # its finally blocks stop the servers and workers
            with contextlib.suppress(asyncio.CancelledError):
                await task
            print(f"# stopped: --max-time {args.max_time:.0f}s reached", file=sys.stderr)
        else:
            task.result()

    try:
        asyncio.run(bounded())
    finally:
        if args.json and results:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")

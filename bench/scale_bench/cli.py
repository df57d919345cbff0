"""``python bench/scale.py``'s command line: its options, then the client
process (``--client``) or the comparison or failover, bounded by ``--max-time``."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common.host import code_version, load_average
from bench.common.pinning import parse_cores, raise_nofile
from bench.load_bench.server_run import ROOT
from bench.load_bench.worker import worker_main
from bench.scale_bench.compare import compare
from bench.scale_bench.failover import failover
from bench.scale_bench.failover_clients import FailoverWorker
from bench.scale_bench.server_group import NoCluster


async def coordinate(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="atout-scale-"))
    version = code_version(args.server_root)
    print(
        f"# mode {args.mode}, {args.processes} processes, {args.tables} tables at "
        f"{args.pace}/s, {args.workers} client processes, server cores "
        f"{sorted(args.server_cores)}, client cores {sorted(args.client_cores)}, "
        f"code {version}, load {load_average()}, logs in {tmp}",
        flush=True,
    )
    results.append({"meta": True, "code": version, "args": {
        k: (sorted(v) if isinstance(v, set) else v) for k, v in vars(args).items()}})  # fmt: skip
    if args.mode == "failover":
        await failover(args, tmp, results)
    else:
        await compare(args, tmp, results)


def main(doc: str) -> None:
    """``doc``: bench/scale.py's docstring, whose first line describes the command."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--mode", choices=("owner", "spread", "failover"), default="owner")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--pace", type=float, default=1.0, help="moves per second per table")
    parser.add_argument("--measure", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--grace", type=float, default=5.0, help="wait for late updates (s)")
    parser.add_argument("--workers", type=int, default=0, help="client processes (default: N)")
    parser.add_argument("--server-cores", default="", help="default: every core")
    parser.add_argument("--client-cores", default="", help="default: every core")
    parser.add_argument("--server-root", default=str(ROOT))
    parser.add_argument("--server-args", default="", help="more `atout-server serve` flags")
    parser.add_argument("--kills", type=int, default=10, help="failover: kill -9 this often")
    parser.add_argument(
        "--settle", type=float, default=15.0, help="failover: seconds after each kill"
    )
    parser.add_argument("--json", default="")
    parser.add_argument(
        "--profile", default="", help="py-spy the first server of each run: .txt, .svg or .json"
    )
    parser.add_argument("--seed", default="1")
    parser.add_argument("--max-time", type=float, default=1800.0, help="hard stop (s)")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--wid", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--connect-concurrency", type=int, default=32, help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_nofile()
    if args.client:
        args.kind = "ours"
        worker_main(args, FailoverWorker)
        return
    if args.processes < 2 and args.mode != "failover":
        parser.error("--processes: 2 or more (one process is the comparison)")
    available = os.sched_getaffinity(0)
    args.server_cores = parse_cores(args.server_cores) or available
    args.client_cores = parse_cores(args.client_cores) or available
    # A multiple of N client processes: in (a) each server gets the same load.
    args.workers = args.workers or args.processes
    results: list[dict[str, Any]] = []

    async def bounded() -> None:
        try:
            await asyncio.wait_for(coordinate(args, results), args.max_time)
        except TimeoutError:
            print(f"# stopped: --max-time {args.max_time:.0f}s reached", file=sys.stderr)

    try:
        asyncio.run(bounded())
    except NoCluster as exc:
        sys.exit(str(exc))
    finally:
        if args.json and results:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")

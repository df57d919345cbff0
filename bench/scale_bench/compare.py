"""``--mode owner`` and ``--mode spread``: N processes against one, at the
same tables and pace, in one run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench.load_bench.report import HEADER
from bench.scale_bench.measure import measure
from bench.scale_bench.profiles import compare_profiles
from bench.scale_bench.server_group import ScaleRun, probe_cluster


async def compare(args: argparse.Namespace, tmp: Path, results: list[dict[str, Any]]) -> None:
    placement = args.mode
    print(HEADER, flush=True)
    figures: dict[int, dict[str, Any]] = {}
    for processes in (args.processes, 1):  # N first: spread's probe fails at once
        run = ScaleRun(args, tmp, processes, placement)
        try:
            await run.start()
            if placement == "spread" and processes > 1:
                await probe_cluster(run)
            figures[processes] = await measure(args, run)
            results.append(figures[processes])
        finally:
            await run.stop()
    one, many = figures[1], figures[args.processes]
    ratio = many["server_us_per_move"] / one["server_us_per_move"]
    print(
        f"# {placement}: server CPU per move, {args.processes} processes "
        f"{many['server_us_per_move']:.0f} us vs 1 process {one['server_us_per_move']:.0f} us "
        f"-> ratio {ratio:.2f}; p99 {many['p99_ms']:.1f} ms vs {one['p99_ms']:.1f} ms",
        flush=True,
    )
    results.append({"mode": placement, "cpu_ratio": round(ratio, 2)})
    if "profile" in many and "profile" in one and not args.profile.endswith((".svg", ".json")):
        print(
            compare_profiles(
                (many["profile"], many["moves_first_server"], many["server_cpu_s_each"][0]),
                (one["profile"], one["moves_first_server"], one["server_cpu_s_each"][0]),
            ),
            flush=True,
        )

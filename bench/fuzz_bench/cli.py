"""``python bench/fuzz.py``'s command line: the campaign, the engine, the
report (printed, and written with ``--json``); exit 1 on any failure."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from bench.common.json_report import print_json
from bench.fuzz_bench.atheris_engine import run_frames_atheris
from bench.fuzz_bench.core import run_core
from bench.fuzz_bench.frames import FrameCampaign, run_frames_random
from bench.fuzz_bench.tables import run_tables
from bench.fuzz_bench.tally import Tally


def main(doc: str) -> None:
    """``doc``: bench/fuzz.py's docstring, whose first paragraph describes the command."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("campaign", choices=["frames", "tables", "core"])
    parser.add_argument(
        "--runs", type=int, default=10_000, help="inputs (frames) or steps (tables)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=["atheris", "random"], default="random")
    parser.add_argument("--steps", type=int, default=300, help="tables: steps per episode")
    parser.add_argument("--max-time", type=float, default=24 * 3600.0, help="seconds")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--stop-on-failure", action="store_true")
    parser.add_argument("--replay", help="frames: check one input given in hex, then exit")
    args, extra = parser.parse_known_args()

    if args.campaign == "frames" and args.engine == "atheris" and not args.replay:
        run_frames_atheris(args.runs, args.json, extra)
        return
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    if args.replay:

        async def replay() -> Tally:
            tally = Tally()
            campaign = FrameCampaign(tally)
            try:
                await campaign.one(bytes.fromhex(args.replay))
            finally:
                await campaign.stop()
            return tally

        tally = runner(replay())
    elif args.campaign == "frames":
        tally = runner(run_frames_random(args.runs, args.seed, args.max_time, args.stop_on_failure))
    else:
        run = run_core if args.campaign == "core" else run_tables
        tally = runner(run(args.runs, args.seed, args.steps, args.max_time, args.stop_on_failure))
    report = tally.report() | {
        "campaign": args.campaign,
        "engine": "random" if args.campaign != "frames" else args.engine,
        "seed": args.seed,
    }
    print_json(report, args.json)
    sys.exit(1 if report["failures"] else 0)

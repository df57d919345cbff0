"""``python bench/chaos.py``'s command line: its options, the campaign, the
report (printed, and written with ``--json``)."""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.chaos_bench.campaign import Chaos
from bench.chaos_bench.figures import summary
from bench.common.json_report import print_json


def main(doc: str) -> None:
    """``doc``: bench/chaos.py's docstring, whose first paragraph describes the command."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--redis-kills", type=int, default=5)
    parser.add_argument("--bot-think", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    chaos = Chaos(args)
    started = time.monotonic()
    figures = asyncio.run(chaos.run())
    report = summary(figures, time.monotonic() - started) | {"notes": chaos.notes[:20]}
    print_json(report, args.json)

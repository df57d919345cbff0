"""Duplicate tournament between bot levels, and strong's decision times.

Luck is cancelled the duplicate way: every seeded deal (a *board*) is played
twice on the same cards, first with bot A at seats 0 and 2 and bot B at
seats 1 and 3, then the other way round. A board's figure is A's total over
its four seat-plays divided by 4 (A's mean score per seat), and the margin
is A's mean per seat per board minus B's (twice that, since the scores of a
deal sum to zero). The 95% interval is mean ± 1.96 standard errors over
boards. Boards annulled by a petit sec (before anyone speaks) are skipped;
four passes score 0 and count.

    nice python bench/bots.py --pairings easy:random normal:easy --boards 2000
    nice python bench/bots.py --pairings strong:normal --boards 2000 --budget 0.03
    nice python bench/bots.py --timing 40           # strong at its default budget
    nice python bench/bots.py --calibrate 1500      # where each contract pays

Prints one block per pairing; ``--json FILE`` also writes the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.messages import GameCommand
from protocol.views import TableView
from server.bots import DEFAULT_BUDGET_S, Bot, make_bot
from server.bots.evaluation import hand_strength
from server.game import Game, ScoredDeal
from server.game.contracts import GARDE, GARDE_CONTRE, GARDE_SANS, PASS, PRISE
from tests.support.bots import play_deal

SEAT_SETS = ((0, 2), (1, 3))


def play_board(task: tuple[str, str, str, int, float]) -> dict[str, Any] | None:
    """Both rotations of one board; ``None`` for a petit sec."""
    level_a, level_b, seed, board, budget = task
    a_total = 0
    takes: list[tuple[str, bool, str]] = []
    passes = 0
    for rotation, a_seats in enumerate(SEAT_SETS):
        game = Game(deals=1, seed=f"{seed}/{board}", first_dealer=board % 4)
        if game.deal.phase == "annulled":
            return None
        levels = [level_a if s in a_seats else level_b for s in range(4)]
        bots = [
            make_bot(levels[s], f"{seed}/{board}/{rotation}/{s}", budget_s=budget) for s in range(4)
        ]
        result = play_deal(game, bots)
        a_total += sum(result.scores[s] for s in a_seats)
        if isinstance(result, ScoredDeal):
            takes.append((levels[result.taker], result.made, result.contract))
        else:
            passes += 1
    return {"a": a_total / 4, "takes": takes, "passes": passes}


def _nice() -> None:
    # The machine is shared: stay behind interactive work.
    os.nice(10)


def run_pairing(
    level_a: str, level_b: str, boards: int, seed: str, budget: float, procs: int
) -> dict[str, Any]:
    tasks = [(level_a, level_b, seed, b, budget) for b in range(boards)]
    per_board: list[float] = []
    takes: dict[str, list[int]] = {level_a: [0, 0], level_b: [0, 0]}
    contracts: dict[str, int] = {}
    passes = skipped = 0
    start = time.time()
    with multiprocessing.Pool(procs, initializer=_nice) as pool:
        for i, out in enumerate(pool.imap_unordered(play_board, tasks, chunksize=4)):
            if out is None:
                skipped += 1
                continue
            per_board.append(out["a"])
            passes += out["passes"]
            for level, made, contract in out["takes"]:
                takes[level][0] += 1
                takes[level][1] += made
                contracts[contract] = contracts.get(contract, 0) + 1
            if (i + 1) % 200 == 0:
                print(
                    f"  {level_a} vs {level_b}: {i + 1}/{boards} boards, "
                    f"{time.time() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    n = len(per_board)
    mean = statistics.fmean(per_board)
    half = 1.96 * statistics.stdev(per_board) / math.sqrt(n)
    return {
        "a": level_a,
        "b": level_b,
        "boards": n,
        "petit_sec_skipped": skipped,
        "four_passes": passes,
        "a_per_seat": mean,
        "a_per_seat_ci": half,
        "margin": 2 * mean,
        "margin_ci": 2 * half,
        "takes": {lvl: {"taken": t, "made": m} for lvl, (t, m) in takes.items()},
        "contracts": contracts,
        "budget_s": budget if "strong" in (level_a, level_b) else None,
        "seconds": round(time.time() - start),
    }


def report(r: dict[str, Any]) -> str:
    lines = [
        f"{r['a']} vs {r['b']}: {r['boards']} boards (each played twice)"
        + (f", strong at {r['budget_s'] * 1000:.0f} ms per decision" if r["budget_s"] else ""),
        f"  {r['a']} minus {r['b']}, points per seat per deal: "
        f"{r['margin']:+.1f} ± {r['margin_ci']:.1f} (95%)",
        f"  {r['a']} mean score per seat per deal: "
        f"{r['a_per_seat']:+.1f} ± {r['a_per_seat_ci']:.1f}",
    ]
    for level, t in r["takes"].items():
        rate = t["made"] / t["taken"] if t["taken"] else float("nan")
        lines.append(f"  {level} as taker: {t['made']}/{t['taken']} made ({rate:.1%})")
    lines.append(f"  four passes: {r['four_passes']}, contracts: {r['contracts']}")
    lines.append(f"  {r['seconds']} s")
    return "\n".join(lines)


class TimedBot:
    """Measures each card decision of a bot (bids and the like are instant)."""

    def __init__(self, bot: Bot, times: list[float]) -> None:
        self.bot = bot
        self.times = times

    def decide(self, view: TableView) -> GameCommand:
        t0 = time.perf_counter()
        command = self.bot.decide(view)
        if view.legal.cards and len(view.legal.cards) > 1:
            self.times.append(time.perf_counter() - t0)
        return command


def timing(deals: int, budget: float) -> dict[str, Any]:
    """Strong at seat 0 against normal, timing its card decisions that had a choice."""
    times: list[float] = []
    for i in range(deals):
        game = Game(deals=1, seed=f"timing/{i}", first_dealer=i % 4)
        if game.deal.phase == "annulled":
            continue
        bots: list[Bot] = [TimedBot(make_bot("strong", i, budget_s=budget), times)]
        bots += [make_bot("normal", i * 4 + s) for s in range(1, 4)]
        play_deal(game, bots)
    times.sort()
    return {
        "budget_s": budget,
        "decisions": len(times),
        "median_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * times[min(len(times) - 1, int(0.99 * len(times)))],
        "max_ms": 1000 * times[-1],
    }


def calibrate_board(board: int) -> list[tuple[float, int, int]]:
    """Each seat in turn takes each contract (the others pass) with normal
    bots everywhere: ``(hand count, contract, points per defender)``."""
    out: list[tuple[float, int, int]] = []
    for taker in range(4):
        for contract in (PRISE, GARDE, GARDE_SANS, GARDE_CONTRE):
            game = Game(deals=1, seed=f"calibrate/{board}", first_dealer=board % 4)
            deal = game.deal
            if deal.phase == "annulled":
                return out
            strength = hand_strength(deal.hands[taker])
            while deal.phase == "bidding":
                seat = deal.turn
                assert seat is not None
                deal.bid(seat, contract if seat == taker else PASS)
            result = play_deal(game, [make_bot("normal", s) for s in range(4)])
            assert isinstance(result, ScoredDeal)
            out.append((strength, contract, result.base))
    return out


def calibrate(boards: int, procs: int) -> str:
    """The taker's mean points (per defender) by hand count and contract:
    where each contract starts to pay is where ``evaluation.THRESHOLDS`` sit."""
    rows: dict[tuple[int, int], list[int]] = {}
    with multiprocessing.Pool(procs, initializer=_nice) as pool:
        for out in pool.imap_unordered(calibrate_board, range(boards), chunksize=8):
            for strength, contract, base in out:
                rows.setdefault((int(strength // 5) * 5, contract), []).append(base)
    lines = ["count   prise   garde   g.sans  g.contre  (mean points per defender, hands)"]
    for low in range(0, 130, 5):
        cells = [rows.get((low, c)) for c in (PRISE, GARDE, GARDE_SANS, GARDE_CONTRE)]
        if cells[0]:
            means = "".join(f"{statistics.fmean(v):+8.1f}" for v in cells if v)
            lines.append(f"{low:3d}-{low + 4:<3d}{means}   ({len(cells[0])})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairings", nargs="*", default=["easy:random", "normal:easy", "strong:normal"]
    )
    parser.add_argument("--boards", type=int, default=2000)
    parser.add_argument("--seed", default="atout")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--timing", type=int, default=0, help="deals to time strong over")
    parser.add_argument("--calibrate", type=int, default=0, help="boards to calibrate bids on")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {"pairings": []}
    if args.calibrate:
        print(calibrate(args.calibrate, args.procs))
        return
    if args.timing:
        results["timing"] = t = timing(args.timing, args.budget)
        print(
            f"strong at {t['budget_s'] * 1000:.0f} ms: {t['decisions']} card decisions, "
            f"median {t['median_ms']:.1f} ms, p99 {t['p99_ms']:.1f} ms, max {t['max_ms']:.1f} ms",
            flush=True,
        )
    else:
        for pairing in args.pairings:
            a, b = pairing.split(":")
            r = run_pairing(a, b, args.boards, args.seed, args.budget, args.procs)
            results["pairings"].append(r)
            print(report(r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

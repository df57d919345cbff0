"""Duplicate tournament between bot levels, and strong's decision times.

Luck is cancelled the duplicate way: every seeded deal (a *board*) is played
once per rotation of a seat pattern, on the same cards. Bot A sits at the
pattern's seats and bot B at the others; rotating the pattern by one seat at
a time through every distinct rotation, each seat of the board is played by
A and by B in the same proportion (``PATTERNS``: seat 0 alone at 3 players,
3 plays; seats 0 and 2 at 4 players, 2 plays; seats 0 and 2 at 5 players,
5 plays). A board's figure is A's mean score per seat-play minus B's (the
margin; the scores of a deal sum to zero, so it is A's total times
``1/A's seat-plays + 1/B's seat-plays``). The 95% interval is mean ± 1.96
standard errors over boards. Boards annulled by a petit sec (before anyone
speaks) are skipped; a deal everybody passed scores 0 and counts.

    nice python bench/bots.py --players 3 5 --pairings easy:random normal:easy --boards 1000
    nice python bench/bots.py --players 5 --pairings strong:normal --boards 1000 --worlds 12
    nice python bench/bots.py --timing 40           # strong at its default budget
    nice python bench/bots.py --players 3 --calibrate 1500  # where each contract pays
    nice python bench/bots.py --players 3 4 5 --table normal easy --pairings  # all-pass rates

``--table LEVEL...`` seats a person who always passes (and plays its cards
as ``normal``) with bots of each level, once at every seat of each board,
and reports how often everybody passed and how often the takers made their
contracts: what a person sitting down with bots sees. It runs before the
pairings (``--pairings`` with no pairing skips them).

``--worlds N`` budgets strong by count (N worlds per card, reproducible on
a busy machine) instead of by time (``--budget``). Prints one block per size
and pairing (and the running margin every 100 boards on stderr, or every
``--progress N``, with the taker counts so far); ``--json
FILE`` also writes the figures.
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

from protocol.cards import BOUTS_MASK
from protocol.messages import Bid, GameCommand
from protocol.views import TableView
from server.bots import DEFAULT_BUDGET_S, Bot, make_bot
from server.bots.evaluation import THRESHOLDS, hand_strength
from server.bots.strong import StrongBot
from server.game import Game, ScoredDeal
from server.game.contracts import GARDE, GARDE_CONTRE, GARDE_SANS, PASS, PRISE
from server.game.variant import variant_for
from tests.support.bots import play_deal

PATTERNS = {3: (0,), 4: (0, 2), 5: (0, 2)}
"""Per table size, the seats bot A holds in the first play of a board."""


def rotations(players: int) -> list[tuple[int, ...]]:
    """The distinct rotations of the size's pattern: A's seats in each play."""
    out: list[tuple[int, ...]] = []
    for shift in range(players):
        seats = tuple(sorted((s + shift) % players for s in PATTERNS[players]))
        if seats not in out:
            out.append(seats)
    return out


def bot(level: str, seed: str, budget: float, worlds: int) -> Bot:
    if level == "strong" and worlds:
        return StrongBot(seed, budget_s=1e9, max_worlds=worlds)
    return make_bot(level, seed, budget_s=budget)


Task = tuple[str, str, str, int, float, int, int]


def play_board(task: Task) -> dict[str, Any] | None:
    """Every rotation of one board; ``None`` for a petit sec."""
    level_a, level_b, seed, board, budget, worlds, players = task
    variant = variant_for(players)
    a_total = 0
    takes: list[tuple[str, bool, str]] = []
    passes = 0
    plays = rotations(players)
    for rotation, a_seats in enumerate(plays):
        game = Game(
            deals=1, seed=f"{seed}/{players}/{board}", first_dealer=board % players, variant=variant
        )
        if game.deal.phase == "annulled":
            return None
        levels = [level_a if s in a_seats else level_b for s in variant.seats]
        bots = [
            bot(levels[s], f"{seed}/{board}/{rotation}/{s}", budget, worlds) for s in variant.seats
        ]
        result = play_deal(game, bots)
        a_total += sum(result.scores[s] for s in a_seats)
        if isinstance(result, ScoredDeal):
            takes.append((levels[result.taker], result.made, result.contract))
        else:
            passes += 1
    a_plays = len(PATTERNS[players]) * len(plays)
    b_plays = players * len(plays) - a_plays
    return {
        "board": board,
        "margin": a_total * (1 / a_plays + 1 / b_plays),
        "takes": takes,
        "passes": passes,
    }


def _nice() -> None:
    # The machine is shared: stay behind interactive work, at niceness 10.
    # Not 10 more than the parent: under ``nice -n 10`` the workers would sit
    # at 19, behind every other job (the runs of the fifth session on issue
    # 36 took hours so).
    os.nice(max(0, 10 - os.nice(0)))


def _ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    if len(values) < 2:
        return (values[0] if values else math.nan), math.nan
    return statistics.fmean(values), 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def run_pairing(
    level_a: str,
    level_b: str,
    players: int,
    boards: int,
    seed: str,
    budget: float,
    worlds: int,
    procs: int,
    progress: int = 100,
) -> dict[str, Any]:
    tasks = [(level_a, level_b, seed, b, budget, worlds, players) for b in range(boards)]
    per_board: list[float] = []
    margins: dict[int, float] = {}
    takes: dict[str, list[int]] = {level_a: [0, 0], level_b: [0, 0]}
    contracts: dict[str, int] = {}
    passes = skipped = 0
    start = time.time()
    with multiprocessing.Pool(procs, initializer=_nice) as pool:
        for i, out in enumerate(pool.imap_unordered(play_board, tasks, chunksize=1)):
            if out is None:
                skipped += 1
                continue
            per_board.append(out["margin"])
            margins[out["board"]] = out["margin"]
            passes += out["passes"]
            for level, made, contract in out["takes"]:
                takes[level][0] += 1
                takes[level][1] += made
                contracts[contract] = contracts.get(contract, 0) + 1
            if (i + 1) % progress == 0:
                mean, half = _ci(per_board)
                made = ", ".join(f"{lvl} took {t} made {m}" for lvl, (t, m) in takes.items())
                print(
                    f"  {players}p {level_a} vs {level_b}: {i + 1}/{boards} boards, "
                    f"margin {mean:+.1f} ± {half:.1f} over {len(per_board)}, "
                    f"{made}, all passed {passes}, {time.time() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    mean, half = _ci(per_board)
    return {
        "players": players,
        "a": level_a,
        "b": level_b,
        "boards": len(per_board),
        "plays_per_board": len(rotations(players)),
        "petit_sec_skipped": skipped,
        "all_passed": passes,
        "margin": mean,
        "margin_ci": half,
        "takes": {lvl: {"taken": t, "made": m} for lvl, (t, m) in takes.items()},
        "contracts": contracts,
        "budget_s": budget if "strong" in (level_a, level_b) and not worlds else None,
        "worlds": worlds if "strong" in (level_a, level_b) and worlds else None,
        "seconds": round(time.time() - start),
        "margins": [margins[b] for b in sorted(margins)],
        "margin_boards": sorted(margins),
    }


def report(r: dict[str, Any]) -> str:
    lines = [
        f"{r['players']} players, {r['a']} vs {r['b']}: {r['boards']} boards "
        f"(each played {r['plays_per_board']} times)"
        + (f", strong at {r['budget_s'] * 1000:.0f} ms per decision" if r["budget_s"] else "")
        + (f", strong at {r['worlds']} worlds per card" if r["worlds"] else ""),
        f"  {r['a']} minus {r['b']}, points per seat per deal: "
        f"{r['margin']:+.1f} ± {r['margin_ci']:.1f} (95%)",
    ]
    for level, t in r["takes"].items():
        rate = t["made"] / t["taken"] if t["taken"] else float("nan")
        lines.append(f"  {level} as taker: {t['made']}/{t['taken']} made ({rate:.1%})")
    lines.append(f"  all passed: {r['all_passed']}, contracts: {r['contracts']}")
    lines.append(f"  {r['seconds']} s")
    return "\n".join(lines)


class TimedBot:
    """Measures each card decision of a bot (bids and the like are instant),
    in the thread's CPU time: what the bot computes, whatever else the
    machine runs (the strong bot counts its budget on the same clock)."""

    def __init__(self, bot: Bot, times: list[float], bids: list[float]) -> None:
        self.bot = bot
        self.times = times
        self.bids = bids

    def decide(self, view: TableView) -> GameCommand:
        t0 = time.thread_time()
        command = self.bot.decide(view)
        if view.legal.cards and len(view.legal.cards) > 1:
            self.times.append(time.thread_time() - t0)
        elif view.legal.bids:
            self.bids.append(time.thread_time() - t0)
        return command


def timing(deals: int, budget: float, players: int) -> dict[str, Any]:
    """Strong at seat 0 against normal, timing its card decisions that had a
    choice, and its bids (searched too: ``strong_bids.py``)."""
    times: list[float] = []
    bids: list[float] = []
    variant = variant_for(players)
    for i in range(deals):
        game = Game(deals=1, seed=f"timing/{i}", first_dealer=i % players, variant=variant)
        if game.deal.phase == "annulled":
            continue
        strong = StrongBot(i, budget_s=budget, clock=time.thread_time)
        bots: list[Bot] = [TimedBot(strong, times, bids)]
        bots += [make_bot("normal", i * players + s) for s in variant.seats[1:]]
        play_deal(game, bots)
    times.sort()
    bids.sort()
    return {
        "bids": len(bids),
        "bid_max_ms": 1000 * bids[-1] if bids else math.nan,
        "players": players,
        "budget_s": budget,
        "decisions": len(times),
        "median_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * times[min(len(times) - 1, int(0.99 * len(times)))],
        "max_ms": 1000 * times[-1],
    }


class Passer:
    """A person who never takes: passes every bid, plays its cards as ``normal``."""

    def __init__(self, seed: str) -> None:
        self.bot = make_bot("normal", seed)

    def decide(self, view: TableView) -> GameCommand:
        if view.legal.bids:
            return Bid(bid="pass")
        return self.bot.decide(view)


def table_board(task: tuple[str, str, int, int, float, int]) -> list[dict[str, Any]] | None:
    """One board played once per seat of the person who always passes, the
    other seats held by ``level`` bots: what that person sees."""
    level, seed, board, players, budget, worlds = task
    variant = variant_for(players)
    out: list[dict[str, Any]] = []
    for person in variant.seats:
        game = Game(
            deals=1, seed=f"{seed}/{players}/{board}", first_dealer=board % players, variant=variant
        )
        if game.deal.phase == "annulled":
            return None
        bots: list[Bot] = [
            Passer(f"{seed}/{board}/{s}")
            if s == person
            else bot(level, f"{seed}/{board}/{person}/{s}", budget, worlds)
            for s in variant.seats
        ]
        result = play_deal(game, bots)
        bidders = sum(b != PASS for b in game.deal.bids)
        if isinstance(result, ScoredDeal):
            out.append({"contract": result.contract, "made": result.made, "bidders": bidders})
        else:
            out.append({"contract": None, "made": False, "bidders": 0})
    return out


def table(
    level: str, players: int, boards: int, seed: str, procs: int, budget: float, worlds: int
) -> dict[str, Any]:
    """All-pass and made rates at a table of ``level`` bots and one person who passes."""
    deals = passed = made = competed = 0
    contracts: dict[str, list[int]] = {}
    per_board: list[tuple[int, int, int, int]] = []  # deals, passed, taken, made
    start = time.time()
    with multiprocessing.Pool(procs, initializer=_nice) as pool:
        tasks = [(level, seed, b, players, budget, worlds) for b in range(boards)]
        for out in pool.imap_unordered(table_board, tasks, chunksize=4):
            if not out:
                continue
            b_passed = sum(d["contract"] is None for d in out)
            b_made = sum(d["made"] for d in out)
            per_board.append((len(out), b_passed, len(out) - b_passed, b_made))
            for d in out:
                deals += 1
                if d["contract"] is None:
                    passed += 1
                    continue
                made += d["made"]
                competed += d["bidders"] >= 2
                c = contracts.setdefault(d["contract"], [0, 0])
                c[0] += 1
                c[1] += d["made"]
    taken = deals - passed
    return {
        "players": players,
        "level": level,
        "deals": deals,
        "all_passed": passed,
        "all_passed_ci": _ratio_ci([(b[1], b[0]) for b in per_board]),
        "taken": taken,
        "made": made,
        "made_ci": _ratio_ci([(b[3], b[2]) for b in per_board]),
        "competed": competed,
        "contracts": contracts,
        "seconds": round(time.time() - start),
    }


def _ratio_ci(counts: list[tuple[int, int]]) -> float:
    """Half-width of the 95% interval of a rate counted over boards, each
    ``(hits, tries)``: the plays of one board share its cards, so the board,
    not the deal, is the independent unit (the ratio estimator's variance)."""
    tries = sum(n for _, n in counts)
    if len(counts) < 2 or not tries:
        return math.nan
    rate = sum(k for k, _ in counts) / tries
    mean_tries = tries / len(counts)
    spread = sum((k - rate * n) ** 2 for k, n in counts) / (len(counts) - 1)
    return 1.96 * math.sqrt(spread / len(counts)) / mean_tries


def table_report(r: dict[str, Any]) -> str:
    n, taken = r["deals"], r["taken"]
    mix = ", ".join(f"{c} {t}/{m}" for c, (t, m) in sorted(r["contracts"].items()))
    return (
        f"{r['players']} players, {r['level']} bots and a person who always passes: "
        f"{n} deals\n"
        f"  all passed {r['all_passed']}/{n} ({r['all_passed'] / n:.1%} ± "
        f"{r['all_passed_ci']:.1%}); taker made {r['made']}/{taken} "
        f"({r['made'] / max(taken, 1):.1%} ± {r['made_ci']:.1%}); "
        f"two or more bid: {r['competed']}\n"
        f"  contracts (taken/made): {mix}\n  {r['seconds']} s"
    )


Calibration = tuple[float, int, int, bool, bool, int]
"""A taker's hand count, its contract, its points per defender, whether it
made it, whether every other hand counted under the prise bar, its bouts."""


def calibrate_board(task: tuple[int, int]) -> list[Calibration]:
    """Each seat in turn takes each contract (the others pass) with normal
    bots everywhere (see ``Calibration``)."""
    board, players = task
    variant = variant_for(players)
    bar = THRESHOLDS[players][PRISE]
    out: list[Calibration] = []
    for taker in variant.seats:
        for contract in (PRISE, GARDE, GARDE_SANS, GARDE_CONTRE):
            game = Game(
                deals=1,
                seed=f"calibrate/{board}",
                first_dealer=board % players,
                variant=variant,
            )
            deal = game.deal
            if deal.phase == "annulled":
                return out
            strength = hand_strength(deal.hands[taker], variant)
            weak = all(
                hand_strength(deal.hands[s], variant) < bar for s in variant.seats if s != taker
            )
            bouts = (deal.hands[taker] & BOUTS_MASK).bit_count()
            while deal.phase == "bidding":
                seat = deal.turn
                assert seat is not None
                deal.bid(seat, contract if seat == taker else PASS)
            result = play_deal(game, [make_bot("normal", s) for s in variant.seats])
            assert isinstance(result, ScoredDeal)
            out.append((strength, contract, result.base, result.made, weak, bouts))
    return out


def calibrate(boards: int, players: int, procs: int) -> str:
    """The taker's mean points (per defender) by hand count and contract:
    where each contract starts to pay is where ``evaluation.THRESHOLDS`` sit."""
    rows: dict[tuple[int, int], list[int]] = {}
    after: dict[int, list[tuple[int, bool]]] = {}  # prise, the others all under the bar
    by_bouts: dict[int, list[bool]] = {}  # prise made, counts 24-40, by bouts held
    with multiprocessing.Pool(procs, initializer=_nice) as pool:
        tasks = [(b, players) for b in range(boards)]
        for out in pool.imap_unordered(calibrate_board, tasks, chunksize=8):
            for strength, contract, base, made, weak, bouts in out:
                rows.setdefault((int(strength // 5) * 5, contract), []).append(base)
                if contract == PRISE and weak:
                    after.setdefault(int(strength // 4) * 4, []).append((base, made))
                if contract == PRISE and 24 <= strength <= 40:
                    by_bouts.setdefault(bouts, []).append(made)
    lines = [
        f"{players} players",
        "count   prise   garde   g.sans  g.contre  (mean points per defender, hands)",
    ]
    for low in range(0, 130, 5):
        cells = [rows.get((low, c)) for c in (PRISE, GARDE, GARDE_SANS, GARDE_CONTRE)]
        if cells[0]:
            means = "".join(f"{statistics.fmean(v):+8.1f}" for v in cells if v)
            lines.append(f"{low:3d}-{low + 4:<3d}{means}   ({len(cells[0])})")
    lines.append("prise when every other hand counts under the bar: mean, made (hands)")
    for low in sorted(after):
        bases = [b for b, _ in after[low]]
        rate = sum(m for _, m in after[low]) / len(bases)
        mean = statistics.fmean(bases)
        lines.append(f"{low:3d}-{low + 3:<3d}{mean:+8.1f} {rate:6.0%}  ({len(bases)})")
    made_by = ", ".join(
        f"{n} bouts {sum(v) / len(v):.0%} of {len(v)}" for n, v in sorted(by_bouts.items())
    )
    lines.append(f"prise made, counts 24-40, by bouts held: {made_by}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairings", nargs="*", default=["easy:random", "normal:easy", "strong:normal"]
    )
    parser.add_argument("--players", type=int, nargs="*", default=[4], choices=[3, 4, 5])
    parser.add_argument("--boards", type=int, default=2000)
    parser.add_argument("--seed", default="atout")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S)
    parser.add_argument("--worlds", type=int, default=0, help="strong's worlds per card")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--timing", type=int, default=0, help="deals to time strong over")
    parser.add_argument("--calibrate", type=int, default=0, help="boards to calibrate bids on")
    parser.add_argument(
        "--table",
        nargs="*",
        default=[],
        help="levels to seat with a person who always passes (all-pass and made rates)",
    )
    parser.add_argument(
        "--table-boards",
        type=int,
        default=0,
        help="boards for --table (default: --boards): it plays no strong bot, so cheap"
        " enough for the larger sample a rate wants",
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--progress", type=int, default=100, help="boards between running margins on stderr"
    )
    args = parser.parse_args()
    results: dict[str, Any] = {"pairings": []}
    if args.calibrate:
        for players in args.players:
            print(calibrate(args.calibrate, players, args.procs), flush=True)
        return
    if args.table:
        results["table"] = []
        for players in args.players:
            for level in args.table:
                boards = args.table_boards or args.boards
                t = table(level, players, boards, args.seed, args.procs, args.budget, args.worlds)
                results["table"].append(t)
                print(table_report(t), flush=True)
    if args.timing:
        results["timing"] = []
        for players in args.players:
            t = timing(args.timing, args.budget, players)
            results["timing"].append(t)
            print(
                f"{players} players, strong at {t['budget_s'] * 1000:.0f} ms: "
                f"{t['decisions']} card decisions, median {t['median_ms']:.1f} ms, "
                f"p99 {t['p99_ms']:.1f} ms, max {t['max_ms']:.1f} ms; "
                f"{t['bids']} bids, max {t['bid_max_ms']:.1f} ms",
                flush=True,
            )
    elif args.pairings:
        for players in args.players:
            for pairing in args.pairings:
                a, b = pairing.split(":")
                r = run_pairing(
                    a,
                    b,
                    players,
                    args.boards,
                    args.seed,
                    args.budget,
                    args.worlds,
                    args.procs,
                    args.progress,
                )
                results["pairings"].append(r)
                print(report(r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Benchmark: how well the tournament's movement keeps players from meeting again.

For each player count and format, plays the seating of 5 rounds (the
movement seats one round at a time, so the first 3 and 4 rounds of those
are what a 3- or 4-round tournament gets) under several seeds, and prints for
3, 4 and 5 rounds: the pairs that shared a table twice or more (fewest,
mean and most over the seeds), the most times one pair met, the repeat
meetings (each meeting of a pair after its first) and the cost the movement
minimises (each round, the meetings its tables' pairs had before: k
meetings of a pair cost 0 + 1 + ... + k-1), each beside a lower bound that no
seating can beat:

- forced: a table of a later round draws its players from the tables of a
  round before; those drawn two from one table met there. With the draw as
  even as the tables allow this gives the fewest such pairs per round (12
  players: a table of 4 from 3 tables holds a pair met before);
- repeats >= every pair-meeting the rounds hold, less the pairs there are;
  and >= the forced pairs of every round after the first;
- cost >= repeats; and round r costs at least r - 1 times the forced pairs;
- pairs met twice >= the forced pairs of round 2; >= repeats spread over
  rounds - 1 meetings again at most per pair; and a player meeting more
  opponents (over the rounds, at the smallest table) than there are other
  players meets some again, each pair met twice covering two players;
- most meetings >= 2 as soon as repeats must happen; >= a player's meetings
  spread over the other players.

Then the time one round takes to seat (rounds 2 to 5, no teams): small
counts where every round must repeat meetings (the search then runs all its
starts), and larger ones.

    python bench/movement.py [--seeds N] [--players 8 9 ...]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.tournament.seating import meetings, seat_round, table_plan

ROUNDS = (3, 4, 5)


def forced(humans: list[int]) -> int:
    """Fewest pairs of one round's tables that already shared a table in the
    round before (any other round of the same tables): a table of h players
    draws them from the previous round's tables, and those it draws two of
    (or more) met there. Spread as evenly as the tables allow, table by table."""
    total = 0
    for h in humans:
        drawn = [0] * len(humans)
        for _ in range(h):
            g = min((g for g in range(len(humans)) if drawn[g] < humans[g]), key=drawn.__getitem__)
            drawn[g] += 1
        total += sum(k * (k - 1) // 2 for k in drawn)
    return total


def bounds(players: int, humans: list[int], rounds: int) -> tuple[int, int, int, int]:
    """Lower bounds on (pairs met twice or more, most meetings of a pair,
    repeats, cost)."""
    pairs = players * (players - 1) // 2
    held = rounds * sum(h * (h - 1) // 2 for h in humans)
    each = forced(humans)
    # Each round's forced pairs met in each round before: the round r pays
    # (r - 1) times them, and counts them among the repeats at least once.
    repeats = max(held - pairs, (rounds - 1) * each)
    cost = max(repeats, each * rounds * (rounds - 1) // 2)
    # Every player sits at a table of at least the smallest size each round.
    slots = rounds * (min(humans) - 1)
    own = max(0, slots - (players - 1))
    per_player = math.ceil(players * math.ceil(own / (rounds - 1)) / 2)
    # The second round's forced pairs are pairs met twice, all different.
    twice = max(per_player, math.ceil(repeats / (rounds - 1)), each)
    most = max(1, math.ceil(slots / (players - 1)), 2 if repeats else 1)
    return twice, most, repeats, cost


def figures(met: Counter[frozenset[str]]) -> tuple[int, int, int, int]:
    """(pairs met twice or more, most meetings of a pair, repeats, cost)."""
    return (
        sum(1 for n in met.values() if n >= 2),
        max(met.values(), default=0),
        sum(n - 1 for n in met.values()),
        sum(n * (n - 1) // 2 for n in met.values()),
    )


def run(players: int, duplicate: bool, seeds: int) -> list[str]:
    ids = [f"p{i:03}" for i in range(players)]
    plan = table_plan(players, bots_fill=False, duplicate=duplicate)
    humans = [h for _, h in plan]
    seen: dict[int, list[tuple[int, int, int, int]]] = {r: [] for r in ROUNDS}
    for s in range(seeds):
        played: list[list[list[str | None]]] = []
        for r in range(max(ROUNDS)):
            played.append(
                seat_round(
                    ids,
                    teams={},
                    met=meetings(played),
                    bots_fill=False,
                    duplicate=duplicate,
                    seed=f"bench-{s}-{r}",
                )
            )
            if r + 1 in seen:
                seen[r + 1].append(figures(meetings(played)))
    lines = []
    sizes = "+".join(str(h) for h in humans)
    for rounds in ROUNDS:
        got = seen[rounds]
        low = bounds(players, humans, rounds)
        twice, most, repeats, cost = ([row[i] for row in got] for i in range(4))
        lines.append(
            f"{players:>7} {'duplicate' if duplicate else 'free':<9} {sizes:<9} {rounds:>6} |"
            f" {min(twice):>3} {statistics.mean(twice):>5.1f} {max(twice):>3} {low[0]:>3} |"
            f" {max(most):>3} {low[1]:>3} |"
            f" {min(repeats):>3} {max(repeats):>3} {low[2]:>3} |"
            f" {min(cost):>3} {max(cost):>3} {low[3]:>3}"
        )
    return lines


def timing(players: int, rounds: int) -> str:
    ids = [f"p{i:03}" for i in range(players)]
    played: list[list[list[str | None]]] = []
    took: list[float] = []
    for r in range(rounds):
        met = meetings(played)
        t0 = time.perf_counter()
        played.append(
            seat_round(ids, teams={}, met=met, bots_fill=False, duplicate=False, seed=f"t-{r}")
        )
        took.append(time.perf_counter() - t0)
    later = took[1:]  # round 1 has no meetings to avoid: nothing to search
    twice, most, _, _ = figures(meetings(played))
    return (
        f"{players:>7} {rounds:>6} {statistics.mean(later) * 1e3:>9.1f} {max(later) * 1e3:>8.1f}"
        f" {twice:>7} {most:>5}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="seatings tried per row")
    parser.add_argument("--players", type=int, nargs="+", default=[8, 9, 12, 14, 16, 20])
    parser.add_argument("--timing", type=int, nargs="*", default=[9, 14, 16, 40, 100, 200])
    args = parser.parse_args()
    print(f"seeds per row: {args.seeds}")
    print("twice: pairs that met 2+ times (fewest, mean and most over the seeds; bound)")
    print("most: the most meetings of one pair (worst seed; bound)")
    print("repeats: meetings of a pair after its first (fewest, most; bound)")
    print("cost: what the movement minimises, k meetings of a pair counting k(k-1)/2")
    print("bound: what no seating can beat (see this file's docstring)")
    print()
    print(f"{'':34} | {'twice':^17} | {'most':^7} | {'repeats':^11} | {'cost':^11}".rstrip())
    print(
        f"{'players':>7} {'format':<9} {'tables':<9} {'rounds':>6} |"
        f" {'low':>3} {'mean':>5} {'top':>3} {'bnd':>3} | {'top':>3} {'bnd':>3} |"
        f" {'low':>3} {'top':>3} {'bnd':>3} | {'low':>3} {'top':>3} {'bnd':>3}"
    )
    for duplicate in (False, True):
        for players in args.players:
            plan = table_plan(players, bots_fill=False, duplicate=duplicate)
            if duplicate and plan == table_plan(players, bots_fill=False, duplicate=False):
                continue  # the same tables, so the same seatings as in free
            for line in run(players, duplicate, args.seeds):
                print(line)
    if args.timing:
        print()
        print("time to seat one round (rounds 2 to 5), and the 5 rounds' figures")
        print("players rounds  mean_ms   max_ms   twice  most")
        for players in args.timing:
            print(timing(players, 5))


if __name__ == "__main__":
    main()

"""Who sits where in a round of a tournament: the tables' sizes
(``table_plan``) and the movement between rounds (``seat_round``), so that
players meet as many different opponents as they can and team partners never
share a table; ``meetings`` counts who has met whom.

Pure and deterministic: the same players, teams, past meetings and seed give
the same seating (the tournament's seed is secret, so nobody can steer the
draw, and a replayed round seats everyone again exactly where they were).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

TABLE_SIZES = (3, 4, 5)
"""Seats at a table without bots: FFT Tarot is played at three, four or five."""
FULL_TABLE = 4
"""Seats at every table when bots fill them."""

STARTS = 24
"""Independent random starts of the search for one round: a start that ends
in a dead end (or in a seating after which the next round must repeat
meetings) is often followed by one that does not."""
TRIALS = 1000
"""Swaps tried from each start (half as many to look one round ahead): a
count rather than a time, so that a seating never depends on the machine's
load. bench/movement.py measures what this reaches, and how long it takes."""
HEAT = 1.0
"""The annealing's first temperature, in meetings: a swap that makes one more
pair meet again is accepted about one time in three at first, never at the
end; enough to leave a dead end, not to wander."""
CHILL = 0.02
"""The last temperature: by then only swaps that do not make things worse."""


class Unseatable(Exception):
    """The players cannot be seated as asked (message for a person)."""


def table_plan(count: int, *, bots_fill: bool, duplicate: bool) -> list[tuple[int, int]]:
    """The round's tables for ``count`` players: (seats, humans) per table,
    biggest first.

    With ``bots_fill`` every table has four seats, as few tables as hold
    everyone, the players spread evenly (9 players: three tables of three
    players and a bot); it needs two players. Otherwise tables of 3, 4 and 5,
    all players: as few tables of 3 or 5 as the count allows, then as few
    tables as possible (9: 5 and 4). In ``duplicate`` a table is only worth
    playing if another table of its size plays the same deals, so before
    anything the plan avoids a size used by a single table (9: 3, 3, 3;
    14: 4, 4, 3, 3), where the count allows it (7 can only be 4 and 3).
    """
    if bots_fill:
        if count < 2:
            raise Unseatable("A tournament needs at least two players, even with bots.")
        tables = -(-count // FULL_TABLE)
        base, extra = divmod(count, tables)
        return [(FULL_TABLE, base + (i < extra)) for i in range(tables)]
    if count < min(TABLE_SIZES):
        raise Unseatable(
            "A tournament needs at least three players (or two, with bots filling the tables)."
        )
    best: tuple[tuple[int, int, int], list[int]] | None = None
    for fives in range(count // 5 + 1):
        for fours in range((count - 5 * fives) // 4 + 1):
            threes, rest = divmod(count - 5 * fives - 4 * fours, 3)
            if rest:
                continue
            counts = {5: fives, 4: fours, 3: threes}
            lone = sum(1 for n in counts.values() if n == 1) if duplicate else 0
            key = (lone, threes + fives, threes + fours + fives)
            if best is None or key < best[0]:
                best = (key, [size for size in (5, 4, 3) for _ in range(counts[size])])
    if best is None:  # pragma: no cover - every count from 3 on is a sum of 3s, 4s and 5s
        raise Unseatable(f"{count} players cannot be seated at tables of 3, 4 and 5.")
    return [(size, size) for size in best[1]]


def meetings(rounds: Iterable[Sequence[Sequence[str | None]]]) -> Counter[frozenset[str]]:
    """How many times each pair of players shared a table over ``rounds``
    (each a list of tables, each its seats; bots, None, are nobody)."""
    met: Counter[frozenset[str]] = Counter()
    for tables in rounds:
        for seats in tables:
            players = sorted({p for p in seats if p is not None})
            met.update(frozenset(pair) for pair in combinations(players, 2))
    return met


def seat_round(
    players: Sequence[str],
    *,
    teams: Mapping[str, str],
    met: Mapping[frozenset[str], int],
    bots_fill: bool,
    duplicate: bool,
    seed: str,
) -> list[list[str | None]]:
    """Each table's seats in seat order (player ids; None: a bot's seat),
    tables in ``table_plan``'s order.

    Two players of one team (``teams``: player id -> team name; a player
    missing or with "" has none) never share a table: ``Unseatable`` when the
    plan's tables cannot keep them apart. Among the seatings that do, the one
    kept makes the fewest meetings again: the sum over the pairs sharing a
    table of how many times they met before (``met``, as ``meetings`` counts),
    so that a third meeting weighs more than a second. Between seatings as
    good, it prefers the one where no pair meets as many times, then the one
    after which the next round can repeat fewer meetings.

    A search, not a proof: random starts improved by swapping players
    between tables (simulated annealing, then swaps while they help), a fixed
    amount of work whatever the machine (bench/movement.py: what it reaches
    and how long it takes). The order of ``players`` does not matter;
    ``seed`` decides everything left open.
    """
    ids = sorted(players)
    if len(set(ids)) != len(ids):
        raise ValueError("a player is listed twice")
    plan = table_plan(len(ids), bots_fill=bots_fill, duplicate=duplicate)
    rng = random.Random(seed)
    index = {p: i for i, p in enumerate(ids)}
    names = sorted({teams.get(p, "") for p in ids} - {""})
    team_index = {name: t for t, name in enumerate(names)}
    team_of = [team_index.get(teams.get(p, ""), -1) for p in ids]
    weight = [[0] * len(ids) for _ in ids]
    for pair, times in met.items():
        if len(pair) != 2 or times <= 0:
            continue
        a, b = (index.get(p) for p in pair)
        if a is not None and b is not None:
            weight[a][b] = weight[b][a] = times
    humans = [h for _, h in plan]
    spread = _Spread(humans, team_of, names)
    if len(plan) == 1 or not any(any(row) for row in weight):
        # One table, or nobody has met yet (the first round): any seating
        # keeping partners apart is as good as another.
        return _seats(plan, spread.draw(rng), ids, rng)
    best: list[int] = []
    best_key = (0, 0, 0)
    for start in range(STARTS):
        search = _Search(spread.draw(rng), len(humans), weight, team_of)
        search.anneal(rng, TRIALS)
        search.descend()
        # Of two seatings as costly, keep the one where no pair meets as
        # often (a fourth meeting of one pair is worse than a second of
        # three), then the one after which the next round can cost less:
        # seating one round at a time can walk into a corner (16 players:
        # three rounds where nobody met twice, after which a fourth round
        # cannot avoid it, where other third rounds allow five in all).
        key = (search.cost, search.peak())
        if start and key > best_key[:2]:
            continue
        full = (*key, _ahead(search, spread, rng))
        if not start or full < best_key:
            best, best_key = search.table_of[:], full
        if best_key == (0, 0, 0):
            break
    return _seats(plan, best, ids, rng)


def _ahead(seated: _Search, spread: _Spread, rng: random.Random) -> int:
    """The cost of the round after ``seated``, as a shorter search finds it."""
    table_of = seated.table_of
    weight = [row[:] for row in seated.weight]
    for p, row in enumerate(weight):
        for q in range(len(row)):
            if p != q and table_of[p] == table_of[q]:
                row[q] += 1
    search = _Search(spread.draw(rng), len(seated.gain[0]), weight, seated.team_of)
    search.anneal(rng, TRIALS // 2)
    search.descend()
    return search.cost


class _Spread:
    """Random seatings that keep partners apart, for the search to start from."""

    def __init__(self, humans: list[int], team_of: list[int], names: list[str]) -> None:
        self.humans = humans
        groups: dict[int, list[int]] = {}
        for player, team in enumerate(team_of):
            groups.setdefault(team if team >= 0 else -1 - player, []).append(player)
        self.groups = list(groups.values())
        tables = len(humans)
        for members in self.groups:
            team = team_of[members[0]]
            if team >= 0 and len(members) > tables:
                raise Unseatable(
                    f"Team {names[team]} has {len(members)} players but the round has "
                    f"{tables} table{'s' if tables != 1 else ''}: partners never share one."
                )
        # Whether a seating exists at all: placing the groups one by one,
        # each over the tables with the most seats left, finds one whenever
        # one exists (Gale and Ryser's filling of a 0-1 matrix; any order of
        # the groups does), so a failure of the plain order is final.
        if self._fill(self.groups, None) is None:
            raise Unseatable(
                "The teams cannot be kept apart at this round's tables: "
                "partners never share a table. Fewer or smaller teams, or more players, would do."
            )

    def draw(self, rng: random.Random) -> list[int]:
        """A seating keeping partners apart, drawn at random: the groups in a
        random order, ties between tables broken at random."""
        groups = [members[:] for members in self.groups]
        rng.shuffle(groups)
        for members in groups:
            rng.shuffle(members)
        table_of = self._fill(groups, rng)
        assert table_of is not None  # _fill succeeded once, so it succeeds in any order
        return table_of

    def _fill(self, groups: list[list[int]], rng: random.Random | None) -> list[int] | None:
        left = self.humans[:]
        table_of = [0] * sum(len(g) for g in groups)
        order = list(range(len(left)))
        for members in groups:
            if rng is not None:
                rng.shuffle(order)
            roomiest = sorted(order, key=lambda t: -left[t])[: len(members)]
            if len(roomiest) < len(members) or left[roomiest[-1]] == 0:
                return None
            for player, table in zip(members, roomiest, strict=True):
                table_of[player] = table
                left[table] -= 1
        return table_of


class _Search:
    """A seating and its cost (meetings again), improved by swapping two
    players of different tables; swaps keep every table's size, and a swap
    that would put partners together is never made."""

    def __init__(
        self, table_of: list[int], tables: int, weight: list[list[int]], team_of: list[int]
    ) -> None:
        self.table_of = table_of
        self.weight = weight
        self.team_of = team_of
        players = len(table_of)
        # gain[p][t]: what p would pay at table t, i.e. the meetings p has had
        # with the players now seated there; makes a swap's cost O(1).
        self.gain = [[0] * tables for _ in range(players)]
        for p in range(players):
            row = self.gain[p]
            for q in range(players):
                row[table_of[q]] += weight[p][q]
        self.cost = sum(self.gain[p][table_of[p]] for p in range(players)) // 2
        # partners[team][t]: the team's players at table t (0 or 1).
        self.partners = [[0] * tables for _ in range(max(team_of, default=-1) + 1)]
        for p, team in enumerate(team_of):
            if team >= 0:
                self.partners[team][table_of[p]] += 1

    def peak(self) -> int:
        """The most times two players now at one table met before."""
        at: list[list[int]] = [[] for _ in self.gain[0]]
        for p, table in enumerate(self.table_of):
            at[table].append(p)
        return max(
            (self.weight[p][q] for members in at for p, q in combinations(members, 2)),
            default=0,
        )

    def delta(self, p: int, q: int) -> int:
        """What swapping p and q would change in the cost."""
        a, b = self.table_of[p], self.table_of[q]
        gp, gq, w = self.gain[p], self.gain[q], self.weight[p][q]
        return gp[b] + gq[a] - 2 * w - gp[a] - gq[b]

    def allowed(self, p: int, q: int) -> bool:
        tp, tq = self.team_of[p], self.team_of[q]
        if tp == tq:
            return True
        a, b = self.table_of[p], self.table_of[q]
        return (tp < 0 or not self.partners[tp][b]) and (tq < 0 or not self.partners[tq][a])

    def swap(self, p: int, q: int, delta: int) -> None:
        a, b = self.table_of[p], self.table_of[q]
        wp, wq = self.weight[p], self.weight[q]
        for x, row in enumerate(self.gain):
            change = wp[x] - wq[x]
            if change:
                row[a] -= change
                row[b] += change
        self.table_of[p], self.table_of[q] = b, a
        tp, tq = self.team_of[p], self.team_of[q]
        if tp >= 0:
            self.partners[tp][a] -= 1
            self.partners[tp][b] += 1
        if tq >= 0:
            self.partners[tq][b] -= 1
            self.partners[tq][a] += 1
        self.cost += delta

    def anneal(self, rng: random.Random, trials: int) -> None:
        """Random swaps, a worse one accepted with a chance that shrinks as
        the temperature falls (simulated annealing); ends at the best seen."""
        players = len(self.table_of)
        best, best_cost = self.table_of[:], self.cost
        cooling = (CHILL / HEAT) ** (1 / max(trials, 1))
        heat = HEAT
        chance, exp = rng.random, math.exp
        table_of, gain, weight = self.table_of, self.gain, self.weight
        for _ in range(trials):
            heat *= cooling
            # random() rather than randrange(): a third of the time, and as
            # deterministic (the hot loop of the search).
            p, q = int(chance() * players), int(chance() * players)
            a, b = table_of[p], table_of[q]
            if a == b:
                continue
            gp, gq = gain[p], gain[q]
            delta = gp[b] + gq[a] - 2 * weight[p][q] - gp[a] - gq[b]
            if delta > 0 and chance() >= exp(-delta / heat):
                continue
            if not self.allowed(p, q):
                continue
            self.swap(p, q, delta)
            if self.cost < best_cost:
                best, best_cost = self.table_of[:], self.cost
                if best_cost == 0:
                    break
        if best_cost < self.cost:
            self._become(best)

    def descend(self) -> None:
        """Swaps that lower the cost, until none does (a local minimum)."""
        players = range(len(self.table_of))
        improved = True
        while improved and self.cost:
            improved = False
            # A swap lowers the cost only if one of the two meets someone
            # again where it sits now: only those need trying.
            for p in [p for p in players if self.gain[p][self.table_of[p]]]:
                for q in players:
                    if self.table_of[p] == self.table_of[q]:
                        continue
                    delta = self.delta(p, q)
                    if delta < 0 and self.allowed(p, q):
                        self.swap(p, q, delta)
                        improved = True

    def _become(self, table_of: list[int]) -> None:
        fresh = _Search(table_of, len(self.gain[0]), self.weight, self.team_of)
        self.table_of, self.gain, self.partners, self.cost = (
            fresh.table_of,
            fresh.gain,
            fresh.partners,
            fresh.cost,
        )


def _seats(
    plan: list[tuple[int, int]], table_of: list[int], ids: list[str], rng: random.Random
) -> list[list[str | None]]:
    """The tables in the plan's order: players seated at random around each,
    bots' seats last; tables of one shape shuffled among themselves so that a
    table's number says nothing about the search."""
    at: list[list[str]] = [[] for _ in plan]
    for player, table in enumerate(table_of):
        at[table].append(ids[player])
    rng.shuffle(at)
    at.sort(key=len, reverse=True)  # stable: the plan is biggest first, by players
    out: list[list[str | None]] = []
    for (seats, humans), players in zip(plan, at, strict=True):
        assert len(players) == humans
        rng.shuffle(players)
        out.append([*players, *([None] * (seats - humans))])
    return out

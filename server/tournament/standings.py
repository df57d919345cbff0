"""A tournament's standings, computed from its tables' per-deal, per-seat scores.

What counts: a table's deals count once the table has finished its round's
deals (a table still playing counts once done). In ``duplicate`` a table
counts once every table that plays the same cards (same round, same size)
has finished: until then its results would tell a table still playing what
is in its hands, and its percentages would still change.

Free format: a player's score is the sum, over the deals they played, of
their points scaled to a table of four: points x 3 / (opponents at the
table, its size less one). At a table of 3 a deal's points count 1.5 times, at a table of 5
0.75 times, at a table of 4 once. The raw points are shown beside.

Duplicate format: every table of one size in a round plays the same deals,
seat by seat. Each result (one seat on one deal) is ranked among the
results at the same seat on the same deal at the other tables of its size
(FFT scale): it earns the percentage of those other results it beats, a tie
counting half, so the best gets 100 %, the worst 0 %, the others evenly
spaced between, and equal results share. Bots' results take part in the
comparison (they get no line). A result nobody else could be compared with
(the only table of its size) gets 50 %. A player's score is the mean of
their percentages.

Teams: a team's score is the sum of its members' scores as shown (free:
scaled points; duplicate: mean percentages), its points and deals summed too.

Positions: 1 for the best score (to 0.01); equal scores share a position
(1, 2, 2, 4) and are listed by name. Every player keeps a line, a player
removed by the host included (their results so far still count); a player
with no deal counted yet scores 0.

Pure functions, no I/O: ``server.tournament.export`` turns the same numbers
into files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import msgspec

from protocol.tournaments import StandingLine
from server.daily.ranking import compare, positions
from server.tournament.state import RoundState, TableEntry, TournamentState


class DealScore(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's result on one deal of a counted table."""

    round: int
    table: TableEntry
    seat: int
    deal: int
    """0 for the table's first deal of the round."""
    points: int
    score: float
    """What the deal adds to the standings: scaled points (``free``) or the
    percentage (``duplicate``), not rounded."""

    @property
    def player_id(self) -> str | None:
        return self.table.seats[self.seat]


def scale(size: int) -> float:
    """What one point at a table of ``size`` is worth at a table of four."""
    # A taker alone wins (or loses) the deal's base from every defender:
    # the taker scores (size - 1) x base, 2x at three, 3x at four, 4x at five
    # (docs/RULES.md section 11), so one deal's swing grows with the table.
    # Dividing by the opponents, times the 3 of a table of four, gives a
    # deal the same stake as at four. (At five, a taker with a called
    # partner scores 2x and the partner 1x: scaled like every deal at five.)
    return 3 / (size - 1)


def _group(rnd: RoundState, table: TableEntry) -> list[TableEntry]:
    """The tables of ``rnd`` that play the same cards as ``table`` (duplicate)."""
    return [t for t in rnd.tables if t.size == table.size and t.deal_seed == table.deal_seed]


def counted(state: TournamentState, rnd: RoundState, table: TableEntry) -> bool:
    """Whether ``table``'s results count (and may be shown) yet."""
    if state.settings.format == "duplicate":
        return all(t.finished for t in _group(rnd, table))
    return table.finished


def deal_scores(state: TournamentState) -> Iterator[DealScore]:
    """Every seat's result on every deal of every counted table, bots' included,
    by round, table, deal and seat."""
    duplicate = state.settings.format == "duplicate"
    for rnd in state.rounds:
        for table in rnd.tables:
            if not counted(state, rnd, table):
                continue
            group = _group(rnd, table) if duplicate else [table]
            for k, deal in enumerate(table.scores):
                for seat, points in enumerate(deal):
                    if duplicate:
                        # The same seat's results on the same deal, this one included.
                        results = Counter(t.scores[k][seat] for t in group if len(t.scores) > k)
                        score = compare(points, results).percent
                    else:
                        score = points * scale(table.size)
                    yield DealScore(
                        round=rnd.number, table=table, seat=seat, deal=k, points=points, score=score
                    )


def _ranked(lines: list[StandingLine]) -> list[StandingLine]:
    lines.sort(key=lambda line: (-line.score, line.name, line.player_id or ""))
    for line, position in zip(lines, positions([line.score for line in lines]), strict=True):
        line.position = position
    return lines


def standings(state: TournamentState) -> tuple[list[StandingLine], list[StandingLine]]:
    """(players, teams), best first, from every counted table of every round.

    ``you`` is left False (the service sets it per recipient). The teams'
    list is empty when ``settings.team_size`` is 0.
    """
    lines = {
        p.player_id: StandingLine(position=0, name=p.name, player_id=p.player_id, team=p.team)
        for p in state.players
    }
    totals: dict[str, float] = {}
    for result in deal_scores(state):
        pid = result.player_id
        if pid is None:
            continue
        line = lines.get(pid)
        if line is None:
            # Seated yet unknown to the list of players: keep their results
            # visible rather than drop them.
            names = result.table.names
            name = names[result.seat] if result.seat < len(names) else pid
            line = lines[pid] = StandingLine(position=0, name=name, player_id=pid)
        line.points += result.points
        line.deals += 1
        totals[pid] = totals.get(pid, 0.0) + result.score
    duplicate = state.settings.format == "duplicate"
    for pid, line in lines.items():
        total = totals.get(pid, 0.0)
        line.score = round(total / line.deals if duplicate and line.deals else total, 2)
    players = _ranked(list(lines.values()))
    if not state.settings.team_size:
        return players, []
    teams: dict[str, StandingLine] = {}
    for line in players:
        if not line.team:
            continue
        team = teams.setdefault(line.team, StandingLine(position=0, name=line.team, team=line.team))
        # The members' scores as shown, so that a team's line adds up by hand.
        team.score = round(team.score + line.score, 2)
        team.points += line.points
        team.deals += line.deals
    return players, _ranked(list(teams.values()))

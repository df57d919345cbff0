"""A tournament's decisions: pure functions of its state, a command and the
time, as ``server.table.core`` is for a table. Each returns a refusal (an
error code and a sentence) and changes nothing, or changes the state it is
given and returns None; the service saves it, then does what it asks for
(opening the tables of a new round: ``to_open``).

The rules: a host creates; players with keys join (a team's name in a team
tournament) until the host starts; the host may remove a player before a
round (from the next round on; the deals played still count); a round's
tables are drawn (``seating``) with their ids and deal seeds here, so the
state saved before any table is opened says which tables the round has (a
table that failed to open is opened again from it); a round ends when its
every table has told its points (``table_done``), and the next one is drawn
at once; after the last round the tournament is finished. Once a round is
``round_timeout`` old, its host may have bots finish it.
"""

from __future__ import annotations

import hashlib

from protocol.errors import ErrorCode
from protocol.tournaments import MAX_TOURNAMENT_PLAYERS, TournamentPlayer, TournamentSettings
from server.base.text import clean_text
from server.tournament.rules import team_problem
from server.tournament.seating import Unseatable, meetings, seat_round
from server.tournament.state import RoundState, TableEntry, TournamentState

Refusal = tuple[ErrorCode, str]

BOT_NAMES = ("Bot Ada", "Bot Blaise", "Bot Colette", "Bot Denis", "Bot Émile")


def create(
    code: str, settings: TournamentSettings, host: str, host_name: str, now: float, seed: str
) -> TournamentState:
    """A new tournament. Its host is not a player of it until it joins, as
    everyone does (the terminal client joins at once; a team tournament's host
    names its team then): a host may also run a tournament for others."""
    return TournamentState(
        code=code, settings=settings, host=host, host_name=host_name, created_at=now, seed=seed
    )


def join(state: TournamentState, player: str, name: str, team: str) -> Refusal | None:
    if state.status != "gathering":
        return _over(state) or ("tournament_started", "this tournament has started: too late")
    if state.player(player) is not None:
        return "already_joined", "you are in this tournament already"
    team = clean_text(team)  # shown to everyone: no control or bidi characters
    problem = team_problem(team, state.settings.team_size)
    if problem is not None:
        return "bad_tournament", problem
    if len(state.players) >= MAX_TOURNAMENT_PLAYERS:
        return "bad_tournament", f"a tournament has at most {MAX_TOURNAMENT_PLAYERS} players"
    # One team whatever the case its members type its name in.
    team = next((p.team for p in state.players if p.team.casefold() == team.casefold()), team)
    size = state.settings.team_size
    if size and sum(1 for p in state.players if p.team == team) >= size:
        return "team_full", f"team {team} has its {size} players already"
    state.players.append(TournamentPlayer(player_id=player, name=name, team=team))
    return None


def leave(state: TournamentState, player: str) -> Refusal | None:
    if state.status != "gathering":
        return _over(state) or ("tournament_started", "the tournament has started: stay seated")
    if state.player(player) is None:
        return "not_joined", "you are not in this tournament"
    state.players = [p for p in state.players if p.player_id != player]
    return None


def start(state: TournamentState, by: str, now: float) -> Refusal | None:
    refusal = _host(state, by)
    if refusal is not None:
        return refusal
    if state.status != "gathering":
        return "tournament_started", "the tournament has started already"
    return _next_round(state, now)


def remove(state: TournamentState, by: str, player: str) -> Refusal | None:
    """The host removes ``player``: before the start it leaves the list; once
    started it gets no seat from the next round on."""
    refusal = _host(state, by)
    if refusal is not None:
        return refusal
    found = state.player(player)
    if found is None or found.removed:
        return "not_joined", "this player is not in the tournament"
    if state.status == "gathering":
        state.players.remove(found)
    else:
        found.removed = True
    return None


def finish_at(state: TournamentState) -> float | None:
    """When the host may have bots finish the round under way (None: none is)."""
    current = state.current
    if state.status != "playing" or current is None:
        return None
    return current.started_at + state.settings.round_timeout


def hurry(state: TournamentState, by: str, now: float) -> Refusal | None:
    """``by`` has bots finish the round under way (the service then tells the
    round's unfinished tables, wherever they are served: ``hurried``)."""
    refusal = _host(state, by)
    if refusal is not None:
        return refusal
    at = finish_at(state)
    if at is None:
        return "too_early", "no round is under way yet: start the tournament first"
    if now < at:
        return "too_early", f"the host may end the round in {at - now:.0f} seconds"
    state.hurried = len(state.rounds)
    return None


def table_done(state: TournamentState, table_id: str, scores: list[list[int]], now: float) -> bool:
    """A table of the round under way told its points (each deal, each seat).
    True if that changed the state (a table tells once: a second telling,
    or a table of another round, changes nothing). When it was the round's
    last table, the next round is drawn, or the tournament is over."""
    current = state.current
    if state.status != "playing" or current is None:
        return False
    entry = next((t for t in current.tables if t.table_id == table_id), None)
    if entry is None or entry.finished:
        return False
    entry.scores = [list(deal) for deal in scores]
    entry.finished = True
    if current.finished:
        if len(state.rounds) >= state.settings.rounds:
            state.status = "finished"
        elif _next_round(state, now) is not None:
            # Nobody left to seat (the host removed too many): it ends here.
            state.status = "finished"
    return True


def to_open(state: TournamentState) -> list[TableEntry]:
    """The round's tables not finished: opened if no store has them (a fresh
    round, or one whose opening was cut short)."""
    current = state.current
    if state.status != "playing" or current is None:
        return []
    return [t for t in current.tables if not t.finished]


def seated(state: TournamentState, player: str) -> tuple[TableEntry, int] | None:
    """``player``'s table and seat in the round under way (or the last one)."""
    current = state.current
    if current is None:
        return None
    for table in current.tables:
        if player in table.seats:
            return table, table.seats.index(player)
    return None


# -- inside -------------------------------------------------------------------------


def _host(state: TournamentState, by: str) -> Refusal | None:
    if by != state.host:
        return "not_host", "only the tournament's host may do that"
    return _over(state)


def _over(state: TournamentState) -> Refusal | None:
    if state.status == "finished":
        return "tournament_finished", "this tournament is over"
    return None


def _next_round(state: TournamentState, now: float) -> Refusal | None:
    s = state.settings
    active = [p for p in state.players if not p.removed]
    number = len(state.rounds) + 1
    past = [[t.seats for t in r.tables] for r in state.rounds]
    try:
        drawn = seat_round(
            [p.player_id for p in active],
            teams={p.player_id: p.team for p in active if p.team},
            met=meetings(past),
            bots_fill=s.bots_fill,
            duplicate=s.format == "duplicate",
            seed=f"{state.seed}/round {number}",
        )
    except Unseatable as e:
        return "too_few_players", str(e)
    names = {p.player_id: p.name for p in state.players}
    tables = []
    for k, seats in enumerate(drawn):
        size = len(seats)
        # In duplicate, every table of one size plays the round's deals of that size.
        deals = f"{state.seed}/round {number}/" + (
            f"size {size}" if s.format == "duplicate" else f"table {k + 1}"
        )
        table_id = hashlib.sha256(f"{deals}/{k}".encode()).hexdigest()[:8]
        tables.append(
            TableEntry(
                number=k + 1,
                size=size,
                seats=list(seats),
                names=[names[p] if p is not None else BOT_NAMES[i] for i, p in enumerate(seats)],
                table_id=table_id,
                deal_seed=deals,
            )
        )
    state.rounds.append(RoundState(number=number, started_at=now, tables=tables))
    state.status = "playing"
    return None

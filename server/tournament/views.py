"""What a tournament shows one player (``view_for``): its settings, players,
the round's tables, the standings with that player's lines marked, and the
table that player is to sit at. The same view without a player is the
public one (``GET /tournaments/CODE``)."""

from __future__ import annotations

from protocol.tournaments import (
    StandingLine,
    TournamentSeat,
    TournamentTable,
    TournamentView,
)
from server.tournament import core
from server.tournament.standings import standings
from server.tournament.state import TableEntry, TournamentState


def view_for(state: TournamentState, player: str | None, now: float) -> TournamentView:
    lines, teams = standings(state)
    me = state.player(player) if player is not None else None
    team = me.team if me is not None else ""
    current = state.current
    tables = [_table(t) for t in current.tables] if current is not None else []
    seated = core.seated(state, player) if player is not None else None
    if seated is not None and (seated[0].finished or state.hurried == len(state.rounds)):
        # Nothing to sit at: the table is over, or its seats are the bots'
        # (the host had them finish the round).
        seated = None
    return TournamentView(
        code=state.code,
        settings=state.settings,
        host=state.host,
        host_name=state.host_name,
        status=state.status,
        round=len(state.rounds),
        players=state.players,
        tables=tables,
        waiting_for=sum(1 for t in tables if not t.finished),
        standings=[_mark(x, x.player_id is not None and x.player_id == player) for x in lines],
        teams=[_mark(x, bool(team) and x.name == team) for x in teams],
        your_table=seated[0].table_id if seated is not None else None,
        your_seat=seated[1] if seated is not None else None,
        finish_at=core.finish_at(state),
        you_host=player is not None and player == state.host,
    )


def _mark(line: StandingLine, you: bool) -> StandingLine:
    line.you = you
    return line


def _table(t: TableEntry) -> TournamentTable:
    return TournamentTable(
        number=t.number,
        table_id=t.table_id,
        players=t.size,
        seats=[TournamentSeat(name=n, player_id=p) for p, n in zip(t.seats, t.names, strict=True)],
        finished=t.finished,
        deals_played=len(t.scores),
    )

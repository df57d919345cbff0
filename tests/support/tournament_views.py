"""Tournament views built by hand, as the server would send them, for the
terminal client's tests (no server needed): a gathering tournament, a round
in play, the final standings."""

from __future__ import annotations

import time
from typing import Any

from protocol.tournaments import (
    StandingLine,
    TournamentPlayer,
    TournamentSeat,
    TournamentSettings,
    TournamentTable,
    TournamentView,
)

CODE = "K7QX2P"
NAMES = ("Alice", "Bob", "Chloé", "Dan", "Eve", "Fanny", "Gus", "Hugo", "Inès")
"""Nine players: a table of 4 and a table of 5. Alice (p0) hosts."""
YOU = 2
"""Whose client the views are for, by default: Chloé (p2), at table 1."""


def pid(i: int) -> str:
    return f"p{i}"


def tournament_players(teams: bool = False) -> list[TournamentPlayer]:
    return [
        TournamentPlayer(
            player_id=pid(i), name=name, team=("Rouge" if i % 2 else "Bleu") if teams else ""
        )
        for i, name in enumerate(NAMES)
    ]


def round_tables(
    finished: tuple[bool, bool] = (False, False), played: int = 2
) -> list[TournamentTable]:
    four, five = range(4), range(4, 9)
    return [
        TournamentTable(
            number=n + 1,
            table_id=f"t{n + 1}",
            players=len(seats),
            seats=[TournamentSeat(name=NAMES[i], player_id=pid(i)) for i in seats],
            finished=finished[n],
            deals_played=4 if finished[n] else played,
        )
        for n, seats in enumerate((four, five))
    ]


def standing_lines(you: int = YOU) -> list[StandingLine]:
    return [
        StandingLine(
            position=i + 1,
            name=name,
            player_id=pid(i),
            score=300.0 - 75.5 * i,
            points=300 - 75 * i,
            deals=4,
            you=i == you,
        )
        for i, name in enumerate(NAMES)
    ]


def tournament_view(
    status: str = "gathering",
    *,
    host: bool = False,
    you: int = YOU,
    teams: bool = False,
    **changes: Any,
) -> TournamentView:
    """What player ``you`` hears; ``host``: they host it (``you_host``)."""
    playing = status != "gathering"
    your_table = ("t1" if you < 4 else "t2") if playing else None
    view = TournamentView(
        code=CODE,
        settings=TournamentSettings(
            name="Vendredi", rounds=3, deals=4, team_size=2 if teams else 0
        ),
        host=pid(0),
        host_name=NAMES[0],
        status=status,  # type: ignore[arg-type]
        round=2 if playing else 0,
        players=tournament_players(teams),
        tables=round_tables() if playing else [],
        waiting_for=2 if status == "playing" else 0,
        standings=standing_lines(you) if playing else [],
        teams=[
            StandingLine(position=1, name="Rouge", team="Rouge", score=151.0, deals=16),
            StandingLine(position=2, name="Bleu", team="Bleu", score=-151.0, deals=20),
        ]
        if playing and teams
        else [],
        your_table=your_table,
        your_seat=(you % 4 if you < 4 else you - 4) if playing else None,
        finish_at=time.time() + 600 if status == "playing" else None,
        you_host=host,
    )
    for name, value in changes.items():
        setattr(view, name, value)
    return view


__all__ = [
    "CODE",
    "NAMES",
    "YOU",
    "pid",
    "round_tables",
    "standing_lines",
    "tournament_players",
    "tournament_view",
]

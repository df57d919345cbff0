"""What a tournament looks like on the wire: its settings, its players, its
tables and its standings (``TournamentView``), and the limits on what a host
may ask for.

A tournament is a group of players (with player keys: guests cannot enter a
ranked event) who play ``rounds`` rounds of ``deals`` deals, moved between
rounds to meet new opponents; docs/TOURNAMENTS.md says how seating, movement
and scoring work. Every field has a default, as in ``views.py``: a newer
server may add fields and older clients keep decoding.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from protocol.views import BotLevel

TournamentFormat = Literal["free", "duplicate"]
"""``free``: each table plays its own deals, ranked by points (comparable
across table sizes); ``duplicate``: every table of one size in a round plays
the same deals, each result ranked among those on the same cards."""
TournamentStatus = Literal["gathering", "playing", "finished"]
"""``gathering``: players join until the host starts; ``playing``: a round is
under way; ``finished``: the last round is over."""

MAX_ROUNDS: Final = 12
"""Rounds in a tournament (``TournamentCreate.rounds`` is 1 to this)."""
MAX_ROUND_DEALS: Final = 24
"""Deals per round (``TournamentCreate.deals`` is 1 to this)."""
MAX_TOURNAMENT_PLAYERS: Final = 200
"""Players in one tournament."""
TEAM_SIZES: Final = (0, 2, 4)
"""``TournamentCreate.team_size``: 0 means no teams."""
MAX_ROUND_TIMEOUT: Final = 24 * 3600.0
"""Seconds after a round starts before its host may have bots finish it."""
TEAM_NAME_MAX: Final = 24
"""Characters in a team's name."""


class TournamentSettings(msgspec.Struct, kw_only=True):
    """What the host chooses (``TournamentCreate``); fixed once created."""

    name: str = ""
    rounds: int = 3
    deals: int = 4
    """Deals each table plays in a round, annulled ones included (so that in
    ``duplicate`` every table of a size plays exactly the same deals)."""
    format: TournamentFormat = "free"
    team_size: int = 0
    """0: everyone for themselves; 2 or 4: teams whose members' results add
    up and who never share a table."""
    bot_level: BotLevel = "normal"
    """The level of the bots that fill seats (and play for players away)."""
    bots_fill: bool = False
    """True: every table seats four, bots filling the seats that the player
    count leaves; False: tables of 3 or 5 absorb the difference."""
    round_timeout: float = 1800.0
    """Seconds after a round starts when the host may have bots finish the
    deals still unplayed (``TournamentFinish``)."""


class TournamentPlayer(msgspec.Struct, kw_only=True):
    player_id: str
    name: str
    team: str = ""
    """The team's name ("" with no teams)."""
    removed: bool = False
    """The host removed the player: no seat from the next round on (the
    results already played still count)."""


class TournamentSeat(msgspec.Struct, kw_only=True):
    name: str
    player_id: str | None = None
    """None: a bot."""


class TournamentTable(msgspec.Struct, kw_only=True):
    """One table of the current round."""

    number: int
    """1 for the round's first table."""
    table_id: str
    players: int
    """The table's size: 3, 4 or 5."""
    seats: list[TournamentSeat] = msgspec.field(default_factory=list)
    finished: bool = False
    deals_played: int = 0


class StandingLine(msgspec.Struct, kw_only=True):
    position: int
    """1 for the best; lines level on ``score`` share a position."""
    name: str
    """A player's name, or a team's."""
    player_id: str | None = None
    """None on a team's line."""
    team: str = ""
    score: float = 0.0
    """What ranks: points (``free``, comparable across table sizes) or the
    mean percentage (``duplicate``), to 0.01."""
    points: int = 0
    """Raw points scored, whatever the format."""
    deals: int = 0
    """Deals played."""
    you: bool = False


class TournamentView(msgspec.Struct, kw_only=True):
    code: str
    settings: TournamentSettings = msgspec.field(default_factory=TournamentSettings)
    host: str = ""
    """The host's player id."""
    host_name: str = ""
    status: TournamentStatus = "gathering"
    round: int = 0
    """The round under way (or the last one played), from 1; 0 before the start."""
    players: list[TournamentPlayer] = msgspec.field(default_factory=list)
    tables: list[TournamentTable] = msgspec.field(default_factory=list)
    """The current round's tables."""
    waiting_for: int = 0
    """Tables of the round still playing."""
    standings: list[StandingLine] = msgspec.field(default_factory=list)
    """Players, best first, after the rounds (or deals) finished so far."""
    teams: list[StandingLine] = msgspec.field(default_factory=list)
    """Teams, best first (empty without teams)."""
    your_table: str | None = None
    """Your table this round (join it: your seat is kept for you)."""
    your_seat: int | None = None
    finish_at: float | None = None
    """When (Unix time) the host may have bots finish the round."""
    you_host: bool = False

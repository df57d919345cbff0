"""What a host may ask of a tournament: its settings' limits
(``protocol.tournaments``), checked before anything is made."""

from __future__ import annotations

import math
import typing

from protocol.limits import TABLE_NAME_MAX
from protocol.tournaments import (
    MAX_ROUND_DEALS,
    MAX_ROUND_TIMEOUT,
    MAX_ROUNDS,
    TEAM_NAME_MAX,
    TEAM_SIZES,
    TournamentFormat,
    TournamentSettings,
)
from protocol.views import BotLevel

FORMATS = typing.get_args(TournamentFormat)
BOT_LEVELS = typing.get_args(BotLevel)


def settings_problem(s: TournamentSettings) -> str | None:
    """Why ``s`` cannot be a tournament's settings (a sentence), or None."""
    if not 1 <= s.rounds <= MAX_ROUNDS:
        return f"a tournament has 1 to {MAX_ROUNDS} rounds"
    if not 1 <= s.deals <= MAX_ROUND_DEALS:
        return f"a round has 1 to {MAX_ROUND_DEALS} deals"
    if s.format not in FORMATS:
        return "the format is free or duplicate"
    if s.team_size not in TEAM_SIZES:
        return "teams are of 2 or 4 players (0: no teams)"
    if s.bot_level not in BOT_LEVELS:
        return "the bots' level is random, easy, normal or strong"
    if not math.isfinite(s.round_timeout) or not 60 <= s.round_timeout <= MAX_ROUND_TIMEOUT:
        return f"the round timeout is 60 to {MAX_ROUND_TIMEOUT:.0f} seconds"
    if len(s.name) > TABLE_NAME_MAX:
        return f"a tournament's name is at most {TABLE_NAME_MAX} characters"
    return None


def team_problem(team: str, team_size: int) -> str | None:
    """Why ``team`` cannot be named when joining, or None."""
    if team_size == 0 and team:
        return "this tournament has no teams"
    if team_size and not team.strip():
        return "this tournament is played in teams: name yours"
    if len(team) > TEAM_NAME_MAX:
        return f"a team's name is at most {TEAM_NAME_MAX} characters"
    return None

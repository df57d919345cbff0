"""A tournament's table mode: ``TournamentMode``, the policy of a table that
plays one round of a tournament (a ``TableMode``, ``server.table.mode``,
registered here under ``tournament``).

Its terms (``TournamentTag``) name the tournament, the round and the table,
and the player at each seat. Where such a table differs, the core asks this
policy (the ``TableMode`` interface, ``server.table.mode``):

- each seat is kept for its player: sitting there again needs no token
  (``held_seat``), leaving keeps it (``kept_seat``; a bot plays it after the
  grace period until the player is back, as for anyone away), and nobody
  else may sit or watch, even once it is finished (``join_refusal``: the
  other tables of a duplicate round play the same cards; the tournament's
  exports show each table once that no longer matters);
- the game is the round: ``deals`` deals *dealt*, annulled ones included,
  so every table of a size plays the same deals in ``duplicate``
  (``game_over``, ``every_deal_counts``); it is not played again
  (``again_refusal``); its deals come from the round's seed (``deal_seed``);
- its end is told like any table's (``GameOver``, ``server.table.ending``)
  to the tournament (``TournamentService.game_over``), with every seat's
  points on every deal;
- it closes once finished and idle, not before (``may_close``).

Pure: no I/O.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from protocol.views import TableStatus
from server.game import Game
from server.table.mode import Refusal
from server.table.modes import register

NOT_YOURS = "this is a tournament table: only its players sit there"
AGAIN_MESSAGE = "a tournament table plays its round once"
LEFT_REASON = "your tournament seat waits for you: a bot plays it until you are back"


class TournamentTag(msgspec.Struct, frozen=True):
    """What a tournament table keeps of its tournament."""

    code: str
    round: int
    number: int
    seats: tuple[str | None, ...]
    """The player id at each seat (None: a bot)."""
    deals: int


class TournamentMode(msgspec.Struct, frozen=True):
    tag: TournamentTag

    name: ClassVar[str] = "tournament"
    every_deal_counts: ClassVar[bool] = True
    hints: ClassVar[bool] = False  # a ranked game: nobody plays it with help

    @property
    def terms(self) -> TournamentTag:
        return self.tag

    @classmethod
    def restore(cls, terms: object) -> TournamentMode:
        return cls(msgspec.convert(terms, TournamentTag))

    def join_refusal(
        self, status: TableStatus, player: str | None, watching: bool
    ) -> Refusal | None:
        # Its players only, even once finished: a finished table of a
        # duplicate round shows (its history: every hand) the cards other
        # tables of its size may still be playing.
        if self.held_seat(player) is not None:
            return None
        return "tournament_table", NOT_YOURS

    def held_seat(self, player: str | None) -> int | None:
        if player is None or player not in self.tag.seats:
            return None
        return self.tag.seats.index(player)

    def kept_seat(self, status: TableStatus, seat: int) -> str | None:
        if status == "finished" or self.tag.seats[seat] is None:
            return None
        return LEFT_REASON

    def again_refusal(self) -> Refusal | None:
        return "tournament_table", AGAIN_MESSAGE

    def deal_seed(self, seed: str | None, games_played: int) -> str | None:
        return seed  # the round's seed: the game is played once

    def game_over(self, game: Game) -> bool:
        return game.finished or len(game.results) >= self.tag.deals

    def may_close(self, status: TableStatus, now: float) -> bool:
        return status == "finished"


register(TournamentMode.name, TournamentMode.restore)

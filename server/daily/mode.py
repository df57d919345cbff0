"""The daily game's table mode: ``DailyMode``, the policy of a daily table
(a ``TableMode``, ``server.table.mode``, registered here under ``daily``).

A daily table is an ordinary table whose mode is ``daily``, with a
``DailyTag`` for terms: one player's attempt at the day's game, that player
at the day's seat and three ``normal`` bots, which decide exactly as at any
table. Where a daily table differs, the core (``TableCore``) asks this
policy (the ``TableMode`` interface, ``server.table.mode``):

- nobody but its player may sit or watch until the game is finished
  (``join_refusal``);
- its player coming back without a resume token (another machine, a client
  that lost it) takes the seat back with a new token: the old one stops
  working (``held_seat``);
- leaving keeps the seat (``kept_seat``): the attempt goes on when the
  player is back, and bots play its turns after the grace period meanwhile,
  as for anyone away;
- ``again`` is refused: the ``daily`` command starts a practice game instead;
- the game ends after ``deals`` deals *dealt*, annulled ones included, so
  every player of the day plays the same deals (``game_over``), and deals
  are numbered as dealt (``every_deal_counts``); the table then tells its
  end like any table (``GameOver``, ``server.table.ending``), which
  ``DailyService.game_over`` records (server/daily/service.py);
- an unfinished attempt is not closed for idleness before its day is closed
  (``may_close``).

Pure: no I/O, ``now`` is passed in.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from protocol.views import TableStatus
from server.daily.board import is_closed
from server.daily.deals import DailyTag
from server.game import Game
from server.table.mode import Refusal
from server.table.modes import register

PRIVATE_MESSAGE = "this is someone's daily game: it opens to others when it is over"
AGAIN_MESSAGE = "a daily game is played once; the daily command starts a practice game"
LEFT_REASON = "your daily game waits for you: daily resumes it"


class DailyMode(msgspec.Struct, frozen=True):
    """One player's attempt at the day's game (``tag``)."""

    tag: DailyTag

    name: ClassVar[str] = "daily"
    every_deal_counts: ClassVar[bool] = True
    hints: ClassVar[bool] = False  # a ranked game: nobody plays it with help

    @property
    def terms(self) -> DailyTag:
        return self.tag

    @classmethod
    def restore(cls, terms: object) -> DailyMode:
        return cls(msgspec.convert(terms, DailyTag))

    def _owner(self, player: str | None) -> bool:
        return player is not None and player == self.tag.player

    def join_refusal(
        self, status: TableStatus, player: str | None, watching: bool
    ) -> Refusal | None:
        if not self._owner(player) and status != "finished":
            return "daily_private", PRIVATE_MESSAGE
        return None

    def held_seat(self, player: str | None) -> int | None:
        return self.tag.seat if self._owner(player) else None

    def kept_seat(self, status: TableStatus, seat: int) -> str | None:
        # Leaving the daily seat of an unfinished game keeps it (the attempt waits).
        return LEFT_REASON if seat == self.tag.seat and status != "finished" else None

    def again_refusal(self) -> Refusal | None:
        return "daily_again", AGAIN_MESSAGE

    def deal_seed(self, seed: str | None, games_played: int) -> str | None:
        return seed  # the day's seed: the game is played once

    def game_over(self, game: Game) -> bool:
        # The day's number of deals has been dealt (annulled ones count).
        return game.finished or len(game.results) >= self.tag.deals

    def may_close(self, status: TableStatus, now: float) -> bool:
        # An idle daily table closes once finished, or once its day is closed.
        return status == "finished" or is_closed(self.tag.day, now)


register(DailyMode.name, DailyMode.restore)

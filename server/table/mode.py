"""What a table's mode decides: the ``TableMode`` policy, and the normal mode.

Tables differ by mode (a normal table, a player's daily game, ...) only in a
few rules; the core (``TableCore``) asks the table's mode at each of them
and has no branch of its own for any mode:

- who may sit or watch, and which seat is kept for whom (``join_refusal``,
  ``held_seat``, ``kept_seat``);
- where the deals come from (``deal_seed``) and whether a game may be played
  again (``again_refusal``);
- when the game is over (``game_over``: the table then tells its mode's
  ``GameEnds``, ``server.table.ending``, such as the daily game recording
  the result);
- how deals are numbered (``every_deal_counts``) and when an idle table may
  close (``may_close``).

A mode is a value: its ``terms`` are kept in the table's persisted state
(``TableState.mode``/``terms``) and the registry (``server.table.modes``)
makes the policy again from them when a table is restored. Pure, like the
core: no I/O, ``now`` is passed in.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

import msgspec

from protocol.errors import ErrorCode
from protocol.views import TableStatus
from server.game import Game

Refusal = tuple[ErrorCode, str]
"""A refused request: its error code and the sentence for the person."""


class TableMode(Protocol):
    """The rules a table's mode decides (see the module docstring)."""

    @property
    def name(self) -> str:
        """The name the mode is registered and stored under."""

    @property
    def terms(self) -> object:
        """What the table's state keeps of the mode: a msgspec Struct (stored
        as a map, ``TableState.terms``) or None; ``restore`` takes it back."""

    @property
    def every_deal_counts(self) -> bool:
        """Deals are numbered as dealt, annulled ones included (else an
        annulled deal is an attempt at the next counted one)."""

    @property
    def hints(self) -> bool:
        """A seat may ask what the strong bot would do (``hint``): only where
        nothing is ranked (a casual table), never at a daily or tournament one."""

    def join_refusal(
        self, status: TableStatus, player: str | None, watching: bool
    ) -> Refusal | None:
        """Why ``player`` may not sit (or watch) now; None: it may."""

    def held_seat(self, player: str | None) -> int | None:
        """The seat kept for ``player`` whatever its token: it sits there, and
        takes it back with a new token if it is held (the old one stops working)."""

    def kept_seat(self, status: TableStatus, seat: int) -> str | None:
        """Leaving ``seat`` keeps it for its player (the reason told); None: it is vacated."""

    def again_refusal(self) -> Refusal | None:
        """Why a finished game may not be played again at this table; None: it may."""

    def deal_seed(self, seed: str | None, games_played: int) -> str | None:
        """The seed a new game's deals come from (None: random)."""

    def game_over(self, game: Game) -> bool:
        """The table's game is over (checked after each deal)."""

    def may_close(self, status: TableStatus, now: float) -> bool:
        """An idle table may close now (it is idle for ``idle_close`` already)."""


class NormalMode(msgspec.Struct, frozen=True):
    """A table anyone may join, play again and leave: the rules as they are."""

    name: ClassVar[str] = "normal"
    every_deal_counts: ClassVar[bool] = False
    hints: ClassVar[bool] = True

    @property
    def terms(self) -> None:
        return None

    @classmethod
    def restore(cls, terms: object) -> NormalMode:
        return NORMAL

    def join_refusal(
        self, status: TableStatus, player: str | None, watching: bool
    ) -> Refusal | None:
        return None

    def held_seat(self, player: str | None) -> int | None:
        return None

    def kept_seat(self, status: TableStatus, seat: int) -> str | None:
        return None

    def again_refusal(self) -> Refusal | None:
        return None

    def deal_seed(self, seed: str | None, games_played: int) -> str | None:
        # Each game played again at a seeded table has deals of its own.
        return f"{seed}#{games_played}" if seed is not None and games_played else seed

    def game_over(self, game: Game) -> bool:
        return game.finished

    def may_close(self, status: TableStatus, now: float) -> bool:
        return True


NORMAL = NormalMode()

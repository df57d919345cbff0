"""How a table tells the world its game is over: one effect, one interface.

Every table ends the same way, whatever its mode: the core, once the mode
says the game is over (``TableMode.game_over``), adds a ``GameOver`` after
the final save and views, and the actor hands it to what hears the games of
that mode (a ``GameEnds``, which its ``Home`` finds by the mode's name). The
daily game records the player's result and answers it a ``daily_result``
(server/daily/), a tournament takes its table's points and goes on with the
round (server/tournament/), a free table records nothing (``FreeTables``).
A new mode is a ``TableMode`` (its rules, registered in
``server.table.modes``) and a ``GameEnds`` (its end): the table imports
neither, and does not change.

Pure: no I/O here; a ``GameEnds`` does its own, awaited by the actor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from protocol.messages import Event
from server.table.inbox import Peer
from server.table.mode import TableMode

Told = tuple[Peer, Event]
"""A message for one connection at the table, sent by the table's actor."""


@dataclass(frozen=True, slots=True)
class GameOver:
    """The table's game is over: tell its mode's ``GameEnds``.

    Comes after the final save (the stored table says the same, which is what
    a mode reads again if this is lost) and after the final views.
    """

    table_id: str
    mode: TableMode
    """The table's mode, with its terms (a daily table's tag, a tournament's)."""
    scores: tuple[tuple[int, ...], ...]
    """Each deal's points, seat by seat, in the order dealt (an annulled deal: 0 each)."""
    seats: tuple[Peer | None, ...]
    """Each seat's connection now (None: away, or a bot)."""


class GameEnds(Protocol):
    """What hears the end of every game of one mode."""

    async def game_over(self, over: GameOver, log: Any) -> list[Told]:
        """Take the game's end (record it, go on); what to tell whom at the
        table. ``log``: the table's logger, to log what was not recorded."""
        ...


class FreeTables:
    """A free table's game end: nothing is ranked or recorded beyond its deal
    records, and nobody else waits for it; its players may play again."""

    async def game_over(self, over: GameOver, log: Any) -> list[Told]:
        return []


FREE_TABLES = FreeTables()

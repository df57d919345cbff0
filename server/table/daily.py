"""The daily game's rules at its table, as the core consults them.

A daily table is an ordinary table whose persisted state carries a
``DailyTag`` (``TableState.daily``): one player's attempt at the day's game,
that player at the day's seat and three ``normal`` bots, which decide exactly
as at any table. The tag is data; these functions are the policy the core
(``TableCore``) applies to it, at the points where a daily table differs:

- nobody but its player may sit or watch until the game is finished
  (``join_refusal``);
- its player coming back without a resume token (another machine, a client
  that lost it) takes the seat back with a new token: the old one stops
  working (``takes_back``);
- leaving keeps the seat (``keeps_seat``): the attempt goes on when the
  player is back, and bots play its turns after the grace period meanwhile,
  as for anyone away;
- ``again`` is refused: the ``daily`` command starts a practice game instead;
- the game ends after ``deals`` deals *dealt*, annulled ones included, so
  every player of the day plays the same deals (``game_over``); the table
  then asks for the result to be recorded (the ``DailyFinished`` effect,
  carried out through ``server.daily.service``);
- an unfinished attempt is not closed for idleness before its day is closed
  (``may_close``).

Pure: no I/O, ``now`` is passed in.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import ErrorCode
from protocol.views import TableStatus
from server.daily.board import is_closed
from server.daily.deals import DailyTag
from server.game.scoring import DealResult

PRIVATE_MESSAGE = "this is someone's daily game: it opens to others when it is over"
AGAIN_MESSAGE = "a daily game is played once; the daily command starts a practice game"
LEFT_REASON = "your daily game waits for you: daily resumes it"


def is_owner(tag: DailyTag, player: str | None) -> bool:
    return player is not None and player == tag.player


def join_refusal(tag: DailyTag, status: TableStatus, player: str | None) -> ErrorCode | None:
    """Why ``player`` may not sit at or watch the table now (None: it may)."""
    if not is_owner(tag, player) and status != "finished":
        return "daily_private"
    return None


def takes_back(tag: DailyTag, player: str | None, seat_kind: str) -> bool:
    """The owner sits again at a seat still held for it (no token needed)."""
    return is_owner(tag, player) and seat_kind == "human"


def keeps_seat(tag: DailyTag, status: TableStatus, seat: int | None) -> bool:
    """Leaving the daily seat of an unfinished game keeps it (the attempt waits)."""
    return seat == tag.seat and status != "finished"


def game_over(tag: DailyTag, results: Sequence[DealResult]) -> bool:
    """The day's number of deals has been dealt (annulled ones count)."""
    return len(results) >= tag.deals


def scores(tag: DailyTag, results: Sequence[DealResult]) -> list[int]:
    """The player's points in each of the day's deals (0 for an annulled one)."""
    return [r.scores[tag.seat] for r in results[: tag.deals]]


def may_close(tag: DailyTag, status: TableStatus, now: float) -> bool:
    """An idle daily table closes once finished, or once its day is closed."""
    return status == "finished" or is_closed(tag.day, now)

"""The ``DailyBoard`` contract: daily attempts, results and leaderboards.

Per UTC day (``day`` is its ISO date):

- ``claim``: a player's one ranked attempt, tied to the table playing it;
- ``record``: its result, the human seat's score on each deal, once;
- ``deal_counts``: every result on each deal (for "better than 73% of 41");
- ``page`` / ``position``: the leaderboards, ranked by ``server.daily.ranking``.

Periods: ``today`` and ``yesterday`` (one day each, points as second column);
``week`` (the 7 days ending with the last *closed* day) and ``all`` (every
closed day), both ranked by the mean daily percentage with the days played,
from ``MIN_DAYS`` days. A day is closed ``CLOSE_GRACE`` seconds after it ends
(UTC): an attempt begun just before midnight may still finish; a result
arriving later is refused (the attempt stays unranked) so closed days, and
the period boards made from them, never change.

``MemoryBoard`` (here) computes every board when asked: the embedded server
and tests. ``RedisBoard`` (``redis_board.py``) keeps them materialized and
gives the same answers; the contract tests run against both.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, Protocol

import msgspec

from server.daily.deals import day_start, utc_day
from server.daily.ranking import (
    MIN_DAYS,
    board_score,
    day_standings,
    from_board_score,
    period_standings,
    positions,
)

Period = Literal["today", "yesterday", "week", "all"]
PERIODS: tuple[Period, ...] = ("today", "yesterday", "week", "all")

CLOSE_GRACE = 3600.0
WEEK_DAYS = 7


class BoardLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a leaderboard, without the display name."""

    position: int
    player: str
    percent: float
    points: int = 0
    """Day boards: the day's points total."""
    days: int = 1
    """Period boards: days played."""


def last_closed_day(now: float) -> dt.date:
    """The latest day whose results are final at ``now``."""
    return utc_day(now - CLOSE_GRACE) - dt.timedelta(days=1)


def is_closed(day: str, now: float) -> bool:
    return dt.date.fromisoformat(day) <= last_closed_day(now)


def board_days(period: Period, now: float) -> tuple[dt.date, dt.date]:
    """The first and last day a board covers at ``now`` (``all``: from year 1)."""
    today = utc_day(now)
    if period == "today":
        return today, today
    if period == "yesterday":
        day = today - dt.timedelta(days=1)
        return day, day
    last = last_closed_day(now)
    if period == "week":
        return last - dt.timedelta(days=WEEK_DAYS - 1), last
    return dt.date.min, last


class DailyBoard(Protocol):
    async def claim(self, day: str, player: str, table_id: str) -> str | None:
        """Claim ``player``'s ranked attempt of ``day`` for ``table_id``.

        Returns ``None`` when claimed now, else the table id of the earlier
        claim (the attempt to resume, or the one already played).
        """
        ...

    async def record(self, day: str, player: str, scores: list[int], now: float) -> bool:
        """Record the result of a claimed attempt; ``False`` (nothing stored)
        if it was recorded already, was never claimed, or the day is closed."""
        ...

    async def result(self, day: str, player: str) -> list[int] | None: ...

    async def deal_counts(self, day: str) -> list[dict[int, int]]:
        """Per deal, ``{score: number of results}``."""
        ...

    async def page(
        self, period: Period, now: float, start: int, count: int
    ) -> tuple[list[BoardLine], int]:
        """Lines ``start`` to ``start + count - 1`` (best first) and the total listed."""
        ...

    async def position(self, period: Period, now: float, player: str) -> BoardLine | None:
        """``player``'s line, or ``None`` if not listed."""
        ...


def sort_lines(keyed: list[tuple[float, str, float, int, int]]) -> list[BoardLine]:
    """``(board score, player, percent, points, days)`` -> lines in board order.

    Board order is the Redis sorted set's: score, then player id, descending.
    """
    keyed.sort(key=lambda k: (k[0], k[1]), reverse=True)
    ranks = positions([k[0] for k in keyed])
    return [
        BoardLine(position=r, player=p, percent=pc, points=pt, days=d)
        for r, (_, p, pc, pt, d) in zip(ranks, keyed, strict=True)
    ]


class MemoryBoard:
    """Everything in dicts, every board computed when asked."""

    def __init__(self) -> None:
        self._claims: dict[str, dict[str, str]] = {}
        self._results: dict[str, dict[str, list[int]]] = {}

    async def claim(self, day: str, player: str, table_id: str) -> str | None:
        claims = self._claims.setdefault(day, {})
        if player in claims:
            return claims[player]
        claims[player] = table_id
        return None

    async def record(self, day: str, player: str, scores: list[int], now: float) -> bool:
        results = self._results.setdefault(day, {})
        if player in results or player not in self._claims.get(day, {}) or is_closed(day, now):
            return False
        results[player] = list(scores)
        return True

    async def result(self, day: str, player: str) -> list[int] | None:
        return self._results.get(day, {}).get(player)

    async def deal_counts(self, day: str) -> list[dict[int, int]]:
        counts: list[dict[int, int]] = []
        for scores in self._results.get(day, {}).values():
            for k, score in enumerate(scores):
                while len(counts) <= k:
                    counts.append({})
                counts[k][score] = counts[k].get(score, 0) + 1
        return counts

    def _day_percents(self, day: dt.date) -> dict[str, float]:
        return {
            line.player: line.percent
            for line in day_standings(self._results.get(day.isoformat(), {}))
        }

    def _lines(self, period: Period, now: float) -> list[BoardLine]:
        first, last = board_days(period, now)
        if period in ("today", "yesterday"):
            lines = day_standings(self._results.get(first.isoformat(), {}))
            keyed = [
                (board_score(x.percent, x.points), x.player, x.percent, x.points, 1) for x in lines
            ]
        else:
            days = [
                self._day_percents(dt.date.fromisoformat(d))
                for d in self._results
                if first <= dt.date.fromisoformat(d) <= last
            ]
            keyed = [
                (board_score(x.percent, x.days), x.player, x.percent, 0, x.days)
                for x in period_standings(days, MIN_DAYS)
            ]
        # Percentages as a board shows them: to 0.01, like the Redis board.
        keyed = [(k, p, from_board_score(k)[0], pt, d) for k, p, _, pt, d in keyed]
        return sort_lines(keyed)

    async def page(
        self, period: Period, now: float, start: int, count: int
    ) -> tuple[list[BoardLine], int]:
        lines = self._lines(period, now)
        return lines[start : start + count], len(lines)

    async def position(self, period: Period, now: float, player: str) -> BoardLine | None:
        return next((x for x in self._lines(period, now) if x.player == player), None)


__all__ = ["PERIODS", "BoardLine", "DailyBoard", "MemoryBoard", "Period", "day_start"]

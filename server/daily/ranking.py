"""Duplicate-style ranking: every player of a day faced the same cards, so a
result is compared with every other result on the same deal.

- A deal: the percentage of the *other* results on that deal this one beats,
  a tie counting half. A result alone on its deal gets 50%: with nobody to
  compare against it is neither better nor worse (and a lone early player
  does not sit at 100% until the next one arrives).
- A day: the mean of the player's deal percentages; the points total (the
  human seat's score summed over the deals) is the second column and breaks
  ties.
- A period (7 days, all time): the mean of the daily percentages over the
  days played, listed from ``MIN_DAYS`` days played; more days break ties.

Positions are shared by exact ties ("1, 2, 2, 4"). Pure functions: no I/O.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence

import msgspec

MIN_DAYS = 3
"""Days played to be listed on a 7-day or all-time board."""

_TIE_SPAN = 10**7
_TIE_MAX = _TIE_SPAN // 2 - 1


class DayLine(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    percent: float
    points: int


class PeriodLine(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    percent: float
    days: int


def percent_beaten(score: int, ordered: Sequence[int]) -> float:
    """The percentage of the results in ``ordered`` (sorted, and including
    ``score`` itself once) that ``score`` beats, ties half."""
    n = len(ordered)
    if n <= 1:
        return 50.0
    below = bisect.bisect_left(ordered, score)
    equal = bisect.bisect_right(ordered, score) - below
    return 100.0 * (below + 0.5 * (equal - 1)) / (n - 1)


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    """One result against the *other* results on its deal."""

    others: int
    """The other results (this one left out)."""
    beaten: int
    """Others scoring less."""
    tied: int
    """Others scoring the same."""

    @property
    def percent(self) -> float:
        """Of the others beaten, a tie counting half; 50 with nobody to compare."""
        if self.others == 0:
            return 50.0
        return 100.0 * (self.beaten + 0.5 * self.tied) / self.others


def compare(score: int, counts: Mapping[int, int]) -> Comparison:
    """``score`` against a deal's ``{score: how many results}``, which includes
    this result once (it is left out of the comparison)."""
    others = sum(counts.values()) - 1
    beaten = sum(c for s, c in counts.items() if s < score)
    tied = counts.get(score, 0) - 1
    return Comparison(others=max(0, others), beaten=beaten, tied=max(0, tied))


def day_standings(results: Mapping[str, Sequence[int]]) -> list[DayLine]:
    """Each player's day from ``{player: [score on deal 0, deal 1, ...]}``,
    best first. A deal is compared among the results that have it."""
    deals = max((len(r) for r in results.values()), default=0)
    ordered = [sorted(r[k] for r in results.values() if len(r) > k) for k in range(deals)]
    lines = []
    for player, scores in results.items():
        if not scores:
            continue
        percents = [percent_beaten(s, ordered[k]) for k, s in enumerate(scores)]
        lines.append(
            DayLine(player=player, percent=sum(percents) / len(percents), points=sum(scores))
        )
    lines.sort(key=lambda line: (-line.percent, -line.points, line.player))
    return lines


def period_standings(
    days: Iterable[Mapping[str, float]], min_days: int = MIN_DAYS
) -> list[PeriodLine]:
    """Mean daily percentage per player over ``days`` (each ``{player: the
    day's percent}``), for players with at least ``min_days`` days, best first."""
    sums: dict[str, float] = {}
    played: dict[str, int] = {}
    for day in days:
        for player, percent in day.items():
            sums[player] = sums.get(player, 0.0) + percent
            played[player] = played.get(player, 0) + 1
    lines = [
        PeriodLine(player=p, percent=sums[p] / n, days=n)
        for p, n in played.items()
        if n >= min_days
    ]
    lines.sort(key=lambda line: (-line.percent, -line.days, line.player))
    return lines


def board_score(percent: float, tiebreak: int) -> float:
    """One sorted-set score ordering by percent (to 0.01), then ``tiebreak``.

    Exact in a double: at most 10,000 * 10^7 + 10^7 < 2^53. The tiebreak
    (points or days) is clamped to +-4,999,999.
    """
    # Half up, as the Lua side rounds (Python's round() goes to even).
    centi = math.floor(percent * 100 + 0.5)
    return float(centi * _TIE_SPAN + max(-_TIE_MAX, min(_TIE_MAX, tiebreak)) + _TIE_SPAN // 2)


def from_board_score(score: float) -> tuple[float, int]:
    """``(percent, tiebreak)`` back from ``board_score``."""
    whole = round(score)
    centi, rest = divmod(whole, _TIE_SPAN)
    return centi / 100, rest - _TIE_SPAN // 2


def positions(keys: Sequence[float]) -> list[int]:
    """Competition positions for keys sorted best (highest) first: 1, 2, 2, 4."""
    out: list[int] = []
    for i, key in enumerate(keys):
        out.append(out[-1] if i and key == keys[i - 1] else i + 1)
    return out

"""What a view shows of a game's progress: the deals finished before the
one shown and its public moves in order, and which acknowledged moves a
restored view is missing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Progress:
    """The deals finished before the one shown, and its public moves in order."""

    sheet: int
    moves: tuple[Any, ...]

    @classmethod
    def of(cls, view: Any) -> Progress:
        deal = view.get("deal")
        if deal is None:
            return cls(len(view["sheet"]), ())
        # A deal's line goes on the sheet as soon as it is over: count the
        # lines before the deal shown, so the next deal ranks after it.
        over = deal["phase"] in ("done", "annulled")
        sheet = len(view["sheet"]) - (1 if over else 0)
        moves: list[Any] = [(b["seat"], b["bid"]) for b in deal["bids"]]
        for trick in deal["tricks"]:
            moves += trick["cards"]
        if deal.get("trick"):
            moves += deal["trick"]["cards"]
        return cls(sheet, tuple(moves))

    def __ge__(self, other: Progress) -> bool:
        return (self.sheet, len(self.moves)) >= (other.sheet, len(other.moves))

    def lost_from(self, acked: Progress) -> int:
        """Acknowledged moves missing from this (restored) progress."""
        if self.sheet > acked.sheet:
            return 0
        if self.sheet < acked.sheet:
            return len(acked.moves) + 1  # a whole finished deal went back
        common = 0
        for a, b in zip(self.moves, acked.moves, strict=False):
            if a != b:
                break
            common += 1
        return len(acked.moves) - common

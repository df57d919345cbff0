"""Bots: seats that decide from their ``TableView`` alone, so they cannot cheat.

``make_bot(level, seed)`` returns a ``Bot``; ``bot.decide(view)`` returns the
game command (``Bid``, ``Ecart``, ``Chelem``, ``Poignee`` or ``Play``) for the
decision ``view.legal`` asks for. The table runs the same code for an empty
seat, for a human who is away and for a turn timer that runs out.
"""

from __future__ import annotations

import random
from typing import Protocol

from protocol.messages import Bid, Chelem, Ecart, GameCommand, Play
from protocol.views import TableView

LEVELS = ("random", "easy", "normal", "strong")


class Bot(Protocol):
    def decide(self, view: TableView) -> GameCommand:
        """The command for the decision the view's ``legal`` asks for."""
        ...


class RandomBot:
    """Uniformly random legal choices (for tests and as the weakest level)."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: TableView) -> GameCommand:
        legal = view.legal
        if legal.bids:
            return Bid(bid=self.rng.choice(legal.bids))
        if legal.ecart:
            suits = [c for c in legal.ecart if not c.startswith("T")]
            trumps = [c for c in legal.ecart if c.startswith("T")]
            if legal.ecart_trumps:
                return Ecart(cards=suits + self.rng.sample(trumps, legal.ecart_trumps))
            return Ecart(cards=self.rng.sample(suits, 6))
        if legal.chelem:
            return Chelem(declare=False)
        if legal.cards:
            return Play(card=self.rng.choice(legal.cards))
        raise ValueError("the view asks for no decision")


def make_bot(level: str, seed: int | str | None = None) -> Bot:
    """A bot of the given level (see ``LEVELS``)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    return RandomBot(seed)

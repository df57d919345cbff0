"""Bots: seats that decide from their ``TableView`` alone, so they cannot cheat.

``make_bot(level, seed)`` returns a ``Bot``; ``bot.decide(view)`` returns the
game command (``Bid``, ``Ecart``, ``Chelem``, ``Poignee`` or ``Play``) for the
decision ``view.legal`` asks for. The table runs the same code for an empty
seat, for a human who is away and for a turn timer that runs out.

A poignée is a decision of its own: while ``view.legal.poignee_sizes`` is
non-empty a bot may answer ``Poignee(cards=...)``, and the table then asks
again for the card (``poignee_sizes`` is empty the second time); answering
``Play`` at once declines the poignée. A bot never answers an illegal command.

Levels, weakest first (measured in duplicate: ``docs/BOTS.md``):

* ``random``: uniformly random legal choices (this module);
* ``easy``: a beginner's simple rules (``easy.py``);
* ``normal``: a sound player's rules of thumb (``normal.py``);
* ``strong``: plays out sampled deals with the engine within a time budget
  per decision (``strong.py``).
"""

from __future__ import annotations

import random
from typing import Protocol

from protocol.messages import Bid, Call, Chelem, Ecart, GameCommand, Play
from protocol.views import TableView

LEVELS = ("random", "easy", "normal", "strong")
DEFAULT_BUDGET_S = 0.3
"""``strong``'s thinking time per decision, in seconds."""


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
        if legal.calls:
            return Call(card=self.rng.choice(legal.calls))
        if legal.ecart:
            suits = [c for c in legal.ecart if not c.startswith("T")]
            trumps = [c for c in legal.ecart if c.startswith("T")]
            if legal.ecart_trumps:
                return Ecart(cards=suits + self.rng.sample(trumps, legal.ecart_trumps))
            return Ecart(cards=self.rng.sample(suits, legal.ecart_size))
        if legal.chelem:
            return Chelem(declare=False)
        if legal.cards:
            return Play(card=self.rng.choice(legal.cards))
        raise ValueError("the view asks for no decision")


def make_bot(level: str, seed: int | str | None = None, *, budget_s: float | None = None) -> Bot:
    """A bot of the given level (see ``LEVELS``).

    ``budget_s`` is ``strong``'s thinking time per decision (default
    ``DEFAULT_BUDGET_S``); the other levels answer at once and ignore it.
    The same level, seed and views give the same decisions, except that
    ``strong`` searches as far as its clock allows.
    """
    # Imported here so that importing the package stays light for the server.
    if level == "random":
        return RandomBot(seed)
    if level == "easy":
        from server.bots.easy import EasyBot

        return EasyBot(seed)
    if level == "normal":
        from server.bots.normal import NormalBot

        return NormalBot(seed)
    if level == "strong":
        from server.bots.strong import StrongBot

        return StrongBot(seed, budget_s=DEFAULT_BUDGET_S if budget_s is None else budget_s)
    raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")

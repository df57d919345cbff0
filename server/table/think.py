"""How long a bot seems to think over a decision, as a pure function of the deal.

People answer a forced card at once and stop over the écart or the first
lead; a bot that always waited the same ``bot_think`` felt mechanical. The
pause is ``bot_think`` times a factor that grows with how hard the decision
looks from outside: the kind of decision, and for a card how many cards
the seat may play and whether it leads. It never depends on the bot's level,
on how long the bot took, nor on anything hidden but the number of legal
cards (which a person's pace shows as well): at five players the partner's
seat thinks exactly as long as a defender's would with the same shape
(issue 24: the pace of play must not tell who the partner is).
"""

from __future__ import annotations

from typing import Final

from server.game import Deal

FORCED: Final = 0.4
"""A single legal card (or the chelem question, which bots answer at once)."""
FOLLOW: Final = 1.0
"""Following a trick with a few cards to choose from; also a bid."""
FOLLOW_MANY: Final = 1.2
"""Following with more than ``MANY`` cards to choose from."""
MANY: Final = 3
LEAD: Final = 1.3
"""Leading a trick: any card of the hand, the play's plan."""
HARD: Final = 1.6
"""The call, a poignée and the first lead of the deal."""
ECART: Final = 2.0
"""The écart: the longest decision of a deal."""


def think_factor(deal: Deal, seat: int) -> float:
    """The share of ``bot_think`` ``seat`` takes over its decision now (0.4 to 2)."""
    phase = deal.phase
    if phase == "ecart":
        return ECART
    if phase == "call":
        return HARD
    if phase == "chelem":
        return FORCED
    if phase != "play":
        return FOLLOW  # bidding
    if deal.poignee_sizes(seat):
        return HARD
    choices = len(deal.legal_cards())
    if choices <= 1:
        return FORCED
    if not deal.trick:
        return HARD if not deal.tricks else LEAD
    return FOLLOW_MANY if choices > MANY else FOLLOW


def think_time(bot_think: float, deal: Deal, seat: int) -> float:
    """Seconds ``seat``'s bot waits before its move goes out."""
    return bot_think * think_factor(deal, seat)

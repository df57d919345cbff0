"""The one path from a wire command to the rules engine.

A seat's game command (``Bid``, ``Ecart``, ``Chelem``, ``Poignee``, ``Play``,
as decoded from the wire or chosen by a bot) becomes one engine call here,
for the table, the bots' harness and sampling alike. Every refusal is a
``RuleError`` with one of the engine's stable codes (``unknown_card`` for a
code that names no card, the engine's own codes for the rest); the engine
refuses before it changes anything, so a refused command leaves the deal as
it was.
"""

from __future__ import annotations

from protocol.cards import CARD_OF
from protocol.messages import Bid, Chelem, Ecart, GameCommand, Play, Poignee
from server.game import Deal, RuleError


def parse_cards(codes: list[str], seat: int) -> list[int]:
    """Card numbers of wire card codes (``RuleError("unknown_card")`` for a bad one)."""
    out = []
    for c in codes:
        card = CARD_OF.get(c)
        if card is None:
            raise RuleError("unknown_card", f"{c!r} is not a card code", seat=seat, card=c)
        out.append(card)
    return out


def apply_command(deal: Deal, seat: int, command: GameCommand) -> None:
    """Carry out ``seat``'s game command on ``deal`` (raises ``RuleError`` if refused)."""
    match command:
        case Bid(bid=bid):
            deal.bid(seat, bid)
        case Ecart(cards=cards):
            deal.ecart(seat, parse_cards(cards, seat))
        case Chelem(declare=declare):
            deal.declare_chelem(seat, declare)
        case Poignee(cards=cards):
            deal.declare_poignee(seat, parse_cards(cards, seat))
        case Play(card=card):
            deal.play(seat, parse_cards([card], seat)[0])
        case _:
            raise RuleError("unexpected", f"{type(command).__name__} is not a game command")

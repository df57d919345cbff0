"""The one path from a wire command to the rules engine.

A seat's game command (``Bid``, ``Ecart``, ``Chelem``, ``Poignee``,
``Play``, and ``Call``, the taker's called card at five players: decoded from
the wire, or chosen by a bot) becomes the engine's
``Action`` ``(kind, seat, value)`` here, and ``Deal.apply`` carries it out
through the engine's one dispatch table, the same one that replays a saved
deal's log. The table, the bots' harness and the record replayer all come
through here, so a refusal always reads the same: a ``RuleError`` with one of
the engine's stable codes (``unknown_card`` for a code that names no card).
The engine refuses before it changes anything.
"""

from __future__ import annotations

from protocol.cards import CARD_OF
from protocol.errors import ErrorCode
from protocol.messages import Bid, Call, Chelem, Ecart, GameCommand, Play, Poignee
from server.game.deal import Action, Deal
from server.game.errors import RuleError


def parse_cards(
    codes: list[str], seat: int | None = None, *, code: ErrorCode = "unknown_card", what: str = ""
) -> list[int]:
    """Card numbers of card codes; a code naming no card is a ``RuleError(code)``."""
    out = []
    for c in codes:
        card = CARD_OF.get(c)
        if card is None:
            where = f"{what}: " if what else ""
            raise RuleError(code, f"{where}{c!r} is not a card code", seat=seat, card=c)
        out.append(card)
    return out


def to_action(seat: int, command: GameCommand) -> Action:
    """The engine action for ``seat``'s command (card codes checked, nothing applied)."""
    match command:
        case Bid(bid=bid):
            return ("bid", seat, bid)
        case Ecart(cards=cards):
            return ("ecart", seat, parse_cards(cards, seat))
        case Chelem(declare=declare):
            return ("chelem", seat, declare)
        case Poignee(cards=cards):
            return ("poignee", seat, parse_cards(cards, seat))
        case Play(card=card):
            return ("play", seat, parse_cards([card], seat)[0])
        case Call(card=card):
            return ("call", seat, parse_cards([card], seat, code="bad_call")[0])
    raise RuleError("unexpected", f"{type(command).__name__} is not a game command", seat=seat)


def apply_command(deal: Deal, seat: int, command: GameCommand) -> None:
    """Carry out ``seat``'s game command on ``deal`` (raises ``RuleError`` if refused)."""
    if type(command) is Play and deal.phase == "play":
        # Most commands: a card in the play, with none of ``to_action``'s
        # class patterns before it (an isinstance of a Struct each, through its
        # metaclass) nor its list of one card; what ``deal.apply`` would call.
        card = CARD_OF.get(command.card)
        if card is not None:
            deal.play(seat, card)
            return
    deal.apply(to_action(seat, command))

"""A hint: the strong bot's decision for a person's seat, with a one-line reason.

``advise(view, seed, budget_s)`` asks ``strong`` what it would send from the
person's own view (so a hint tells nothing the seat does not see) and
names why with a stable reason code (``REASONS``) that each client words in
its language, e.g. ``keep_petit`` ("keeps the Petit safe") or ``long_suit``
with the suit ("long in hearts"). The reason is read from the hand and the
trick by simple rules, after the choice: it explains, it does not decide.
"""

from __future__ import annotations

from typing import Final

from protocol.cards import (
    BOUTS_MASK,
    CARD_OF,
    EXCUSE,
    HALF_POINTS,
    KING_RANK,
    PETIT,
    PLAIN_SUITS,
    SUIT_MASKS,
    SUIT_OF,
    SUITS,
    TRUMP,
    TRUMP_MASK,
)
from protocol.messages import Bid, Call, Chelem, Ecart, GameCommand, HintAnswer, Play, Poignee
from protocol.views import TableView
from server.bots.evaluation import long_suit_from
from server.bots.knowledge import Knowledge, mask_of_codes
from server.bots.normal import trick_state
from server.bots.strong import StrongBot
from server.bots.tactics import beating

REASONS: Final = (
    "weak_hand",  # pass: the hand does not make a contract
    "trumps_and_bouts",  # a bid on trumps and bouts
    "long_suit",  # a bid, a lead: long in {suit}
    "strong_hand",  # a bid: many honours
    "call_king",  # the call: the King of {suit}
    "void_suit",  # the écart: voids {suit} to trump it
    "bank_points",  # the écart: puts points away safe
    "no_chelem",  # no chelem
    "show_poignee",  # show the poignée: its bonus
    "only_card",  # the only card it may play
    "save_petit",  # the Petit to a trick its camp wins
    "keep_petit",  # a trump that keeps the Petit safe
    "petit_au_bout",  # the Petit in the last trick
    "excuse",  # the Excuse instead of a card worth points
    "draw_trumps",  # lead trumps to draw the defence's
    "cash_king",  # lead a King before it is trumped
    "win_trick",  # take the trick
    "give_points",  # a rich card to a partner's trick
    "cheap_card",  # the cheapest card: the trick is lost
)
"""Every reason a hint gives (docs/PROTOCOL.md, ``hint``)."""


def advise(view: TableView, seed: str, budget_s: float) -> HintAnswer:
    """What the strong bot would send from ``view``, and why (``rid`` unset)."""
    command = StrongBot(seed, budget_s=budget_s).decide(view)
    return explain(view, command)


def explain(view: TableView, command: GameCommand) -> HintAnswer:
    """The hint for ``command`` chosen from ``view``: its reason, read by rules."""
    k = Knowledge.from_view(view)
    match command:
        case Bid(bid=bid):
            reason, suit = _bid_reason(k, bid)
            return HintAnswer(command="bid", choice=[bid], reason=reason, suit=suit)
        case Call(card=card):
            return HintAnswer(
                command="call", choice=[card], reason="call_king", suit=_suit(CARD_OF[card])
            )
        case Ecart(cards=cards):
            reason, suit = _ecart_reason(k, cards)
            return HintAnswer(command="ecart", choice=cards, reason=reason, suit=suit)
        case Chelem(declare=declare):
            return HintAnswer(
                command="chelem", choice=["yes" if declare else "no"], reason="no_chelem"
            )
        case Poignee(cards=cards):
            return HintAnswer(command="poignee", choice=cards, reason="show_poignee")
        case Play(card=card):
            reason, suit = _play_reason(k, mask_of_codes(view.legal.cards), CARD_OF[card])
            return HintAnswer(command="play", choice=[card], reason=reason, suit=suit)
    raise ValueError(f"no hint for {command!r}")


def _suit(card: int) -> str:
    suit = SUIT_OF[card]
    return SUITS[suit] if suit in PLAIN_SUITS else ""


def _longest(k: Knowledge) -> tuple[int, int]:
    """The longest plain suit of the hand and its length."""
    suit = max(PLAIN_SUITS, key=lambda s: (k.hand & SUIT_MASKS[s]).bit_count())
    return suit, (k.hand & SUIT_MASKS[suit]).bit_count()


def _bid_reason(k: Knowledge, bid: str) -> tuple[str, str]:
    if bid == "pass":
        return "weak_hand", ""
    trumps = (k.hand & TRUMP_MASK).bit_count()
    bouts = (k.hand & BOUTS_MASK).bit_count()
    if bouts >= 2 or trumps * 3 >= k.variant.hand_size:
        return "trumps_and_bouts", ""
    suit, length = _longest(k)
    if length >= long_suit_from(k.variant):
        return "long_suit", SUITS[suit]
    return "strong_hand", ""


def _ecart_reason(k: Knowledge, cards: list[str]) -> tuple[str, str]:
    left = k.hand & ~mask_of_codes(cards)
    for suit in PLAIN_SUITS:
        if k.hand & SUIT_MASKS[suit] and not left & SUIT_MASKS[suit]:
            return "void_suit", SUITS[suit]
    return "bank_points", ""


def _play_reason(k: Knowledge, legal: int, card: int) -> tuple[str, str]:
    if not legal & (legal - 1):
        return "only_card", ""
    if card == PETIT:
        return ("petit_au_bout" if k.hand.bit_count() == 1 else "save_petit"), ""
    if card == EXCUSE:
        return "excuse", ""
    suit = SUIT_OF[card]
    if k.hand >> PETIT & 1 and suit == TRUMP:
        return "keep_petit", ""
    led, top, winner = trick_state(k)
    if led < 0:
        if suit == TRUMP:
            return "draw_trumps", ""
        if card % 14 == KING_RANK:
            return "cash_king", SUITS[suit]
        long_suit, _ = _longest(k)
        return ("long_suit", SUITS[suit]) if suit == long_suit else ("cheap_card", "")
    if beating(top, led) >> card & 1:
        return "win_trick", ""
    if winner >= 0 and k.partners(winner) and HALF_POINTS[card] > 1:
        return "give_points", ""
    return "cheap_card", ""

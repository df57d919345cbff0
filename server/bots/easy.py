"""The ``easy`` bot: a beginner's few simple rules.

It bids by counting trumps and bouts, puts its richest cards in the écart,
shows a poignée when it can, and in play takes a trick whenever it can with
its lowest winning card, else plays its lowest card. It knows nothing of
partners, of the Petit's danger, or of the Excuse beyond not keeping it to
the end.
"""

from __future__ import annotations

import random

from protocol.cards import (
    BOUTS_MASK,
    CARD_OF,
    CODES,
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    SUIT_MASKS,
    SUIT_OF,
    TRUMP_MASK,
)
from protocol.messages import Bid, Call, Chelem, Ecart, GameCommand, Play, Poignee
from protocol.views import TableView
from server.bots.knowledge import Knowledge, mask_of_codes
from server.bots.normal import trick_state
from server.bots.tactics import beating, highest, iter_cards, lowest
from server.game.variant import FOUR, Variant

EASY_PRISE = 7
EASY_GARDE = 11
"""easy's bars (trumps + 2 × bouts, for 18 cards): lower than a sound
player's, so that it takes about as often as ``normal`` and makes less."""


class EasyBot:
    """Simple rules from the view alone (see the module docstring)."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: TableView) -> GameCommand:
        legal = view.legal
        k = Knowledge.from_view(view)
        if legal.bids:
            return Bid(bid=_bid(k.hand, legal.bids, k.variant))
        if legal.calls:
            return Call(card=_call(k.hand, legal.calls))
        if legal.ecart:
            ecart = _ecart(mask_of_codes(legal.ecart), legal.ecart_trumps, legal.ecart_size)
            return Ecart(cards=[CODES[c] for c in ecart])
        if legal.chelem:
            return Chelem(declare=False)
        if legal.poignee_sizes:
            size = min(legal.poignee_sizes)
            cards = [c for c in legal.poignee_cards if c != "EX"][:size]
            if len(cards) == size:
                return Poignee(cards=cards)
        if legal.cards:
            return Play(card=CODES[_card(k, mask_of_codes(legal.cards))])
        raise ValueError("the view asks for no decision")


def _bid(hand: int, legal: list[str], variant: Variant) -> str:
    # Trumps and bouts make a contract; a beginner never goes past a garde
    # and takes boldly (it wants to play): a hand of 7 with 18 cards, a garde
    # from 11. The bar follows the hand size, as its square root: about as
    # many hands reach it at every table size.
    raw = (hand & TRUMP_MASK).bit_count() + 2 * (hand & BOUTS_MASK).bit_count()
    count = raw * (FOUR.hand_size / variant.hand_size) ** 0.5
    want = "garde" if count >= EASY_GARDE else "prise" if count >= EASY_PRISE else "pass"
    return want if want in legal else "pass"


def _call(hand: int, calls: list[str]) -> str:
    # A card it lacks (else it would play alone), in its longest suit.
    lacking = [c for c in calls if not hand >> CARD_OF[c] & 1] or calls
    return max(lacking, key=lambda c: (hand & SUIT_MASKS[SUIT_OF[CARD_OF[c]]]).bit_count())


def _ecart(candidates: int, trumps_needed: int, size: int) -> list[int]:
    if trumps_needed:
        suits = candidates & ~TRUMP_MASK
        return [*iter_cards(suits), *iter_cards(candidates & TRUMP_MASK)[:trumps_needed]]
    # The richest cards first: points in the écart are points won.
    return sorted(iter_cards(candidates), key=lambda c: -HALF_POINTS[c])[:size]


def _card(k: Knowledge, legal: int) -> int:
    if legal & EXCUSE_BIT and k.hand.bit_count() <= 2:
        return EXCUSE
    plain = legal & ~EXCUSE_BIT
    if not plain:
        return EXCUSE
    led, win_card, _ = trick_state(k)
    if led < 0:
        # Lead the highest card of the longest suit.
        suit = max(range(5), key=lambda s: (plain & SUIT_MASKS[s]).bit_count())
        return highest(plain & SUIT_MASKS[suit])
    winners = plain & beating(win_card, led)
    return lowest(winners) if winners else lowest(plain)

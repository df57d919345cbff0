"""How strong a hand is for the bidding: a point count in the classic French manner.

Players at a club count a hand before they speak: the bouts, the trumps (the
long ones and the high ones), the Kings and the honours under them, long
suits and short ones (a void lets the taker trump). The count decides the
contract: under ``THRESHOLDS[prise]`` one passes, and so on up to the garde
contre. ``normal`` bids with it, and ``strong`` uses it to judge which hidden
hands agree with the bids it heard.
"""

from __future__ import annotations

from typing import Final

from protocol.cards import (
    EXCUSE_BIT,
    FIRST_TRUMP,
    MONDE,
    PETIT,
    PLAIN_SUITS,
    SUIT_MASKS,
    TRUMP_MASK,
)
from server.game.contracts import GARDE, GARDE_CONTRE, GARDE_SANS, PASS, PRISE

MAJOR_TRUMPS: Final = TRUMP_MASK & ~((1 << (FIRST_TRUMP + 15)) - 1)
"""T16..T21: the trumps that win tricks against other trumps."""

THRESHOLDS: Final = {PRISE: 41, GARDE: 46, GARDE_SANS: 62, GARDE_CONTRE: 72}
"""The least count for each contract (a club's rule of thumb, tuned on bots)."""


def _rank_bit(suit: int, rank: int) -> int:
    return 1 << (suit * 14 + rank)


def hand_strength(hand: int) -> float:
    """The bidding count of a hand (a mask), as a four-player hand is counted."""
    trumps = (hand & TRUMP_MASK).bit_count()
    count = 2.0 * trumps + (hand & MAJOR_TRUMPS).bit_count()
    if hand >> MONDE & 1:
        count += 10
    if hand & EXCUSE_BIT:
        count += 8
    if hand >> PETIT & 1:
        # The Petit is worth as much as the trumps that can protect it.
        count += (0, 0, 0, 1, 3, 5, 7)[trumps] if trumps < 7 else 9
    for suit in PLAIN_SUITS:
        cards = hand & SUIT_MASKS[suit]
        length = cards.bit_count()
        king = bool(cards & _rank_bit(suit, 13))
        queen = bool(cards & _rank_bit(suit, 12))
        if king:
            count += 6
        if queen:
            count += 4 if king else 2  # a Queen under her King is a second winner
        if cards & _rank_bit(suit, 11):
            count += 1.5 if king or queen else 1
        if cards & _rank_bit(suit, 10):
            count += 0.5
        if length >= 5:
            count += (5, 7, 9)[min(length, 7) - 5]
        elif length == 0:
            count += 6 if trumps >= 4 else 3
        elif length == 1 and not king:
            count += 3 if trumps >= 4 else 1
    return count


def contract_for(strength: float) -> int:
    """The highest contract a count supports (``PASS`` below a prise)."""
    best = PASS
    for contract, least in THRESHOLDS.items():
        if strength >= least:
            best = contract
    return best

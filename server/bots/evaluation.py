"""How strong a hand is for the bidding: a point count in the classic French manner.

Players at a club count a hand before they speak: the bouts, the trumps (the
long ones and the high ones), the Kings and the honours under them, long
suits and short ones (a void lets the taker trump). The count decides the
contract: under ``thresholds(variant)[prise]`` one passes, and so on up to
the garde contre. ``normal`` bids with it, and ``strong`` uses it to judge
which hidden hands agree with the bids it heard.

The count is the four-player count with its shape rules scaled to the hand
size (a long suit and the trumps that protect the Petit are counted against
what an average hand of that size holds); each table size has its own
thresholds, since a hand of 24 cards counts more than one of 15 and the
camps differ (two defenders at 3, a called partner at 5).
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
from server.game.variant import FOUR, Variant

MAJOR_TRUMPS: Final = TRUMP_MASK & ~((1 << (FIRST_TRUMP + 15)) - 1)
"""T16..T21: the trumps that win tricks against other trumps."""

FOUR_HAND: Final = FOUR.hand_size
"""The hand size the count was first tuned on: other sizes are scaled to it."""

THRESHOLDS: Final[dict[int, dict[int, float]]] = {
    # players: the least count for each contract (a club's rule of thumb,
    # tuned on bots with ``bench/bots.py --calibrate``).
    3: {PRISE: 46, GARDE: 49, GARDE_SANS: 60, GARDE_CONTRE: 70},
    4: {PRISE: 41, GARDE: 46, GARDE_SANS: 62, GARDE_CONTRE: 72},
    5: {PRISE: 37, GARDE: 40, GARDE_SANS: 50, GARDE_CONTRE: 55},
}


PASS_STEP: Final[dict[int, float]] = {3: 6.0, 4: 7.0, 5: 3.0}
"""Per table size, how much lower the prise bar sits for each pass heard
before one speaks: the seats that passed hold weak hands, so the cards one
lacks are likelier in the chien or with no one strong (at four players a
hand counting 40-43 made 43% of its prises, 51% when the others' hands
were all under the bar). Only the prise comes down."""
LAST_BAR: Final[dict[int, float]] = {3: 24.0, 4: 14.0, 5: 26.0}
"""Per table size, the prise bar of the last to speak when all passed. The
alternative is a new deal, and a person at a bot table wants to play: these
bars hold all-pass deals to about 15% with a person who always passes
(``bench/bots.py --table``). They are below where a prise pays on average
(``--calibrate``): a weak last hand takes to play, as people do, and loses
a little by it (docs/BOTS.md)."""


def thresholds(
    variant: Variant = FOUR, passes: int = 0, last: bool = False, bolder: float = 0.0
) -> dict[int, float]:
    """The least count for each contract at the variant's table size, after
    ``passes`` passes heard (``last``: everybody else passed); ``bolder``
    lowers every bar (a better player makes more of the same hand)."""
    bars = {contract: least - bolder for contract, least in THRESHOLDS[variant.players].items()}
    # Only the prise comes down: a weak hand that takes should not raise.
    shift = PASS_STEP[variant.players] * passes
    if last:
        shift = max(shift, bars[PRISE] - LAST_BAR[variant.players])
    bars[PRISE] = min(bars[PRISE], bars[PRISE] - shift)
    return bars


def _rank_bit(suit: int, rank: int) -> int:
    return 1 << (suit * 14 + rank)


def long_suit_from(variant: Variant) -> int:
    """The length from which a suit counts as long: five at four players,
    one more with 24 cards, one less with 15 (a suit's average length
    follows the hand size)."""
    return 5 + (variant.hand_size - FOUR_HAND) // 6


def hand_strength(hand: int, variant: Variant = FOUR) -> float:
    """The bidding count of a hand (a mask) at the variant's table size."""
    held = (hand & TRUMP_MASK).bit_count()
    # Trumps weighed against a four-player hand (for the shape rules): 8 of
    # 24 protect the Petit as well as 6 of 18.
    trumps = held * FOUR_HAND / variant.hand_size
    count = 2.0 * held + (hand & MAJOR_TRUMPS).bit_count()
    if hand >> MONDE & 1:
        count += 10
    if hand & EXCUSE_BIT:
        count += 8
    if hand >> PETIT & 1:
        # The Petit is worth as much as the trumps that can protect it.
        count += (0, 0, 0, 1, 3, 5, 7)[int(trumps)] if trumps < 7 else 9
    long_from = long_suit_from(variant)
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
        if length >= long_from:
            count += (5, 7, 9)[min(length - long_from, 2)]
        elif length == 0:
            count += 6 if trumps >= 4 else 3
        elif length == 1 and not king:
            count += 3 if trumps >= 4 else 1
    return count


def contract_for(
    strength: float,
    variant: Variant = FOUR,
    passes: int = 0,
    last: bool = False,
    bolder: float = 0.0,
) -> int:
    """The highest contract a count supports (``PASS`` below a prise), after
    ``passes`` passes heard (``last``: everybody else passed)."""
    best = PASS
    for contract, least in thresholds(variant, passes, last, bolder).items():
        if strength >= least:
            best = contract
    return best

"""Card-play arithmetic shared by the bots: what beats what, what to give, what to keep.

Everything is on card bitmasks (``protocol.cards``) and card indices, so the
same helpers serve ``normal`` (reasoning about a view) and the fast playout
policy of ``strong`` (playing thousands of cards a second).
"""

from __future__ import annotations

from typing import Final

from protocol.cards import (
    EXCUSE,
    EXCUSE_BIT,
    FIRST_TRUMP,
    HALF_POINTS,
    MONDE,
    PETIT,
    SUIT_MASKS,
    TRUMP,
    TRUMP_MASK,
)

KNIGHT_HALF: Final = 5
"""A Knight's value in half-points: from here up a card hurts to give away."""


def above(card: int) -> int:
    """The mask of every card with a higher index (higher in its suit, or any trump above)."""
    return ~((2 << card) - 1)


def beating(win_card: int, led: int) -> int:
    """The mask of cards that beat ``win_card``, the winner of a trick led in ``led``."""
    if win_card < 0:
        return ~EXCUSE_BIT  # nothing played yet (or only the Excuse): any card takes the lead
    if win_card >= FIRST_TRUMP:
        return TRUMP_MASK & above(win_card)
    return (SUIT_MASKS[led] & above(win_card)) | TRUMP_MASK


def can_beat(hand: int, card: int, led: int) -> bool:
    """Whether a seat holding exactly ``hand``, playing legally after ``card``
    (the winner of a trick led in ``led``), can take the trick."""
    if card == EXCUSE:
        return True
    if led != TRUMP and hand & SUIT_MASKS[led]:
        # It must follow suit, so only a higher card of the suit beats.
        return card < FIRST_TRUMP and bool(hand & SUIT_MASKS[led] & above(card))
    trumps = hand & TRUMP_MASK
    if card >= FIRST_TRUMP:
        return bool(trumps & above(card))
    return bool(trumps)


def lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    return mask.bit_length() - 1


def iter_cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cheapest(mask: int) -> int:
    """The card that costs least to lose: fewest points, a suit card before a
    trump (trumps keep control), the lowest rank; the Petit and the Excuse
    only when nothing else is left."""
    best = -1
    best_key = (99, 9, 99)
    for c in iter_cards(mask):
        if c == EXCUSE:
            key = (98, 9, 0)
        elif c == PETIT:
            key = (97, 9, 0)
        else:
            key = (HALF_POINTS[c], 1 if c >= FIRST_TRUMP else 0, c % 14 if c < FIRST_TRUMP else c)
        if key < best_key:
            best, best_key = c, key
    return best


def richest(mask: int) -> int:
    """The card worth most to put on a trick one's camp wins (charger): the
    most points, a suit card before a trump; never the 21 nor the Excuse,
    which keep their value anyway."""
    best = -1
    best_key = (-1, -1, 0)
    for c in iter_cards(mask):
        if c in (MONDE, EXCUSE):
            key = (-1, 0, 0)
        elif c == PETIT:
            key = (10, 0, 0)  # saving the Petit is worth more than any King
        elif c >= FIRST_TRUMP:
            key = (HALF_POINTS[c], 0, -c)
        else:
            key = (HALF_POINTS[c], 1, -(c % 14))
        if key > best_key:
            best, best_key = c, key
    return best

"""A hand as the lists of its cards by suit, built from its mask by table lookup.

The legal cards of a seat are one suit of its hand (following), its trumps
(overtrumping: the top of them) or the whole hand (leading), with the Excuse
when held. A deal keeps each seat's hand as six sorted lists, spades, hearts,
diamonds, clubs, trumps and the Excuse (``NO_SUIT``), alongside its mask:
the legal cards are then a list or two joined, and a card played is removed
from one short list, with no walk over a 78-bit mask.

The mask itself (``mask_of``, a card's bit ``BITS[card]``) is made here too.

The lists are built from a mask in 7-bit chunks, from tables of 128 entries
each (two lookups for a plain suit, three for the trumps); small ints keep
every operation on one machine digit.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Final

from protocol.cards import CODES, EXCUSE, FIRST_TRUMP, PLAIN_SUITS

BITS: Final = tuple(1 << c for c in range(len(CODES)))
"""``BITS[card]``: the card's bit in a hand's mask."""


def mask_of(cards: list[int]) -> int:
    """The mask of some different cards: their bits picked out in C and
    summed (a loop of ``|=`` costs twice as much)."""
    if len(cards) > 1:
        return sum(itemgetter(*cards)(BITS))
    return sum(BITS[c] for c in cards)


SUIT_WIDTH: Final = 14
"""Cards per plain suit; suit ``s`` starts at bit ``14 * s``."""
SUIT_SEGMENT: Final = (1 << SUIT_WIDTH) - 1
TRUMP_SEGMENT: Final = (1 << 21) - 1
"""The 21 trumps, from bit ``FIRST_TRUMP``."""

CHUNK: Final = 7
CHUNK_MASK: Final = (1 << CHUNK) - 1

Chunk = tuple[tuple[int, ...], ...]

BySuit = list[list[int]]
"""A hand by suit: ``[spades, hearts, diamonds, clubs, trumps, excuse]``, each
sorted, lowest first; the last is ``[EXCUSE]`` or ``[]``."""


def _chunk(base: int) -> Chunk:
    """``_chunk(base)[v]``: the cards ``base + i`` for each bit ``i`` set in ``v``."""
    return tuple(tuple(base + i for i in range(CHUNK) if v >> i & 1) for v in range(1 << CHUNK))


SUIT_LOW: Final = tuple(_chunk(SUIT_WIDTH * s) for s in PLAIN_SUITS)
SUIT_HIGH: Final = tuple(_chunk(SUIT_WIDTH * s + CHUNK) for s in PLAIN_SUITS)
TRUMP_CHUNKS: Final = tuple(_chunk(FIRST_TRUMP + CHUNK * i) for i in range(3))


def suit_cards(suit: int, segment: int) -> list[int]:
    """The cards of plain ``suit`` whose bits are set in ``segment``
    (``hand >> 14 * suit & SUIT_SEGMENT``), lowest first."""
    return [*SUIT_LOW[suit][segment & CHUNK_MASK], *SUIT_HIGH[suit][segment >> CHUNK]]


def trump_cards(segment: int) -> list[int]:
    """The trumps whose bits are set in ``segment`` (``hand >> FIRST_TRUMP &
    TRUMP_SEGMENT``), lowest first."""
    low, mid, high = TRUMP_CHUNKS
    return [
        *low[segment & CHUNK_MASK],
        *mid[segment >> CHUNK & CHUNK_MASK],
        *high[segment >> 2 * CHUNK],
    ]


def by_suit(hand: int) -> BySuit:
    """The hand of mask ``hand`` as its cards by suit (``BySuit``)."""
    suits = [suit_cards(s, hand >> SUIT_WIDTH * s & SUIT_SEGMENT) for s in PLAIN_SUITS]
    suits.append(trump_cards(hand >> FIRST_TRUMP & TRUMP_SEGMENT))
    suits.append([EXCUSE] if hand >> EXCUSE & 1 else [])
    return suits

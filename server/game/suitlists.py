"""The cards of one suit of a hand as a list, by table lookup.

The legal cards of a seat that follows are one suit of its hand (and maybe
the Excuse). Reading them off the whole 78-bit mask (``protocol.cards.cards_of``)
walks all ten bytes; here the suit is shifted down to a small int and read in
7-bit chunks from tables of 128 entries each: two lookups for a plain suit,
three for the trumps. Small ints keep every operation on one machine digit.
"""

from __future__ import annotations

from typing import Final

from protocol.cards import FIRST_TRUMP, PLAIN_SUITS

SUIT_WIDTH: Final = 14
"""Cards per plain suit; suit ``s`` starts at bit ``14 * s``."""
SUIT_SEGMENT: Final = (1 << SUIT_WIDTH) - 1
TRUMP_SEGMENT: Final = (1 << 21) - 1
"""The 21 trumps, from bit ``FIRST_TRUMP``."""

CHUNK: Final = 7
CHUNK_MASK: Final = (1 << CHUNK) - 1

Chunk = tuple[tuple[int, ...], ...]


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

"""A hand as two masks that fit a machine word, and the lists of cards read off them.

A hand's mask (``protocol.cards``) has 78 bits: a Python int of three
digits, every operation on which allocates a new one. Once play starts, a
deal keeps the hand of each seat that is asked for its legal cards also as
a ``Held``: ``low``, the 56 suit cards (card ``c`` at bit ``c``, suit ``s``
in bits ``14 * s`` to ``14 * s + 13``), and ``high``, the 21 trumps and the
Excuse (card ``c`` at bit ``c - 56``). Compiled (server/base/compiled.py),
a card tested or taken out is a few machine instructions with nothing
allocated; the lists of legal cards are read off one suit, the trumps or the
whole hand a card at a time, the lowest bit set taken off (``add_cards``,
``following.legal_list``).

The 78-bit mask itself (``mask_of``, a card's bit ``BITS[card]``) is made
here too.
"""

from __future__ import annotations

from typing import Any, Final

from protocol.cards import CODES, DECK_SIZE, FIRST_TRUMP

# Typed Any, not int: compiled, an int read from the tuple would be unboxed
# and a new object boxed again to be used on a 78-bit mask (a Python int).
BITS: Final[tuple[Any, ...]] = tuple(1 << c for c in range(len(CODES)))
"""``BITS[card]``: the card's bit in a hand's mask."""

LOW_MASK: Final = (1 << FIRST_TRUMP) - 1
"""The suit cards' bits of a hand's mask: ``Held.low``."""
SUIT_WIDTH: Final = 14
"""Cards per plain suit; suit ``s`` starts at bit ``14 * s`` of ``low``."""
SUIT_SEGMENT: Final = (1 << SUIT_WIDTH) - 1
TRUMP_SEGMENT: Final = (1 << 21) - 1
"""The 21 trumps in ``Held.high``."""
EXCUSE_HIGH: Final = 1 << 21
"""The Excuse's bit in ``Held.high``."""


def mask_of(cards: list[int]) -> int:
    """The mask of some different cards, built as the two halves of a
    ``Held`` (machine words, compiled) and joined once."""
    low = 0
    high = 0
    for c in cards:
        if 0 <= c < FIRST_TRUMP:
            low |= 1 << c
        elif FIRST_TRUMP <= c < DECK_SIZE:
            high |= 1 << (c - FIRST_TRUMP)
        else:
            raise IndexError(f"no card {c}")
    return low | high << FIRST_TRUMP


class Held:
    """One seat's hand as ``low`` (suit cards) and ``high`` (trumps and the
    Excuse): see the module docstring. The deal takes a card out of both it
    and the hand's mask."""

    __slots__ = ("high", "low")

    def __init__(self, hand: int) -> None:
        """The hand of mask ``hand``."""
        self.low: int = hand & LOW_MASK
        self.high: int = hand >> FIRST_TRUMP

    def __eq__(self, other: object) -> bool:
        # The same cards (a test's copy of a deal compares so).
        return isinstance(other, Held) and self.low == other.low and self.high == other.high

    def __deepcopy__(self, memo: object) -> Held:
        # Compiled, ``copy``'s way (``__new__`` then the state) would run
        # ``__init__`` without its argument.
        return Held(self.low | self.high << FIRST_TRUMP)

    def __repr__(self) -> str:
        return f"Held(low={self.low:#x}, high={self.high:#x})"

    def holds(self, card: int) -> bool:
        """Whether the hand holds ``card`` (0 to 77)."""
        if card < FIRST_TRUMP:
            return bool(self.low >> card & 1)
        return bool(self.high >> (card - FIRST_TRUMP) & 1)

    def take(self, card: int) -> bool:
        """Take ``card`` (0 to 77) out of the hand; ``False``, and nothing
        changed, when the hand does not hold it."""
        if card < FIRST_TRUMP:
            bit = 1 << card
            if not self.low & bit:
                return False
            self.low ^= bit
        else:
            bit = 1 << (card - FIRST_TRUMP)
            if not self.high & bit:
                return False
            self.high ^= bit
        return True


def add_cards(out: list[int], mask: int, card: int) -> None:
    """Append to ``out`` the card of each bit set in ``mask``, lowest first,
    bit 0 being ``card``: the lowest bit set taken off at a time (compiled,
    its place is one machine instruction), no loop over the bits unset.
    (Compiled, a step per card costs less than joining a table's tuples of
    cards, about 160 instructions a tuple; as Python it costs more.)"""
    while mask:
        low = mask & -mask
        out.append(card + low.bit_length() - 1)
        mask ^= low

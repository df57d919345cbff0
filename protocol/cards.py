"""The 78 cards of French Tarot: codes, values, bouts and ordering.

This is the vocabulary the server, the bots and the clients share. A card is
an ``int`` from 0 to 77 inside the engine (cheap to compare, to put in a
bitmask and to index tables with) and a code string on the wire and in deal
records (``"KS"``, ``"T21"``, ``"EX"``, see ``docs/DEAL-RECORD.md``).

Index layout, chosen so that a higher index always means a stronger card
within its suit and any trump outranks any suit card:

* ``suit * 14 + rank`` for suit cards; suits spades, hearts, diamonds, clubs
  (``S H D C``) are 0..3 and ranks 1..10, Jack, Knight (Cavalier), Queen,
  King are 0..13;
* 56..76 for the trumps T1 (the Petit) .. T21;
* 77 for the Excuse, which belongs to no suit and is no trump.

Card points are counted in half-points so that every sum is an integer:
a bout or a King is 9 (4.5 points), a Queen 7, a Knight 5, a Jack 3 and any
other card 1. The deck totals 182 half-points, 91 points.
"""

from __future__ import annotations

from typing import Final

Card = int
"""A card's index, 0..77 (see the module docstring for the layout)."""

SUITS: Final = ("S", "H", "D", "C")
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
RANKS: Final = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
TRUMP: Final = 4
"""The pseudo-suit of the 21 trumps (``SUIT_OF`` gives it)."""
PLAIN_SUITS: Final = range(TRUMP)
"""The suits proper, spades to clubs (trumps are not one of them)."""
NO_SUIT: Final = 5
"""The Excuse's pseudo-suit: it belongs to no suit."""

FIRST_TRUMP: Final = 56
PETIT: Final = 56  # T1, a bout
MONDE: Final = 76  # T21, a bout ("le 21")
EXCUSE: Final = 77  # a bout
DECK_SIZE: Final = 78
BOUTS: Final = frozenset({PETIT, MONDE, EXCUSE})

KING_RANK: Final = 13


def _code(card: int) -> str:
    if card == EXCUSE:
        return "EX"
    if card >= FIRST_TRUMP:
        return f"T{card - FIRST_TRUMP + 1}"
    return RANKS[card % 14] + SUITS[card // 14]


CODES: Final[tuple[str, ...]] = tuple(_code(c) for c in range(DECK_SIZE))
"""``CODES[card]`` is the card's code; the 78 strings are all different."""

CARD_OF: Final[dict[str, int]] = {code: card for card, code in enumerate(CODES)}
"""The inverse of ``CODES``: code -> card index."""


def _suit(card: int) -> int:
    if card == EXCUSE:
        return NO_SUIT
    if card >= FIRST_TRUMP:
        return TRUMP
    return card // 14


SUIT_OF: Final[tuple[int, ...]] = tuple(_suit(c) for c in range(DECK_SIZE))


HALF_POINTS: Final[tuple[int, ...]] = tuple(
    9 if c in BOUTS else 1 if c >= FIRST_TRUMP else ((1,) * 10 + (3, 5, 7, 9))[c % 14]
    for c in range(DECK_SIZE)
)
"""``HALF_POINTS[card]``: the card's value in half-points (sum 182)."""

# Bitmasks: a set of cards is an int whose bit ``c`` is set when card ``c`` is in.
SUIT_MASKS: Final[tuple[int, ...]] = (
    *(((1 << 14) - 1) << (14 * s) for s in PLAIN_SUITS),
    ((1 << 21) - 1) << FIRST_TRUMP,
    1 << EXCUSE,
)
"""``SUIT_MASKS[suit]`` for suits 0..3, ``TRUMP`` and ``NO_SUIT``."""
TRUMP_MASK: Final = SUIT_MASKS[TRUMP]
EXCUSE_BIT: Final = 1 << EXCUSE
KINGS_MASK: Final = sum(1 << (14 * s + KING_RANK) for s in PLAIN_SUITS)
BOUTS_MASK: Final = (1 << PETIT) | (1 << MONDE) | (1 << EXCUSE)
FULL_DECK: Final = (1 << DECK_SIZE) - 1
SUIT_CARDS_MASK: Final = (1 << FIRST_TRUMP) - 1


def code(card: int) -> str:
    """The code of a card index (``code(77) == "EX"``)."""
    return CODES[card]


def parse(card_code: str) -> int:
    """The index of a card code; raises ``KeyError`` for anything else."""
    return CARD_OF[card_code]


def is_trump(card: int) -> bool:
    return FIRST_TRUMP <= card < EXCUSE


def points(cards: list[int] | tuple[int, ...] | set[int] | frozenset[int]) -> float:
    """Card points of some cards, as a float (4.5 for a bout)."""
    return sum(HALF_POINTS[c] for c in cards) / 2


# The cards of each byte of a mask, by the byte's place: cards_of reads a
# mask a byte at a time (ten bytes hold the deck) rather than a bit at a time,
# about twice as fast for a hand (it is called for every card of a game).
_BYTE_CARDS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(base + i for i in range(8) if byte >> i & 1) for byte in range(256))
    for base in range(0, 80, 8)
)


def cards_of(mask: int) -> list[int]:
    """The cards of a bitmask, lowest first (that is, in suit order S H D C,
    then trumps from T1 up, then the Excuse)."""
    out: list[int] = []
    for place, byte in enumerate(mask.to_bytes(10, "little")):
        if byte:
            out += _BYTE_CARDS[place][byte]
    return out


def describe(card: int) -> str:
    """A name for a person: "King of spades", "trump 21", "the Excuse"."""
    if card == EXCUSE:
        return "the Excuse"
    if card >= FIRST_TRUMP:
        n = card - FIRST_TRUMP + 1
        return "the Petit (trump 1)" if n == 1 else f"trump {n}"
    rank = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Knight", "Queen", "King")
    return f"{rank[card % 14]} of {SUIT_NAMES[card // 14]}"

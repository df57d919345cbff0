"""The called card (five players): which cards the taker may call, and the
opening lead it forbids.

Pure rules over card masks (``protocol.cards``), like ``ecart.py``: a King of
any suit; a Queen only for a taker holding the four Kings; a Knight only with
the four Kings and the four Queens; a Jack only with every King, Queen and
Knight. Nothing else may be called (VARIANTS.md's Decision). Whoever holds
the called card is the taker's partner; the taker alone when it is their own
or lies in the chien.
"""

from __future__ import annotations

from typing import Final

from protocol.cards import CODES, PLAIN_SUITS, RANKS, SUIT_MASKS, SUIT_OF, cards_of
from server.game.errors import RuleError


def _rank_mask(rank: int) -> int:
    return sum(1 << (14 * suit + rank) for suit in PLAIN_SUITS)


CALLABLE_RANKS: Final = ("K", "Q", "C", "J")
"""Kings, Queens, Knights (Cavaliers), Jacks: the ranks that may be called."""

LADDER: Final = tuple(_rank_mask(RANKS.index(rank)) for rank in CALLABLE_RANKS)
"""The masks of ``CALLABLE_RANKS``, from the top."""


def callable_mask(hand: int) -> int:
    """The mask of cards a taker holding ``hand`` may call: every King, and
    each lower rank of the ladder while the taker holds all four of every
    rank above it."""
    mask = 0
    for rank in LADDER:
        mask |= rank
        if hand & rank != rank:
            break
    return mask


def check(seat: int, hand: int, card: object) -> None:
    """Raise ``RuleError("bad_call")`` unless ``card`` may be called from ``hand``."""
    if not isinstance(card, int) or not 0 <= card < len(CODES):
        raise RuleError("bad_call", f"{card!r} is not a card", seat=seat)
    if not callable_mask(hand) >> card & 1:
        allowed = " ".join(CODES[c] for c in cards_of(callable_mask(hand)))
        raise RuleError(
            "bad_call",
            f"{CODES[card]} may not be called; the cards that may: {allowed}",
            seat=seat,
            card=CODES[card],
        )


def partner(hands: list[int], taker: int, card: int) -> int | None:
    """The seat holding the called ``card``: the taker's partner; ``None``
    when the taker holds it or it lies in the chien (the taker plays alone)."""
    for seat, hand in enumerate(hands):
        if hand >> card & 1 and seat != taker:
            return seat
    return None


def opening_lead(hand: int, called: int) -> int:
    """The cards of ``hand`` that may lead the deal's first trick: none of
    the called card's suit but the called card itself (trumps and the Excuse
    may lead)."""
    allowed = hand & ~(SUIT_MASKS[SUIT_OF[called]] & ~(1 << called))
    # A hand of one suit only cannot be dealt (15 cards, 14 of a suit); if
    # it could, it would lead what it holds.
    return allowed or hand

"""The écart: which cards the taker may discard after taking the chien.

Pure rules over card masks (``protocol.cards``), so the engine and anyone
else (a bot, a view) read the same rule: never a King or a bout; trumps only
when the taker has too few other suit cards, and then exactly as many as are
missing, every non-King suit card going too. ``size`` is the variant's écart.
"""

from __future__ import annotations

from typing import Final

from protocol.cards import BOUTS_MASK, CODES, KINGS_MASK, SUIT_CARDS_MASK, TRUMP_MASK, cards_of
from server.game.errors import RuleError

NON_KING_SUIT_MASK: Final = SUIT_CARDS_MASK & ~KINGS_MASK
DISCARDABLE_TRUMPS: Final = TRUMP_MASK & ~BOUTS_MASK


def names(mask: int) -> str:
    """The card codes of a mask, for a refusal's message."""
    return " ".join(CODES[c] for c in cards_of(mask))


def trumps_needed(hand: int, size: int) -> int:
    """How many trumps the écart must hold: only when the taker has fewer
    than ``size`` suit cards other than Kings, exactly as many as are missing."""
    return max(0, size - (hand & NON_KING_SUIT_MASK).bit_count())


def candidates(hand: int, size: int) -> int:
    """The mask of cards the taker may discard: never a King or a bout,
    trumps only when forced (then every non-King suit card must go too)."""
    mask = hand & NON_KING_SUIT_MASK
    if mask.bit_count() < size:
        mask |= hand & DISCARDABLE_TRUMPS
    return mask


def check(seat: int, hand: int, cards: list[int], size: int) -> int:
    """The mask of ``cards`` when they make a legal écart of ``size`` cards
    from ``hand``; otherwise a ``RuleError("bad_ecart")``."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    if len(cards) != size or mask.bit_count() != size:
        raise RuleError("bad_ecart", f"the écart is exactly {size} different cards", seat=seat)
    if mask & ~hand:
        raise RuleError("bad_ecart", f"not in the taker's hand: {names(mask & ~hand)}", seat=seat)
    if forbidden := mask & (KINGS_MASK | BOUTS_MASK):
        raise RuleError(
            "bad_ecart",
            f"Kings and bouts may never be discarded: {names(forbidden)}",
            seat=seat,
        )
    needed = trumps_needed(hand, size)
    trumps = (mask & TRUMP_MASK).bit_count()
    if trumps != needed:
        if needed == 0:
            msg = f"trumps may be discarded only when there are fewer than {size} other suit cards"
        else:
            msg = f"the écart must hold exactly {needed} trump(s) and every non-King suit card"
        raise RuleError("bad_ecart", msg, seat=seat)
    return mask

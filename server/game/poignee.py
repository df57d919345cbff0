"""The poignée: trumps shown before one's first card, for a bonus.

Pure rules over card masks: which sizes a hand may show (the variant's
``poignees``, e.g. 10, 13 or 15 trumps at four players), and whether some
cards make a poignée. The Excuse counts as a trump only when every trump of
the hand is shown with it.
"""

from __future__ import annotations

from protocol.cards import EXCUSE_BIT, TRUMP_MASK
from server.game.ecart import names
from server.game.errors import RuleError


def sizes_within(hand: int, sizes: tuple[int, ...]) -> list[int]:
    """The poignée sizes ``hand`` holds enough trumps for (the Excuse counting)."""
    n = (hand & TRUMP_MASK).bit_count() + (1 if hand & EXCUSE_BIT else 0)
    return [size for size in sizes if size <= n]


def check(seat: int, hand: int, cards: list[int], sizes: tuple[int, ...]) -> int:
    """The mask of ``cards`` when they make a poignée of ``hand``; otherwise a
    ``RuleError("bad_poignee")``."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    if mask.bit_count() != len(cards) or len(cards) not in sizes:
        allowed = ", ".join(str(s) for s in sizes[:-1]) + f" or {sizes[-1]}"
        raise RuleError(
            "bad_poignee", f"a poignée is exactly {allowed} different trumps", seat=seat
        )
    if mask & ~hand:
        raise RuleError("bad_poignee", f"not in your hand: {names(mask & ~hand)}", seat=seat)
    if mask & ~(TRUMP_MASK | EXCUSE_BIT):
        raise RuleError(
            "bad_poignee",
            f"a poignée shows trumps only: {names(mask & ~(TRUMP_MASK | EXCUSE_BIT))}",
            seat=seat,
        )
    if mask & EXCUSE_BIT and hand & TRUMP_MASK & ~mask:
        raise RuleError(
            "bad_poignee",
            "the Excuse may stand in for a trump only when every trump is shown",
            seat=seat,
            card="EX",
        )
    return mask

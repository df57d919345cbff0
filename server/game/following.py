"""Following: which cards a seat may play to a trick already led.

Pure rules over card masks (``protocol.cards``), read by ``Deal``: follow the
suit led (the Excuse may always be played); without it, trump, overtrumping
when possible, even over a partner; without trumps, anything. Leading is
free but for the called suit at five players (``calling.opening_lead``).
"""

from __future__ import annotations

from typing import Final

from protocol.cards import (
    CODES,
    EXCUSE,
    EXCUSE_BIT,
    FIRST_TRUMP,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
    cards_of,
)
from server.game.suitlists import (
    CHUNK,
    CHUNK_MASK,
    SUIT_HIGH,
    SUIT_LOW,
    SUIT_SEGMENT,
    SUIT_WIDTH,
    TRUMP_CHUNKS,
    TRUMP_SEGMENT,
)

SUIT_SHIFT: Final = tuple(SUIT_WIDTH * s for s in range(TRUMP))


def follow_mask(hand: int, led: int, win_card: int) -> int:
    """The mask of cards ``hand`` may play to a trick led in suit ``led``
    (``TRUMP`` included) whose best card so far is ``win_card``."""
    follow = hand & SUIT_MASKS[led]
    if follow and led != TRUMP:
        return follow | (hand & EXCUSE_BIT)
    trumps = hand & TRUMP_MASK
    if not trumps:
        return hand
    if win_card >= FIRST_TRUMP:
        # Overtrump when possible, even over a partner.
        higher = trumps >> (win_card + 1) << (win_card + 1)
        if higher:
            trumps = higher
    return trumps | (hand & EXCUSE_BIT)


def follow_cards(hand: int, led: int, win_card: int) -> list[int]:
    """The cards of ``follow_mask``, lowest first. The same rule, but the
    list is read off one suit of the hand shifted down to a small int
    (``suitlists``) instead of the whole 78-bit mask: it is asked for every
    card of every deal a bot plays out."""
    if led != TRUMP:
        segment = hand >> SUIT_SHIFT[led] & SUIT_SEGMENT
        if segment:
            cards = [*SUIT_LOW[led][segment & CHUNK_MASK], *SUIT_HIGH[led][segment >> CHUNK]]
            if hand & EXCUSE_BIT:
                cards.append(EXCUSE)
            return cards
    trumps = hand >> FIRST_TRUMP & TRUMP_SEGMENT
    if not trumps:
        return cards_of(hand)
    top = win_card - FIRST_TRUMP + 1  # the trumps above win_card's place
    if top > 0 and trumps >> top:
        trumps = trumps >> top << top
    low, mid, high = TRUMP_CHUNKS
    cards = [
        *low[trumps & CHUNK_MASK],
        *mid[trumps >> CHUNK & CHUNK_MASK],
        *high[trumps >> 2 * CHUNK],
    ]
    if hand & EXCUSE_BIT:
        cards.append(EXCUSE)
    return cards


def illegal_reason(seat: int, card: int, hand: int, led: int, win_card: int) -> str:
    """Why ``card`` may not be played from ``hand`` (a refusal's message)."""
    if led < 0:
        return f"the opening lead may not be {SUIT_NAMES[SUIT_OF[card]]}, the called suit"
    if led != TRUMP and hand & SUIT_MASKS[led]:
        return f"seat {seat} must follow {SUIT_NAMES[led]}"
    if hand & TRUMP_MASK and SUIT_OF[card] != TRUMP:
        return f"seat {seat} must play a trump"
    return f"seat {seat} must overtrump {CODES[win_card]} with a higher trump"

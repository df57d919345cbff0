"""Following: which cards a seat may play to a trick already led.

Pure rules, read by ``Deal``: follow the suit led (the Excuse may always be
played); without it, trump, overtrumping when possible, even over a partner;
without trumps, anything. Leading is free but for the called suit at five
players (``calling.opening_lead``). The rule twice: over card masks
(``follow_mask``, for bots and refusals) and over the hand by suit
(``follow_cards``, the list a seat is offered, asked for every card played).
"""

from __future__ import annotations

from bisect import bisect_right

from protocol.cards import (
    CODES,
    EXCUSE_BIT,
    FIRST_TRUMP,
    NO_SUIT,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
)
from server.game.suitlists import BySuit


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


def follow_cards(suits: BySuit, led: int, win_card: int) -> list[int]:
    """The cards of ``follow_mask``, lowest first, read off the hand by suit
    (``suitlists.by_suit``) rather than its 78-bit mask: a list or two joined.
    It is asked for every card of every deal a bot plays out."""
    if led != TRUMP:
        cards = suits[led]
        if cards:
            return cards + suits[NO_SUIT]
    trumps = suits[TRUMP]
    if not trumps:
        return lead_cards(suits)  # no trumps left either: anything
    if trumps[-1] > win_card >= FIRST_TRUMP:
        # Overtrump when possible, even over a partner.
        trumps = trumps[bisect_right(trumps, win_card) :]
    return trumps + suits[NO_SUIT]


def lead_cards(suits: BySuit) -> list[int]:
    """The whole hand, lowest first: what a seat may lead (but for the
    deal's first lead at five players, ``calling.opening_lead``)."""
    spades, hearts, diamonds, clubs, trumps, excuse = suits
    return [*spades, *hearts, *diamonds, *clubs, *trumps, *excuse]


def illegal_reason(seat: int, card: int, hand: int, led: int, win_card: int) -> str:
    """Why ``card`` may not be played from ``hand`` (a refusal's message)."""
    if led < 0:
        return f"the opening lead may not be {SUIT_NAMES[SUIT_OF[card]]}, the called suit"
    if led != TRUMP and hand & SUIT_MASKS[led]:
        return f"seat {seat} must follow {SUIT_NAMES[led]}"
    if hand & TRUMP_MASK and SUIT_OF[card] != TRUMP:
        return f"seat {seat} must play a trump"
    return f"seat {seat} must overtrump {CODES[win_card]} with a higher trump"

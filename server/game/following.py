"""Following: which cards a seat may play to a trick already led.

Pure rules, read by ``Deal``: follow the suit led (the Excuse may always be
played); without it, trump, overtrumping when possible, even over a partner;
without trumps, anything. Leading is free but for the called suit at five
players (``calling.opening_lead``). The rule twice: over card masks
(``follow_mask``, for bots and refusals) and over the hand's two
machine-word masks (``legal_list``, the list a seat is offered, asked for
every card played).
"""

from __future__ import annotations

from protocol.cards import (
    CODES,
    EXCUSE_BIT,
    FIRST_TRUMP,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
)
from server.game.errors import RuleError
from server.game.held import EXCUSE_HIGH, SUIT_SEGMENT, SUIT_WIDTH, TRUMP_SEGMENT, add_cards


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


def legal_list(low: int, high: int, led: int, win_card: int) -> list[int]:
    """The cards of ``follow_mask`` (``led`` a suit or ``TRUMP``), or the whole
    hand when leading (``led`` below 0), lowest first, read off the hand's
    two machine-word masks (``held.Held``: ``low`` the suit cards, ``high``
    the trumps and the Excuse). It is asked for every card of every deal."""
    out: list[int] = []
    if led >= 0:
        if led != TRUMP:
            base = SUIT_WIDTH * led
            follow = low >> base & SUIT_SEGMENT
            if follow:
                add_cards(out, follow, base)
                add_cards(out, high & EXCUSE_HIGH, FIRST_TRUMP)  # and the Excuse, if held
                return out
        trumps = high & TRUMP_SEGMENT
        if trumps:
            if win_card >= FIRST_TRUMP:
                # Overtrump when possible, even over a partner.
                above = win_card - FIRST_TRUMP + 1
                higher = trumps >> above << above
                if higher:
                    trumps = higher
            add_cards(out, trumps, FIRST_TRUMP)
            add_cards(out, high & EXCUSE_HIGH, FIRST_TRUMP)
            return out
    # Leading, or holding neither the suit led nor a trump: the whole hand.
    add_cards(out, low, 0)
    add_cards(out, high, FIRST_TRUMP)  # the trumps, then the Excuse
    return out


def illegal_reason(seat: int, card: int, hand: int, led: int, win_card: int) -> str:
    """Why ``card`` may not be played from ``hand`` (a refusal's message)."""
    if led < 0:
        return f"the opening lead may not be {SUIT_NAMES[SUIT_OF[card]]}, the called suit"
    if led != TRUMP and hand & SUIT_MASKS[led]:
        return f"seat {seat} must follow {SUIT_NAMES[led]}"
    if hand & TRUMP_MASK and SUIT_OF[card] != TRUMP:
        return f"seat {seat} must play a trump"
    return f"seat {seat} must overtrump {CODES[win_card]} with a higher trump"


def refusal(seat: int, card: int, hand: int, led: int, win_card: int, trick: int) -> RuleError:
    """The error for ``seat`` playing ``card`` (not in ``hand``, or not legal)
    to the trick of number ``trick``."""
    if not hand >> card & 1:
        reason = f"seat {seat} does not hold {CODES[card]}"
        return RuleError("card_not_in_hand", reason, seat=seat, card=CODES[card], trick=trick)
    reason = illegal_reason(seat, card, hand, led, win_card)
    return RuleError("illegal_card", reason, seat=seat, card=CODES[card], trick=trick)

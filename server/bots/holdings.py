"""Odds of who holds what, for a seat that cannot see the other hands.

From a ``Knowledge`` each other seat gets the cards it may hold (its possible
cards) and the number it holds; a seat is treated as drawing its hand
uniformly from its possible cards, which gives quick odds for "does the
taker still hold a heart?" or "can someone after me beat this card?". Exact
where the facts are (a void shown, a poignée on the table), rough elsewhere:
good enough for ``normal``'s rules of thumb.
"""

from __future__ import annotations

from protocol.cards import FIRST_TRUMP, SUIT_MASKS, TRUMP, TRUMP_MASK
from server.bots.knowledge import Knowledge
from server.bots.tactics import above


class Holdings:
    """Per other seat: the cards it surely holds, those it may hold, how many it holds."""

    def __init__(self, k: Knowledge) -> None:
        seats = k.variant.seats
        self.sure = k.variant.each(0)
        self.maybe = k.variant.each(0)
        self.unknown_count = k.variant.each(0)
        known = k.known_places()
        for card, place in known.items():
            if place != k.pile:
                self.sure[place] |= 1 << card
        free = k.unseen()
        for card in known:
            free &= ~(1 << card)
        m = free
        while m:
            low = m & -m
            card = low.bit_length() - 1
            places = k.allowed_places(card)
            for seat in seats:
                if places >> seat & 1:
                    self.maybe[seat] |= low
            m ^= low
        for seat in seats:
            if seat != k.me:
                self.unknown_count[seat] = k.held_count(seat) - self.sure[seat].bit_count()

    def could_hold(self, seat: int, mask: int) -> int:
        """The cards of ``mask`` that ``seat`` holds or may hold."""
        return (self.sure[seat] | self.maybe[seat]) & mask

    def p_any(self, seat: int, mask: int) -> float:
        """The chance that ``seat`` holds at least one card of ``mask``."""
        if self.sure[seat] & mask:
            return 1.0
        wanted = (self.maybe[seat] & mask).bit_count()
        if not wanted:
            return 0.0
        pool = self.maybe[seat].bit_count()
        draws = self.unknown_count[seat]
        if draws >= pool:
            return 1.0
        # Hypergeometric: the chance that none of its draws is a wanted card.
        none = 1.0
        for i in range(draws):
            none *= (pool - wanted - i) / (pool - i)
            if none <= 0:
                return 1.0
        return 1.0 - none

    def p_beats(self, seat: int, card: int, led: int) -> float:
        """The chance that ``seat``, playing after ``card`` (winning a trick led
        in ``led``), can take the trick."""
        trumps = TRUMP_MASK if card < FIRST_TRUMP else TRUMP_MASK & above(card)
        if led == TRUMP:
            return self.p_any(seat, trumps)
        p_follow = self.p_any(seat, SUIT_MASKS[led])
        p_trump = (1.0 - p_follow) * self.p_any(seat, trumps)
        if card >= FIRST_TRUMP:
            return p_trump
        return min(1.0, self.p_any(seat, SUIT_MASKS[led] & above(card)) + p_trump)

    def p_any_beats(self, seats: list[int], card: int, led: int) -> float:
        none = 1.0
        for seat in seats:
            none *= 1.0 - self.p_beats(seat, card, led)
        return 1.0 - none

"""What a seat knows about a deal, rebuilt from its ``TableView`` alone.

``Knowledge.from_view`` turns the view's card codes into bitmasks and draws
the inferences a careful player draws at the table:

* the cards played, by whom, and in what order (with the poignées shown);
* voids: a seat that did not follow the led suit holds none of it, and one
  that neither followed nor trumped holds no trump either;
* trump ceilings: a seat that played a trump below the trick's highest trump
  could not overtrump, so it holds no trump above that one;
* where each unseen card may be: another seat or the hidden pile (the écart
  of another taker, or an unseen chien), with how many cards each place holds;
* at five players, the camps as this seat knows them: the partner knows
  itself (it holds the called card), everyone knows once the called card is
  played, and until then a seat that cannot hold the called card is surely
  a defender; the others are weighed by how they played (a seat that
  loaded a trick the taker won plays like a partner).

Bots only ever read a ``Knowledge``; the sampler in ``sampling.py`` deals the
unseen cards from it. Nothing here may look at anything but the view.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.cards import (
    BOUTS_MASK,
    CARD_OF,
    EXCUSE,
    FIRST_TRUMP,
    FULL_DECK,
    HALF_POINTS,
    KINGS_MASK,
    MONDE,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
)
from protocol.views import TableView
from server.game.contracts import BID_OF, PASS, takes_chien
from server.game.variant import FOUR, Variant, variant_for

NO_CEILING = EXCUSE - 1  # T21: no limit on the trumps a seat may hold
ATTACK = 0
"""The taker's camp (the engine's camp numbers)."""
DEFENCE = 1
UNKNOWN = -1
"""A camp this seat cannot tell yet (five players, before the called card is played)."""
LOADED_HALF = 5
"""A card worth this many half-points or more (a Knight up, or a bout) given to a
trick the taker wins says "partner" (a defender keeps those from the taker)."""


def mask_of_codes(codes: list[str]) -> int:
    m = 0
    for c in codes:
        m |= 1 << CARD_OF[c]
    return m


@dataclass(slots=True)
class Knowledge:
    """The public facts of a deal plus one seat's private ones (its hand, its écart).

    Masks are card bitmasks (``protocol.cards``). Seats are those of the
    ``variant``; ``pile`` (the place after the last seat) stands for the
    hidden pile in ``place`` indexed lists.
    """

    me: int
    dealer: int
    phase: str
    hand: int
    variant: Variant = FOUR
    taker: int = -1
    contract: int = PASS
    bids: list[tuple[int, int]] = field(default_factory=list)
    chien: int = 0
    """The chien, when it was shown (prise, garde)."""
    my_ecart: int = 0
    """The écart, when this seat is the taker (only the taker sees it)."""
    ecart_trumps: int = 0
    """Trumps the taker had to discard, shown to all."""
    chelem_declared: bool = False
    called: int = -1
    """The called card (five players, once called), else -1."""
    poignees: dict[int, list[int]] = field(default_factory=dict)
    plays: list[tuple[int, int]] = field(default_factory=list)
    """Every card played so far, ``(seat, card)`` in order (current trick included)."""
    played: int = 0
    played_by: list[int] = field(init=False)
    tricks_done: int = 0
    taker_tricks: int = 0
    trick: list[int] = field(default_factory=list)
    trick_leader: int = -1
    void: list[int] = field(init=False)
    """Per seat, the suits it holds none of: bit ``s`` for suit ``s``, bit 4 for trumps."""
    trump_ceiling: list[int] = field(init=False)
    """Per seat, the highest trump it may still hold."""
    loaded: list[int] = field(init=False)
    """Per seat, how often it gave a rich card to a trick the taker won."""

    def __post_init__(self) -> None:
        self.played_by = self.variant.each(0)
        self.void = self.variant.each(0)
        self.trump_ceiling = self.variant.each(NO_CEILING)
        self.loaded = self.variant.each(0)

    @property
    def pile(self) -> int:
        """The place of the hidden pile: the écart or an unseen chien."""
        return self.variant.players

    # -- building --------------------------------------------------------

    @classmethod
    def from_view(cls, view: TableView) -> Knowledge:
        """Everything the view tells its seat; the view must be a seated one."""
        if view.you is None or view.deal is None:
            raise ValueError("a bot needs a seated view of a deal")
        d = view.deal
        k = cls(
            me=view.you,
            dealer=d.dealer,
            phase=d.phase,
            hand=mask_of_codes(view.hand),
            variant=variant_for(d.players),
        )
        k.bids = [(b.seat, BID_OF[b.bid]) for b in d.bids]
        if d.taker is not None and d.contract is not None:
            k.taker = d.taker
            k.contract = BID_OF[d.contract]
        k.chien = mask_of_codes(d.chien)
        k.my_ecart = mask_of_codes(view.ecart)
        k.ecart_trumps = mask_of_codes(d.ecart_trumps)
        k.chelem_declared = d.chelem_declared
        if d.called is not None:
            k.called = CARD_OF[d.called]
        for p in d.poignees:
            k.poignees[p.seat] = [CARD_OF[c] for c in p.cards]
        k.tricks_done = len(d.tricks)
        k.taker_tricks = d.tricks_won[0] if d.tricks_won else 0
        for t in d.tricks:
            k._read_trick(t.leader, [CARD_OF[c] for c in t.cards])
        if d.trick is not None:
            k.trick = [CARD_OF[c] for c in d.trick.cards]
            k.trick_leader = d.trick.leader
            k._read_trick(d.trick.leader, k.trick)
        return k

    def _read_trick(self, leader: int, cards: list[int]) -> None:
        """Record a trick's cards and what each card says about its player's hand."""
        led = -1
        top = -1  # the winning card so far
        players = self.variant.players
        winner = -1
        for i, card in enumerate(cards):
            seat = (leader + i) % players
            self.plays.append((seat, card))
            self.played |= 1 << card
            self.played_by[seat] |= 1 << card
            if card == EXCUSE:
                continue  # the Excuse may be played at any time: it says nothing
            suit = SUIT_OF[card]
            if led < 0:
                led = suit
                top = card
                winner = seat
                continue
            if winner == self.taker and HALF_POINTS[card] >= LOADED_HALF and card != MONDE:
                self.loaded[seat] += 1
            if suit != led:
                self.void[seat] |= 1 << led
                if suit != TRUMP:
                    self.void[seat] |= 1 << TRUMP
            if suit == TRUMP and top >= FIRST_TRUMP and card < top:
                # Had it held a higher trump it would have had to overtrump.
                self.trump_ceiling[seat] = min(self.trump_ceiling[seat], top)
            if (suit == TRUMP and (top < FIRST_TRUMP or card > top)) or (
                suit == led and card > top
            ):
                top = card
                winner = seat

    # -- derived facts ---------------------------------------------------

    @property
    def chien_taken(self) -> bool:
        """Prise or garde: the chien was shown and the taker made an écart."""
        return self.taker >= 0 and takes_chien(self.contract)

    def held_count(self, seat: int) -> int:
        """How many cards ``seat`` holds now (the taker is back to a hand after the écart)."""
        size = self.variant.hand_size
        if seat == self.taker and self.phase == "ecart":
            return size + self.variant.ecart_size
        return size - self.played_by[seat].bit_count()

    def pile_size(self) -> int:
        """Cards in the hidden pile: the chien (unseen) or another taker's écart."""
        if self.chien_taken and (self.me == self.taker or self.phase == "ecart"):
            return 0
        return self.variant.ecart_size

    def known_places(self) -> dict[int, int]:
        """Cards whose place is known though unseen: ``{card: place}``."""
        places: dict[int, int] = {}
        for seat, cards in self.poignees.items():
            if seat == self.me:
                continue
            for c in cards:
                if not self.played >> c & 1:
                    places[c] = seat
        m = self.ecart_trumps
        while m:
            low = m & -m
            places[low.bit_length() - 1] = self.pile
            m ^= low
        return places

    def unseen(self) -> int:
        """Cards this seat has not seen played and does not hold (nor discarded)."""
        return FULL_DECK & ~(self.hand | self.played | self.my_ecart)

    def allowed_places(self, card: int) -> int:
        """Bitmask of the places (the seats, ``pile``) that may hold an unseen card."""
        suit = SUIT_OF[card]
        places = 0
        chien_card = self.chien >> card & 1 and self.me != self.taker
        for seat in self.variant.seats:
            if seat == self.me or self.void[seat] >> suit & 1:
                continue
            if suit == TRUMP and (card > self.trump_ceiling[seat] or self._trumps_pinned(seat)):
                continue
            if chien_card and seat != self.taker:
                continue  # a shown chien card went to the taker (or the écart)
            places |= 1 << seat
        if self.pile_size() and self._pile_may_hold(card):
            places |= 1 << self.pile
        return places

    def _trumps_pinned(self, seat: int) -> bool:
        """A poignée shown with the Excuse pins all the seat's trumps."""
        # The Excuse stands in for a trump only when every trump is shown.
        cards = self.poignees.get(seat)
        return cards is not None and EXCUSE in cards

    def _pile_may_hold(self, card: int) -> bool:
        if not self.chien_taken:
            return True  # an unseen chien was dealt: any card
        # An écart: never a King or a bout; trumps only those shown.
        bit = 1 << card
        if bit & (KINGS_MASK | BOUTS_MASK):
            return False
        return not bit & TRUMP_MASK

    def capacities(self) -> list[int]:
        """How many unseen cards each place holds (0 for this seat)."""
        caps = [0 if s == self.me else self.held_count(s) for s in self.variant.seats]
        caps.append(self.pile_size())
        return caps

    # -- camps -------------------------------------------------------------

    def called_partner(self) -> bool:
        """Five players: the taker calls a partner."""
        return self.variant.camps == "called_partner"

    def partner(self) -> int:
        """The taker's partner as this seat knows it: the seat that played
        the called card, or this seat when it holds it; the taker when the
        taker is known to be alone; -1 when this seat cannot tell (yet)."""
        called = self.called
        if called < 0:
            return -1
        bit = 1 << called
        if self.hand & bit:
            return self.me
        if self.played & bit:
            return next(s for s, c in self.plays if c == called)
        if self.chien & bit or self.my_ecart & bit:
            return self.taker  # the called card was in the chien: alone
        return -1

    def camp(self, seat: int) -> int:
        """``ATTACK``, ``DEFENCE`` or ``UNKNOWN``: ``seat``'s camp as this seat knows it."""
        if self.taker < 0:
            return UNKNOWN
        if seat == self.taker:
            return ATTACK
        if not self.called_partner():
            return DEFENCE
        partner = self.partner()
        if partner >= 0:
            return ATTACK if seat == partner else DEFENCE
        if seat == self.me or self.called < 0:
            return DEFENCE if seat == self.me else UNKNOWN
        if not self.allowed_places(self.called) >> seat & 1:
            return DEFENCE
        return UNKNOWN

    def p_attack(self, seat: int) -> float:
        """The odds that ``seat`` plays in the taker's camp: certain when
        known, else shared among the seats that may hold the called card,
        weighted by how they played (see ``loaded``)."""
        camp = self.camp(seat)
        if camp != UNKNOWN:
            return 1.0 if camp == ATTACK else 0.0
        weights = {}
        places = self.allowed_places(self.called) & ~(1 << self.taker)
        for s in self.variant.seats:
            if places >> s & 1:
                weights[s] = 4.0 ** min(self.loaded[s], 2)
        # The called card may also lie with the taker (alone), or in an
        # unseen chien: rarely, for a sensible taker, hence a small weight.
        alone = 0.3 if places >> self.pile & 1 else 0.1
        total = sum(weights.values()) + alone
        return weights.get(seat, 0.0) / total

    def partners(self, seat: int) -> bool:
        """Whether ``seat`` surely plays in this seat's camp."""
        if seat == self.me:
            return True
        mine = self.camp(self.me)
        return mine != UNKNOWN and self.camp(seat) == mine

    def p_partners(self, seat: int) -> float:
        """The odds that ``seat`` plays in this seat's camp."""
        if seat == self.me:
            return 1.0
        p = self.p_attack(seat)
        return p if self.camp(self.me) == ATTACK else 1.0 - p

    # -- trick helpers -----------------------------------------------------

"""One deal of French Tarot as a deterministic state machine (no I/O).

A ``Deal`` goes through the phases below; each phase admits exactly the
commands listed in ``COMMANDS`` (a table, not an ``if`` chain), and a command
that breaks a rule raises ``RuleError`` and changes nothing.

    bidding --(every seat bid, one took)--> ecart   (prise, garde: chien shown)
            --(garde sans / contre)-------> chelem
            --(five players, one took)----> call
            --(every seat passed)---------> annulled
    call    --(taker calls a card)--------> ecart or chelem, as above
    ecart   --(taker discards the écart)--> chelem
    chelem  --(taker declares or not)-----> play
    play    --(the last trick)------------> done

A petit sec annuls the deal as soon as it is dealt (phase ``annulled``).
How many seats, cards, tricks and poignée sizes there are is the deal's
``variant`` (``server.game.variant``; four players unless told otherwise).

Words used throughout:

* taker: the highest bidder; the others defend together (at five players,
  but the partner: the holder of the card the taker calls, ``calling.py``).
* chien: the cards set aside (6 at four players); écart: as many cards, that
  the taker discards after taking the chien (prise, garde) — ``ecart.py``.
* bout: T1 (the Petit), T21 and the Excuse; they lower the taker's target.
* poignée: trumps shown before one's first card, for a bonus (10, 13 or 15
  at four players) — ``poignee.py``.
* chelem: one camp takes every trick; the taker may declare it beforehand.
* petit au bout: the Petit played in the last trick, a bonus for the camp that
  wins that trick.

Speed matters (bots play thousands of deals per decision), so hands are card
bitmasks (see ``protocol.cards``), also kept as two machine-word masks once
play starts (``held``): the legal cards of the seat to play are read off them,
and ``play`` accepts a card by the span of the list it last gave. The mask of
the legal cards is cached until the next card, and the record is only built
when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final, Literal, NoReturn

from protocol.cards import (
    CODES,
    DECK_SIZE,
    EXCUSE,
    HALF_POINTS,
    MONDE,
    NO_SUIT,
    PETIT,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
    cards_of,
)
from server.game import calling, following, outcome
from server.game import ecart as ecart_rules
from server.game import poignee as poignee_rules
from server.game.contracts import BID_NAMES, BID_OF, GARDE_CONTRE, GARDE_SANS, PASS, takes_chien
from server.game.dealing import deal_cards, has_petit_sec
from server.game.errors import RuleError
from server.game.held import BITS, Held, mask_of
from server.game.results import Camp, ChelemOutcome, DealResult
from server.game.variant import FOUR, Variant

Phase = Literal["bidding", "call", "ecart", "chelem", "play", "done", "annulled"]

Action = tuple[str, int, Any]
"""A logged command: ``(kind, seat, value)``; replaying a deal's log rebuilds it."""

COMMANDS: Final[dict[Phase, frozenset[str]]] = {
    "bidding": frozenset({"bid"}),
    "call": frozenset({"call"}),
    "ecart": frozenset({"ecart"}),
    "chelem": frozenset({"chelem"}),
    "play": frozenset({"poignee", "play"}),
    "done": frozenset(),
    "annulled": frozenset(),
}
"""Which commands each phase admits; anything else is ``wrong_phase``."""


class Deal:
    """One deal, from the cards dealt to the score. Mutable; ``clone`` copies.

    Usage contract: ask ``turn`` who must act and ``phase`` what kind of
    command is expected, then call the matching method (``bid``, ``call``,
    ``ecart``, ``declare_chelem``, ``declare_poignee``, ``play``) or ``apply``
    with a logged action. The legal choices of the seat to act are exposed
    (``legal_bids``, ``legal_calls``, ``ecart_candidates``, ``poignee_sizes``,
    ``legal_cards``) so callers never re-derive a rule.
    """

    # Slots: a deal is cloned thousands of times per bot decision.
    __slots__ = tuple(
        """
        _held _legal _legal_high _legal_low annulled_reason annulled_seat bids bout_camps
        called called_card camp_half camps chelem_declared chien contract dealer dealt ecart_cards
        ecart_trumps excuse_camp hands last_trick leader leaders led log partner phase
        players poignees taker taker_tricks trick tricks turn variant win_card win_seat
        winners
        """.split()
    )

    def __new__(cls, *args: object, **kwargs: object) -> Deal:
        # For ``clone``, a deal without ``__init__``: compiled (server/base/compiled.py),
        # a class's ``__new__`` runs ``__init__`` unless the class has its own.
        return object.__new__(cls)

    def __init__(
        self, dealer: int, hands: list[list[int]], chien: list[int], variant: Variant = FOUR
    ) -> None:
        """Start a deal from the cards as dealt (``hands[seat]``, ``chien``).

        The caller guarantees the whole pack, as ``variant`` deals it: a hand
        per seat and the chien (``replay`` checks a record before building a
        deal). A petit sec annuls it at once.
        """
        self.variant = variant
        # Copied out of the variant: read on every card played.
        self.players = players = variant.players
        self.last_trick = variant.hand_size - 1  # variant.tricks, a property of Python
        self.dealer = dealer
        self.dealt = [list(h) for h in hands]
        self.chien = list(chien)
        self.hands = [mask_of(hand) for hand in hands]
        self.phase: Phase = "bidding"
        self.turn: int | None = (dealer + 1) % players
        self.bids: list[int] = []
        self.contract = PASS
        self.taker = -1
        self.called: str | None = None
        self.called_card = -1
        self.partner: int | None = None
        self.camps = [1] * players  # each seat's camp: 0 attack, 1 defense
        self.ecart_cards: list[int] = []
        self.ecart_trumps: list[int] = []
        self.chelem_declared = False
        self.poignees: list[tuple[int, list[int]]] = []
        self.tricks: list[list[int]] = []
        self.leaders: list[int] = []
        self.winners: list[int] = []
        self.trick: list[int] = []
        self.leader = -1
        self.led = -1
        self.win_card = -1
        self.win_seat = -1
        self.camp_half = [0, 0]  # [taker's camp, defense], in half-points
        self.taker_tricks = 0
        self.excuse_camp = -1
        self.bout_camps: dict[int, int] = {}
        self.annulled_reason: Literal["all_pass", "petit_sec"] | None = None
        self.annulled_seat: int | None = None
        self.log: list[Action] = []
        self._legal = -1
        # The span of the legal cards ``legal_cards`` last listed (see there);
        # none (low above the deck) until it is asked.
        self._legal_low = DECK_SIZE
        self._legal_high = -1
        # Each seat's hand as a ``Held``, from the first card played on, built
        # when first asked for (``legal_cards``); ``None`` until then.
        self._held: list[Held | None] = [None] * players
        for i in range(players):
            seat = (dealer + 1 + i) % players
            if has_petit_sec(self.hands[seat]):
                self._annul("petit_sec", seat)
                break

    @classmethod
    def deal(cls, rng: random.Random, dealer: int, variant: Variant = FOUR) -> Deal:
        """Shuffle, deal and start a new deal."""
        hands, chien = deal_cards(rng, dealer, variant)
        return cls(dealer, hands, chien, variant)

    def clone(self) -> Deal:
        """An independent copy, for bots that try moves out (every slot by name:
        compiled, a class has no ``__slots__`` to loop over; quicker in Python too)."""
        other = Deal.__new__(Deal)
        # Shared (never mutated after __init__; camps replaced, never mutated), and values.
        other.variant, other.players, other.last_trick = self.variant, self.players, self.last_trick
        other.dealer, other.dealt, other.chien = self.dealer, self.dealt, self.chien
        other.camps, other.phase, other.turn = self.camps, self.phase, self.turn
        other.contract, other.taker, other.called = self.contract, self.taker, self.called
        other.called_card, other.partner = self.called_card, self.partner
        other.chelem_declared, other.leader, other.led = self.chelem_declared, self.leader, self.led
        other.win_card, other.win_seat = self.win_card, self.win_seat
        other.taker_tricks, other.excuse_camp = self.taker_tricks, self.excuse_camp
        other.annulled_reason, other.annulled_seat = self.annulled_reason, self.annulled_seat
        other._legal, other._legal_high = self._legal, self._legal_high
        other._legal_low = DECK_SIZE  # a span reads the hand's ``Held``
        # Copied: mutated in place as the deal goes on.
        other.hands, other.bids = list(self.hands), list(self.bids)
        other.ecart_cards, other.ecart_trumps = list(self.ecart_cards), list(self.ecart_trumps)
        other.poignees, other.tricks = list(self.poignees), list(self.tricks)
        other.leaders, other.winners = list(self.leaders), list(self.winners)
        other.trick, other.camp_half = list(self.trick), list(self.camp_half)
        other.bout_camps, other.log = dict(self.bout_camps), list(self.log)
        other._held = [None] * self.players  # built again when asked for
        return other

    # -- dispatch --------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply a logged command ``(kind, seat, value)``."""
        kind, seat, value = action
        if kind not in COMMANDS[self.phase]:
            raise RuleError(
                "wrong_phase", f"cannot {kind} during the {self.phase} phase", seat=seat
            )
        _DISPATCH[kind](self, seat, value)

    def _check_turn(self, seat: int, what: str) -> None:
        if what not in COMMANDS[self.phase]:
            raise RuleError(
                "wrong_phase", f"cannot {what} during the {self.phase} phase", seat=seat
            )
        if seat != self.turn:
            raise RuleError(
                "not_your_turn", f"it is seat {self.turn}'s turn, not seat {seat}'s", seat=seat
            )

    def _annul(self, reason: Literal["all_pass", "petit_sec"], seat: int | None) -> None:
        self.phase = "annulled"
        self.turn = None
        self.annulled_reason = reason
        self.annulled_seat = seat

    # -- bidding ---------------------------------------------------------

    def highest_bid(self) -> int:
        # A loop: compiled, max(..., default=) is a call with keywords.
        high = PASS
        for bid in self.bids:
            if bid > high:
                high = bid
        return high

    def legal_bids(self) -> list[int]:
        """Pass, or any contract higher than every bid so far."""
        if self.phase != "bidding":
            return []
        bids = [PASS]
        for bid in range(self.highest_bid() + 1, GARDE_CONTRE + 1):
            bids.append(bid)
        return bids

    def bid(self, seat: int, bid: int | str) -> None:
        """Speak once: pass (0 / "pass") or a contract higher than every bid before."""
        self._check_turn(seat, "bid")
        if isinstance(bid, str):
            if bid not in BID_OF:
                raise RuleError("bad_bid", f"unknown bid {bid!r}", seat=seat)
            bid = BID_OF[bid]
        elif not PASS <= bid <= GARDE_CONTRE:
            raise RuleError("bad_bid", f"unknown bid {bid!r}", seat=seat)
        high = self.highest_bid()
        if bid != PASS and bid <= high:
            raise RuleError(
                "bad_bid",
                f"seat {seat} must bid higher than {BID_NAMES[high]} or pass",
                seat=seat,
            )
        self.bids.append(bid)
        self.log.append(("bid", seat, bid))
        players = self.players
        if len(self.bids) < players:
            self.turn = (seat + 1) % players
            return
        high = self.highest_bid()
        if high == PASS:
            self._annul("all_pass", None)
            return
        first = (self.dealer + 1) % players
        self.taker = (first + self.bids.index(high)) % players
        self.contract = high
        self.turn = self.taker
        self.camps = [1] * players
        self.camps[self.taker] = 0
        if self.variant.camps == "called_partner":
            self.phase = "call"
        else:
            self._after_bidding()

    def _after_bidding(self) -> None:
        if takes_chien(self.contract):
            # The chien is shown to all and joins the taker's hand.
            for c in self.chien:
                self.hands[self.taker] |= 1 << c
            self.phase = "ecart"
        else:
            self.phase = "chelem"

    # -- the called card (five players) ---------------------------------

    def legal_calls(self) -> list[int]:
        """The cards the taker may call now, lowest first (``calling.py``)."""
        if self.phase != "call":
            return []
        return cards_of(calling.callable_mask(self.hands[self.taker]))

    def call(self, seat: int, card: int) -> None:
        """The taker calls a card; its holder, if not the taker, is the partner."""
        self._check_turn(seat, "call")
        calling.check(seat, self.hands[seat], card)
        self.called = CODES[card]
        self.called_card = card
        self.partner = partner = calling.partner(self.hands, seat, card)
        if partner is not None:
            self.camps = list(self.camps)
            self.camps[partner] = 0
        self.log.append(("call", seat, card))
        self._after_bidding()

    @property
    def partner_known(self) -> bool:
        """Whether the camps are public: the called card has been played, or
        the deal is over (the result says). Until then ``partner`` is secret."""
        card = self.called_card
        played = card >= 0 and (card in self.trick or any(card in t for t in self.tricks))
        return played or self.phase == "done"

    # -- chien and écart --------------------------------------------------

    def ecart_trumps_needed(self) -> int:
        """How many trumps the écart must hold (``ecart.trumps_needed``)."""
        if self.phase != "ecart":
            return 0
        return ecart_rules.trumps_needed(self.hands[self.taker], self.variant.ecart_size)

    def ecart_candidates(self) -> int:
        """The mask of cards the taker may discard (``ecart.candidates``)."""
        if self.phase != "ecart":
            return 0
        return ecart_rules.candidates(self.hands[self.taker], self.variant.ecart_size)

    def ecart(self, seat: int, cards: list[int]) -> None:
        """The taker discards the écart face down; forced trumps are shown to all."""
        self._check_turn(seat, "ecart")
        hand = self.hands[seat]
        mask = ecart_rules.check(seat, hand, cards, self.variant.ecart_size)
        self.hands[seat] = hand & ~mask
        self.ecart_cards = list(cards)
        self.ecart_trumps = cards_of(mask & TRUMP_MASK)
        self.log.append(("ecart", seat, list(cards)))
        self.phase = "chelem"

    # -- chelem ------------------------------------------------------------

    def declare_chelem(self, seat: int, declare: bool) -> None:
        """The taker says whether they declare a chelem (then they lead)."""
        self._check_turn(seat, "chelem")
        if not isinstance(declare, bool):
            raise RuleError("bad_chelem", "a chelem declaration is yes or no", seat=seat)
        self.chelem_declared = declare
        self.log.append(("chelem", seat, declare))
        self._start_play()

    def _start_play(self) -> None:
        self.phase = "play"
        first = self.taker if self.chelem_declared else (self.dealer + 1) % self.players
        self.turn = first
        self.leader = first
        # The écart counts for the taker; the chien counts for the taker in a
        # garde sans and for the defense in a garde contre.
        if takes_chien(self.contract):
            aside, camp = self.ecart_cards, 0
        else:
            aside, camp = self.chien, 0 if self.contract == GARDE_SANS else 1
        self.camp_half[camp] += sum(HALF_POINTS[c] for c in aside)
        for c in aside:
            if c in (PETIT, MONDE):
                self.bout_camps[c] = camp
            elif c == EXCUSE:
                self.excuse_camp = camp
        self._legal = -1

    # -- poignées ----------------------------------------------------------

    def poignee_sizes(self, seat: int) -> list[int]:
        """The poignée sizes ``seat`` may show now: just before its first
        card, once, counting the Excuse only as a last trump."""
        if self.phase != "play" or self.tricks or seat != self.turn:
            return []
        if any(s == seat for s, _ in self.poignees):
            return []
        return poignee_rules.sizes_within(self.hands[seat], self.variant.poignees)

    def declare_poignee(self, seat: int, cards: list[int]) -> None:
        """Show one of the variant's poignées before playing one's first card.

        The Excuse may stand in for a trump only when every trump of the hand
        is shown with it.
        """
        self._check_turn(seat, "poignee")
        if self.tricks:
            raise RuleError("bad_poignee", "a poignée is shown before one's first card", seat=seat)
        if any(s == seat for s, _ in self.poignees):
            raise RuleError("bad_poignee", "one poignée per player", seat=seat)
        mask = poignee_rules.check(seat, self.hands[seat], cards, self.variant.poignees)
        self.poignees.append((seat, cards_of(mask)))
        self.log.append(("poignee", seat, list(cards)))

    # -- trick play --------------------------------------------------------

    def legal_mask(self) -> int:
        """The mask of cards the seat to play may play now (0 outside play)."""
        legal = self._legal
        if legal >= 0:
            return legal
        if self.phase != "play" or self.turn is None:
            return 0
        hand = self.hands[self.turn]
        led = self.led
        if led < 0:  # leading, or only the Excuse was led: anything goes...
            legal = hand
            if self.called_card >= 0 and not self.trick and not self.tricks:
                # ...but the deal's first card, not of the called suit.
                legal = calling.opening_lead(hand, self.called_card)
        else:
            legal = following.follow_mask(hand, led, self.win_card)
        self._legal = legal
        return legal

    def legal_cards(self) -> list[int]:
        """The cards the seat to play may play now, lowest first."""
        turn = self.turn
        if turn is None or self.phase != "play":
            return []
        held = self._held[turn]
        if held is None:
            held = self._held[turn] = Held(self.hands[turn])
        led = self.led
        if led < 0 and self.called_card >= 0 and not self.tricks and not self.trick:
            return cards_of(self.legal_mask())  # the deal's first lead at five
        legal = following.legal_list(held.low, held.high, led, self.win_card)
        # Kept for ``play``: the legal cards are the held cards between the
        # first and the last of them (one suit, the trumps above the best, or
        # anything), and the Excuse. The caller's list is its own to change.
        high = legal[-1]
        if high == EXCUSE and len(legal) > 1:
            high = legal[-2]
        self._legal_low = legal[0]
        self._legal_high = high
        return legal

    def play(self, seat: int, card: int) -> int | None:
        """Play a card; returns the trick's winner when it completes the trick."""
        turn = self.turn
        if turn is None or seat != turn or self.phase != "play":
            self._check_turn(seat, "play")
        held = self._held[seat]
        low = self._legal_low
        if low <= card <= self._legal_high or (card == EXCUSE and low < DECK_SIZE):
            # Within the span of the legal cards just listed: legal if held.
            assert held is not None  # a span is only kept with the ``Held``
            if not held.take(card):
                self._refuse(seat, card)
        else:
            if not self.legal_mask() >> card & 1:
                self._refuse(seat, card)
            if held is not None:
                held.take(card)
        self.hands[seat] ^= BITS[card]
        self._legal = -1
        self._legal_low = DECK_SIZE
        self.log.append(("play", seat, card))
        trick = self.trick
        trick.append(card)
        suit = SUIT_OF[card]
        if suit != NO_SUIT:
            if self.led < 0:
                self.led = suit
                self.win_card = card
                self.win_seat = seat
            elif card > self.win_card and (suit == self.led or suit == TRUMP):
                self.win_card = card
                self.win_seat = seat
        players = self.players
        if len(trick) < players:
            self.turn = (seat + 1) % players
            return None
        return self._end_trick()

    def _refuse(self, seat: int, card: int) -> NoReturn:
        """Raise why ``seat`` may not play ``card`` (not held, or not legal)."""
        hand, trick = self.hands[seat], len(self.tricks)
        raise following.refusal(seat, card, hand, self.led, self.win_card, trick)

    def _end_trick(self) -> int:
        trick = self.trick
        number = len(self.tricks)
        camps = self.camps
        winner = self.win_seat
        leader = self.leader
        last = self.last_trick
        excuse_led_wins = False
        # Chelem exception: the Excuse led to the last trick by a camp that
        # won every previous trick wins it.
        if (
            number == last
            and trick[0] == EXCUSE
            and self.taker_tricks == (last if camps[leader] == 0 else 0)
        ):
            winner = leader
            excuse_led_wins = True
        win_camp = camps[winner]
        # One loop for the points and the bouts: compiled, each ``in`` or set
        # method on the trick would be a call of its own.
        half = 0
        petit = monde = has_excuse = False
        for card in trick:
            half += HALF_POINTS[card]
            if card >= MONDE:
                if card == MONDE:
                    monde = True
                else:
                    has_excuse = True
            elif card == PETIT:
                petit = True
        if has_excuse and not excuse_led_wins:
            half -= 9
            owner = camps[(leader + trick.index(EXCUSE)) % self.players]
            if number < last:
                # The Excuse stays with its owner's camp, which gives a
                # half-point card to the trick's winners in exchange.
                if owner == win_camp:
                    half += 9
                else:
                    self.camp_half[owner] += 8
                    half += 1
                self.excuse_camp = owner
            else:
                # Played to the last trick, it changes camp (FFT Decision).
                self.camp_half[1 - owner] += 9
                self.excuse_camp = 1 - owner
        elif has_excuse:
            self.excuse_camp = win_camp
        self.camp_half[win_camp] += half
        if petit:
            self.bout_camps[PETIT] = win_camp
        if monde:
            self.bout_camps[MONDE] = win_camp
        if win_camp == 0:
            self.taker_tricks += 1
        self.tricks.append(trick)
        self.leaders.append(leader)
        self.winners.append(winner)
        self.trick = []
        self.led = -1
        self.win_card = -1
        self.win_seat = -1
        if number == last:
            self.phase = "done"
            self.turn = None
        else:
            self.turn = winner
            self.leader = winner
        return winner

    # -- results -------------------------------------------------------------

    def camp_of(self, seat: int) -> int:
        """0 for the attack (the taker, and a called partner), 1 for the defense."""
        return self.camps[seat]

    def petit_au_bout(self) -> Camp | None:
        return outcome.petit_au_bout(self)

    def chelem_outcome(self) -> ChelemOutcome | None:
        return outcome.chelem_outcome(self)

    def result(self) -> DealResult | None:
        """The deal's score once it is over (``None`` while it is played)."""
        return outcome.result(self)

    def record(self) -> dict[str, Any]:
        """The deal record (docs/DEAL-RECORD.md) of the deal so far (``outcome.record``)."""
        return outcome.record(self)


# The log's values go straight to the methods: a list read back from a store
# as a tuple is as good, since the methods copy what they keep.
_DISPATCH: Final[dict[str, Callable[[Deal, int, Any], object]]] = {
    "bid": Deal.bid,
    "call": Deal.call,
    "ecart": Deal.ecart,
    "chelem": Deal.declare_chelem,
    "poignee": Deal.declare_poignee,
    "play": Deal.play,
}

"""One deal of French Tarot as a deterministic state machine (no I/O).

A ``Deal`` goes through the phases below; each phase admits exactly the
commands listed in ``COMMANDS`` (a table, not an ``if`` chain), and a command
that breaks a rule raises ``RuleError`` and changes nothing.

    bidding --(4 bids, someone took)--> ecart   (prise, garde: chien shown)
            --(garde sans / contre)---> chelem
            --(4 passes)--------------> annulled
    ecart   --(taker discards 6)------> chelem
    chelem  --(taker declares or not)-> play
    play    --(18th trick)------------> done

A petit sec annuls the deal as soon as it is dealt (phase ``annulled``).

Words used throughout:

* taker: the highest bidder; the three others defend together.
* chien: the 6 cards set aside; écart: the 6 cards the taker discards after
  taking the chien (prise, garde).
* bout: T1 (the Petit), T21 and the Excuse; they lower the taker's target.
* poignée: 10, 13 or 15 trumps shown before one's first card, for a bonus.
* chelem: one camp takes every trick; the taker may declare it beforehand.
* petit au bout: the Petit played in the last trick, a bonus for the camp that
  wins that trick.

Speed matters (bots play thousands of deals per decision), so hands are card
bitmasks (see ``protocol.cards``), the legal cards of the seat to play are
computed with a few mask operations and cached until the next card, and the
record is only built when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any, Final, Literal

from protocol.cards import (
    BOUTS_MASK,
    CODES,
    EXCUSE,
    EXCUSE_BIT,
    FIRST_TRUMP,
    HALF_POINTS,
    KINGS_MASK,
    MONDE,
    PETIT,
    SUIT_CARDS_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
    cards_of,
)
from server.game.contracts import (
    BID_NAMES,
    BID_OF,
    GARDE_CONTRE,
    GARDE_SANS,
    PASS,
    takes_chien,
)
from server.game.dealing import deal_cards, has_petit_sec
from server.game.errors import RuleError
from server.game.scoring import (
    POIGNEE_SIZES,
    AnnulledDeal,
    Camp,
    ChelemOutcome,
    DealResult,
    score,
)

Phase = Literal["bidding", "ecart", "chelem", "play", "done", "annulled"]

TRICKS: Final = 18
LAST_TRICK: Final = TRICKS - 1

Action = tuple[str, int, Any]
"""A logged command: ``(kind, seat, value)``; replaying a deal's log rebuilds it."""

COMMANDS: Final[dict[Phase, frozenset[str]]] = {
    "bidding": frozenset({"bid"}),
    "ecart": frozenset({"ecart"}),
    "chelem": frozenset({"chelem"}),
    "play": frozenset({"poignee", "play"}),
    "done": frozenset(),
    "annulled": frozenset(),
}
"""Which commands each phase admits; anything else is ``wrong_phase``."""

ECART_SIZE: Final = 6
NON_KING_SUIT_MASK: Final = SUIT_CARDS_MASK & ~KINGS_MASK
DISCARDABLE_TRUMPS: Final = TRUMP_MASK & ~BOUTS_MASK


def _names(mask: int) -> str:
    return " ".join(CODES[c] for c in cards_of(mask))


class Deal:
    """One deal, from the cards dealt to the score. Mutable; ``clone`` copies.

    Usage contract: ask ``turn`` who must act and ``phase`` what kind of
    command is expected, then call the matching method (``bid``, ``ecart``,
    ``declare_chelem``, ``declare_poignee``, ``play``) or ``apply`` with a
    logged action. The legal choices of the seat to act are exposed
    (``legal_bids``, ``ecart_candidates``, ``poignee_sizes``, ``legal_cards``)
    so callers never re-derive a rule.
    """

    __slots__ = (
        "_legal",
        "annulled_reason",
        "annulled_seat",
        "bids",
        "bout_camps",
        "camp_half",
        "chelem_declared",
        "chien",
        "contract",
        "dealer",
        "dealt",
        "ecart_cards",
        "ecart_trumps",
        "excuse_camp",
        "hands",
        "leader",
        "leaders",
        "led",
        "log",
        "phase",
        "poignees",
        "taker",
        "taker_tricks",
        "trick",
        "tricks",
        "turn",
        "win_card",
        "win_seat",
        "winners",
    )

    def __init__(self, dealer: int, hands: list[list[int]], chien: list[int]) -> None:
        """Start a deal from the cards as dealt (``hands[seat]``, ``chien``).

        The caller guarantees 4×18 + 6 distinct cards (``replay`` checks a
        record before building a deal). A petit sec annuls it at once.
        """
        self.dealer = dealer
        self.dealt = [list(h) for h in hands]
        self.chien = list(chien)
        self.hands = [0, 0, 0, 0]
        for seat, hand in enumerate(hands):
            m = 0
            for c in hand:
                m |= 1 << c
            self.hands[seat] = m
        self.phase: Phase = "bidding"
        self.turn: int | None = (dealer + 1) % 4
        self.bids: list[int] = []
        self.contract = PASS
        self.taker = -1
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
        for i in range(4):
            seat = (dealer + 1 + i) % 4
            if has_petit_sec(self.hands[seat]):
                self._annul("petit_sec", seat)
                break

    @classmethod
    def deal(cls, rng: random.Random, dealer: int) -> Deal:
        """Shuffle, deal and start a new deal."""
        hands, chien = deal_cards(rng, dealer)
        return cls(dealer, hands, chien)

    @classmethod
    def from_log(
        cls, dealer: int, hands: list[list[int]], chien: list[int], log: Iterable[Action]
    ) -> Deal:
        """Rebuild a deal from its cards and logged commands (persistence)."""
        deal = cls(dealer, hands, chien)
        for action in log:
            deal.apply(action)
        return deal

    def clone(self) -> Deal:
        """An independent copy, for bots that try moves out."""
        other = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other.dealt = self.dealt  # never mutated after __init__
        other.chien = self.chien
        other.hands = list(self.hands)
        other.bids = list(self.bids)
        other.ecart_cards = list(self.ecart_cards)
        other.ecart_trumps = list(self.ecart_trumps)
        other.poignees = list(self.poignees)
        other.tricks = list(self.tricks)
        other.leaders = list(self.leaders)
        other.winners = list(self.winners)
        other.trick = list(self.trick)
        other.camp_half = list(self.camp_half)
        other.bout_camps = dict(self.bout_camps)
        other.log = list(self.log)
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
        return max(self.bids, default=PASS)

    def legal_bids(self) -> list[int]:
        """Pass, or any contract higher than every bid so far."""
        if self.phase != "bidding":
            return []
        return [PASS, *range(self.highest_bid() + 1, GARDE_CONTRE + 1)]

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
        if len(self.bids) < 4:
            self.turn = (seat + 1) % 4
            return
        high = self.highest_bid()
        if high == PASS:
            self._annul("all_pass", None)
            return
        first = (self.dealer + 1) % 4
        self.taker = (first + self.bids.index(high)) % 4
        self.contract = high
        self.turn = self.taker
        if takes_chien(high):
            # The chien is shown to all and joins the taker's hand.
            for c in self.chien:
                self.hands[self.taker] |= 1 << c
            self.phase = "ecart"
        else:
            self.phase = "chelem"

    # -- chien and écart --------------------------------------------------

    def ecart_trumps_needed(self) -> int:
        """How many trumps the écart must hold: only when the taker has fewer
        than 6 suit cards other than Kings, exactly as many as are missing."""
        if self.phase != "ecart":
            return 0
        suit = (self.hands[self.taker] & NON_KING_SUIT_MASK).bit_count()
        return max(0, ECART_SIZE - suit)

    def ecart_candidates(self) -> int:
        """The mask of cards the taker may discard: never a King or a bout,
        trumps only when forced (then every non-King suit card must go too)."""
        if self.phase != "ecart":
            return 0
        hand = self.hands[self.taker]
        mask = hand & NON_KING_SUIT_MASK
        if mask.bit_count() < ECART_SIZE:
            mask |= hand & DISCARDABLE_TRUMPS
        return mask

    def ecart(self, seat: int, cards: list[int]) -> None:
        """The taker discards 6 cards face down; forced trumps are shown to all."""
        self._check_turn(seat, "ecart")
        hand = self.hands[seat]
        mask = 0
        for c in cards:
            mask |= 1 << c
        if len(cards) != ECART_SIZE or mask.bit_count() != ECART_SIZE:
            raise RuleError("bad_ecart", "the écart is exactly 6 different cards", seat=seat)
        if mask & ~hand:
            raise RuleError(
                "bad_ecart", f"not in the taker's hand: {_names(mask & ~hand)}", seat=seat
            )
        if forbidden := mask & (KINGS_MASK | BOUTS_MASK):
            raise RuleError(
                "bad_ecart",
                f"Kings and bouts may never be discarded: {_names(forbidden)}",
                seat=seat,
            )
        needed = self.ecart_trumps_needed()
        trumps = (mask & TRUMP_MASK).bit_count()
        if trumps != needed:
            if needed == 0:
                msg = "trumps may be discarded only when there are fewer than 6 other suit cards"
            else:
                msg = f"the écart must hold exactly {needed} trump(s) and every non-King suit card"
            raise RuleError("bad_ecart", msg, seat=seat)
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
        first = self.taker if self.chelem_declared else (self.dealer + 1) % 4
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
        """The poignée sizes (10, 13, 15) ``seat`` may show now: just before
        its first card, once, counting the Excuse only as a last trump."""
        if self.phase != "play" or self.tricks or seat != self.turn:
            return []
        if any(s == seat for s, _ in self.poignees):
            return []
        hand = self.hands[seat]
        n = (hand & TRUMP_MASK).bit_count() + (1 if hand & EXCUSE_BIT else 0)
        return [size for size in POIGNEE_SIZES if size <= n]

    def declare_poignee(self, seat: int, cards: list[int]) -> None:
        """Show exactly 10, 13 or 15 trumps before playing one's first card.

        The Excuse may stand in for a trump only when every trump of the hand
        is shown with it.
        """
        self._check_turn(seat, "poignee")
        if self.tricks:
            raise RuleError("bad_poignee", "a poignée is shown before one's first card", seat=seat)
        if any(s == seat for s, _ in self.poignees):
            raise RuleError("bad_poignee", "one poignée per player", seat=seat)
        mask = 0
        for c in cards:
            mask |= 1 << c
        hand = self.hands[seat]
        if mask.bit_count() != len(cards) or len(cards) not in POIGNEE_SIZES:
            raise RuleError(
                "bad_poignee",
                "a poignée is exactly 10, 13 or 15 different trumps",
                seat=seat,
            )
        if mask & ~hand:
            raise RuleError("bad_poignee", f"not in your hand: {_names(mask & ~hand)}", seat=seat)
        if mask & ~(TRUMP_MASK | EXCUSE_BIT):
            raise RuleError(
                "bad_poignee",
                f"a poignée shows trumps only: {_names(mask & ~(TRUMP_MASK | EXCUSE_BIT))}",
                seat=seat,
            )
        if mask & EXCUSE_BIT and hand & TRUMP_MASK & ~mask:
            raise RuleError(
                "bad_poignee",
                "the Excuse may stand in for a trump only when every trump is shown",
                seat=seat,
                card="EX",
            )
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
        if led < 0:  # leading, or only the Excuse was led: anything goes
            legal = hand
        else:
            follow = hand & SUIT_MASKS[led]
            if follow and led != TRUMP:
                legal = follow | (hand & EXCUSE_BIT)
            else:
                trumps = hand & TRUMP_MASK
                if trumps:
                    top = self.win_card
                    if top >= FIRST_TRUMP:
                        # Overtrump when possible, even over a partner.
                        higher = trumps >> (top + 1) << (top + 1)
                        if higher:
                            trumps = higher
                    legal = trumps | (hand & EXCUSE_BIT)
                else:
                    legal = hand
        self._legal = legal
        return legal

    def legal_cards(self) -> list[int]:
        """The cards the seat to play may play now, lowest first."""
        return cards_of(self.legal_mask())

    def _illegal_reason(self, seat: int, card: int) -> str:
        led = self.led
        hand = self.hands[seat]
        if led != TRUMP and hand & SUIT_MASKS[led]:
            return f"seat {seat} must follow {SUIT_NAMES[led]}"
        if hand & TRUMP_MASK and SUIT_OF[card] != TRUMP:
            return f"seat {seat} must play a trump"
        return f"seat {seat} must overtrump {CODES[self.win_card]} with a higher trump"

    def play(self, seat: int, card: int) -> int | None:
        """Play a card; returns the trick's winner when it completes the trick."""
        if seat != self.turn or self.phase != "play":
            self._check_turn(seat, "play")
        bit = 1 << card
        hand = self.hands[seat]
        if not hand & bit:
            raise RuleError(
                "card_not_in_hand",
                f"seat {seat} does not hold {CODES[card]}",
                seat=seat,
                card=CODES[card],
                trick=len(self.tricks),
            )
        legal = self._legal
        if legal < 0:
            legal = self.legal_mask()
        if not legal & bit:
            raise RuleError(
                "illegal_card",
                self._illegal_reason(seat, card),
                seat=seat,
                card=CODES[card],
                trick=len(self.tricks),
            )
        self.hands[seat] = hand ^ bit
        self._legal = -1
        self.log.append(("play", seat, card))
        trick = self.trick
        trick.append(card)
        if card != EXCUSE:
            suit = SUIT_OF[card]
            if self.led < 0:
                self.led = suit
                self.win_card = card
                self.win_seat = seat
            elif card > self.win_card and (suit == self.led or suit == TRUMP):
                self.win_card = card
                self.win_seat = seat
        if len(trick) < 4:
            self.turn = (seat + 1) % 4
            return None
        return self._end_trick()

    def _end_trick(self) -> int:
        trick = self.trick
        number = len(self.tricks)
        taker = self.taker
        winner = self.win_seat
        leader = self.leader
        excuse_led_wins = False
        if number == LAST_TRICK and trick[0] == EXCUSE:
            # Chelem exception: the Excuse led to the last trick by a camp
            # that won all 17 previous tricks wins it.
            leader_is_taker = leader == taker
            if self.taker_tricks == (LAST_TRICK if leader_is_taker else 0):
                winner = leader
                excuse_led_wins = True
        win_camp = 0 if winner == taker else 1
        half = 0
        for c in trick:
            half += HALF_POINTS[c]
        has_excuse = EXCUSE in trick
        if has_excuse and not excuse_led_wins:
            half -= 9
            owner = 0 if (leader + trick.index(EXCUSE)) % 4 == taker else 1
            if number < LAST_TRICK:
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
        if PETIT in trick:
            self.bout_camps[PETIT] = win_camp
        if MONDE in trick:
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
        if number == LAST_TRICK:
            self.phase = "done"
            self.turn = None
        else:
            self.turn = winner
            self.leader = winner
        return winner

    # -- results -------------------------------------------------------------

    def camp_of(self, seat: int) -> int:
        """0 for the taker's camp, 1 for the defense."""
        return 0 if seat == self.taker else 1

    def taker_bouts(self) -> int:
        n = sum(1 for camp in self.bout_camps.values() if camp == 0)
        return n + (1 if self.excuse_camp == 0 else 0)

    def petit_au_bout(self) -> Camp | None:
        """The camp that won the Petit in the last trick (or in the 17th when
        the last trick was won by an Excuse led under the chelem exception)."""
        if self.phase != "done":
            return None
        last = self.tricks[LAST_TRICK]
        n = LAST_TRICK
        excuse_won = last[0] == EXCUSE and self.winners[LAST_TRICK] == self.leaders[LAST_TRICK]
        if excuse_won and PETIT not in last:
            n = LAST_TRICK - 1
        if PETIT not in self.tricks[n]:
            return None
        return "taker" if self.winners[n] == self.taker else "defense"

    def chelem_outcome(self) -> ChelemOutcome | None:
        if self.taker_tricks == TRICKS:
            return "declared_made" if self.chelem_declared else "undeclared_made"
        if self.chelem_declared:
            return "declared_failed"
        if self.taker_tricks == 0:
            return "defense"
        return None

    def result(self) -> DealResult | None:
        """The deal's score once it is over (``None`` while it is played)."""
        if self.phase == "annulled":
            assert self.annulled_reason is not None
            return AnnulledDeal(self.annulled_reason, self.annulled_seat)
        if self.phase != "done":
            return None
        return score(
            taker=self.taker,
            contract=self.contract,
            taker_half_points=self.camp_half[0],
            bouts=self.taker_bouts(),
            petit_au_bout=self.petit_au_bout(),
            poignees=[(seat, len(cards)) for seat, cards in self.poignees],
            chelem=self.chelem_outcome(),
        )

    def record(self) -> dict[str, Any]:
        """The deal record (docs/DEAL-RECORD.md) of the deal so far, as JSON-ready data."""
        rec: dict[str, Any] = {
            "dealer": self.dealer,
            "hands": [[CODES[c] for c in hand] for hand in self.dealt],
            "chien": [CODES[c] for c in self.chien],
        }
        if self.annulled_reason == "petit_sec":
            return rec
        rec["bids"] = [BID_NAMES[b] for b in self.bids]
        if self.phase in ("bidding", "annulled"):
            return rec
        if self.ecart_cards:
            rec["ecart"] = [CODES[c] for c in self.ecart_cards]
        rec["chelem"] = self.chelem_declared
        rec["poignees"] = [
            {"seat": seat, "cards": [CODES[c] for c in cards]} for seat, cards in self.poignees
        ]
        tricks = [[CODES[c] for c in t] for t in self.tricks]
        if self.trick:
            tricks.append([CODES[c] for c in self.trick])
        rec["tricks"] = tricks
        return rec


def _apply_bid(deal: Deal, seat: int, value: Any) -> None:
    deal.bid(seat, value)


def _apply_ecart(deal: Deal, seat: int, value: Any) -> None:
    deal.ecart(seat, list(value))


def _apply_chelem(deal: Deal, seat: int, value: Any) -> None:
    deal.declare_chelem(seat, value)


def _apply_poignee(deal: Deal, seat: int, value: Any) -> None:
    deal.declare_poignee(seat, list(value))


def _apply_play(deal: Deal, seat: int, value: Any) -> None:
    deal.play(seat, value)


_DISPATCH: Final[dict[str, Callable[[Deal, int, Any], None]]] = {
    "bid": _apply_bid,
    "ecart": _apply_ecart,
    "chelem": _apply_chelem,
    "poignee": _apply_poignee,
    "play": _apply_play,
}

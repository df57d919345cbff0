"""The ``normal`` bot: a sound club player's rules of thumb.

* Bidding: the hand's point count (``evaluation.hand_strength``: bouts,
  trumps, Kings and honours, long and short suits) picks the contract; it
  passes when that is not above the bids already made.
* Call (five players): the King it lacks where it holds the Queen, else
  in its longest suit (``choose_call``).
* Écart: never a King or a bout (the rules), trumps only when forced (then
  the lowest); voids the shortest suits without a King, then banks the
  Queens and Knights that would otherwise be lost, then shortens short suits.
* Chelem: declared only with a hand that cannot lose a trick.
* Poignée: shown whenever held (the biggest one), keeping the Petit hidden
  when it can.
* Card play: the taker keeps its trumps (it draws them only when its
  masters draw every one still out), cashes its masters boldly and sets
  up its long suit (four and five players); a defender cashes
  its Kings, makes the taker trump a suit it is out of, leads low in a long
  suit, and gives its richest card to a trick a partner wins safely
  (charger), the Petit first. Anyone takes a trick with the lowest card
  that will hold, else plays the cheapest card, and uses the Excuse instead
  of a Knight or better, never keeping it for the last trick (unless a
  declared chelem is on: then it leads it there, where it wins); the taker
  gives it to a trick it loses instead of a trump late in the deal, or of
  any card in its last five (``EXCUSE_FOR_TRUMP``, ``EXCUSE_FOR_ANY``).

The odds of what others hold come from ``holdings.Holdings``.
"""

from __future__ import annotations

import random

from protocol.cards import (
    BOUTS_MASK,
    CARD_OF,
    CODES,
    EXCUSE,
    EXCUSE_BIT,
    FIRST_TRUMP,
    HALF_POINTS,
    KING_RANK,
    KINGS_MASK,
    MONDE,
    PETIT,
    PLAIN_SUITS,
    SUIT_CARDS_MASK,
    SUIT_MASKS,
    SUIT_OF,
    TRUMP,
    TRUMP_MASK,
)
from protocol.messages import Bid, Call, Chelem, Ecart, GameCommand, Play, Poignee
from protocol.views import TableView
from server.bots.evaluation import contract_for, hand_strength
from server.bots.holdings import Holdings
from server.bots.knowledge import ATTACK, Knowledge, mask_of_codes
from server.bots.tactics import (
    KNIGHT_HALF,
    above,
    beating,
    cheapest,
    highest,
    iter_cards,
    lowest,
    richest,
)
from server.game.contracts import BID_NAMES, BID_OF, GARDE, PASS, PRISE

LOWER_NEEDS_BOUT = {3: False, 4: True, 5: True}
"""Per table size, whether only a hand with a bout takes on the bars that
passes heard lower (``evaluation.PASS_STEP``, ``LAST_BAR``). At three
players the two hands that speak before hold more bouts between them, and
the lower bars alone keep all-pass deals under 15%."""
OVERCALL_BOUTS = {3: 0, 4: 2, 5: 0}
"""Per table size, the bouts with which a hand good enough for a prise
overcalls a prise with a garde (0: it does not). At four players a prise
with one bout was made 25-30% of the time, with two 55-72%: passing those
hands left the contract to the weaker one (``bench/bots.py --table``, 200
boards: 326 contracts made of 694 against 314, all-pass unchanged)."""
SAFE = 0.25
"""A card 'holds' a trick when the odds that someone after it beats it are below this."""
CHARGE_SAFE = 0.2
"""Give a partner's trick one's richest card only when it is this safe."""
CHARGE_CAMP = 0.8
"""At five players before the called card is played: give one's richest
card to a seat only when it is this likely to be in one's camp."""
CASH_RISK = 0.3
"""A defender leads a master honour only when the odds that an opponent
trumps it are below this."""
TAKER_CASH_RISK = 0.7
"""The taker cashes its masters more boldly: a King not cashed early is
trumped later anyway, once the defence has shown its voids (measured with
``bench/bots.py --table``: 0.3 made fewer contracts than 0.5, 0.7 or 1)."""
TAKER_LEADS_LONG = {3: False, 4: True, 5: True}
"""Per table size, whether the taker with nothing to cash leads low in its
longest suit (it sets the suit up for its Kings and the partner's) rather
than its shortest. Measured on the taker's made rate: better at four and
five players, slightly worse at three."""
EXCUSE_FOR_TRUMP = 10
"""From this many cards in hand down, the taker gives the Excuse to a trick
it loses rather than a trump that loses it (a trump kept is a trick the
defence cannot cash later)."""
EXCUSE_FOR_ANY = 5
"""From this many cards in hand down, the taker gives the Excuse to a trick
it loses rather than any card: the Excuse must be played before the last
trick, and led it hands the defence a trick to load (``bench/bots.py
--table``, four players: 334 contracts made of 694 against 326)."""


class NormalBot:
    """Rules of thumb, from the view alone (see the module docstring)."""

    def __init__(self, seed: int | str | None = None) -> None:
        # Kept for the interface: the rules are deterministic.
        self.rng = random.Random(seed)

    def decide(self, view: TableView) -> GameCommand:
        legal = view.legal
        k = Knowledge.from_view(view)
        if legal.bids:
            return Bid(bid=BID_NAMES[choose_bid(k, [BID_OF[b] for b in legal.bids])])
        if legal.calls:
            return Call(card=CODES[choose_call(k.hand, [CARD_OF[c] for c in legal.calls])])
        if legal.ecart:
            cards = choose_ecart(
                k.hand, mask_of_codes(legal.ecart), legal.ecart_trumps, legal.ecart_size
            )
            return Ecart(cards=[CODES[c] for c in cards])
        if legal.chelem:
            return Chelem(declare=should_declare_chelem(k))
        if legal.poignee_sizes:
            shown = choose_poignee(k.hand, legal.poignee_sizes)
            if shown:
                return Poignee(cards=[CODES[c] for c in shown])
        if legal.cards:
            return Play(card=CODES[choose_card(k, mask_of_codes(legal.cards))])
        raise ValueError("the view asks for no decision")


# -- bidding ----------------------------------------------------------------


def choose_bid(k: Knowledge, legal: list[int], bolder: float = 0.0) -> int:
    """The contract the hand's count supports, if it outbids everyone; else
    pass. Passes heard lower the bars (``evaluation.thresholds``), and so
    does ``bolder`` (``strong`` plays its contracts better)."""
    passes, last = passes_heard(k)
    if not k.hand & BOUTS_MASK and LOWER_NEEDS_BOUT[k.variant.players]:
        # Without a bout a weak hand seldom makes it, whoever passed (at
        # four players, of hands counting 24-40 with under 7 trumps, 5% made
        # a prise without a bout, 17% with one, 44% with two: docs/BOTS.md).
        passes, last = 0, False
    want = contract_for(hand_strength(k.hand, k.variant), k.variant, passes, last, bolder)
    overcall = OVERCALL_BOUTS[k.variant.players]
    # Someone took a prise (on bars lowered by passes, a weak hand): a hand
    # that would take a prise itself, with the bouts that make contracts,
    # takes it over with a garde.
    if (
        want == PRISE
        and PRISE not in legal
        and GARDE in legal
        and overcall
        and (k.hand & BOUTS_MASK).bit_count() >= overcall
    ):
        return GARDE
    return want if want in legal else PASS


def passes_heard(k: Knowledge) -> tuple[int, bool]:
    """The passes spoken before this seat, and whether all the others passed."""
    passes = sum(bid == PASS for _seat, bid in k.bids)
    return passes, passes == k.variant.players - 1


def choose_call(hand: int, calls: list[int]) -> int:
    """The card to call at five players: the highest rank it may call and
    lacks (a King, unless it holds all four), in the suit where it holds the
    Queen, else where it is longest: the partner's King then wins a trick of
    that suit, and the taker's small cards there find the partner. Only when
    it holds every card it may call does it call its own (and play alone)."""
    lacking = [c for c in calls if not hand >> c & 1]
    if not lacking:
        return calls[0]

    def key(card: int) -> tuple[int, bool, int]:
        suit = SUIT_MASKS[SUIT_OF[card]]
        queen = bool(hand & suit & 1 << (card - card % 14 + KING_RANK - 1))
        return card % 14, queen and card % 14 == KING_RANK, (hand & suit).bit_count()

    return max(lacking, key=key)


# -- écart ------------------------------------------------------------------


def choose_ecart(hand: int, candidates: int, trumps_needed: int, size: int) -> list[int]:
    """The ``size`` cards to discard from the taker's hand and the chien
    (see the module docstring)."""
    if trumps_needed:
        # Forced: every candidate suit card goes, and the lowest trumps.
        lowest_trumps = iter_cards(candidates & TRUMP_MASK)[:trumps_needed]
        return [*iter_cards(candidates & SUIT_CARDS_MASK), *lowest_trumps]
    chosen = 0
    room = size
    # Voids first: a suit without a King, shortest first, so the taker can
    # trump it; a long one is not worth the whole écart.
    kingless = sorted(
        (s for s in PLAIN_SUITS if not hand & KINGS_MASK & SUIT_MASKS[s] and hand & SUIT_MASKS[s]),
        key=lambda s: ((hand & SUIT_MASKS[s]).bit_count(), -_suit_half(hand, s)),
    )
    for s in kingless:
        cards = candidates & SUIT_MASKS[s]
        n = cards.bit_count()
        if n <= room and n <= 4:
            chosen |= cards
            room -= n
    # Then bank the honours the defence would otherwise catch: a Queen or a
    # Knight without its King (a Queen under her King is a second winner).
    honours = [c for c in iter_cards(candidates & ~chosen) if HALF_POINTS[c] >= 3]
    honours.sort(key=lambda c: (_guarded(hand, c), -HALF_POINTS[c], _length(hand, c)))
    for c in honours:
        if room and not _guarded(hand, c):
            chosen |= 1 << c
            room -= 1
    # Then shorten the shortest suits with their lowest cards.
    if room:
        rest = iter_cards(candidates & ~chosen)
        rest.sort(key=lambda c: (_length(hand & ~chosen, c), _guarded(hand, c), HALF_POINTS[c]))
        for c in rest[:room]:
            chosen |= 1 << c
    return iter_cards(chosen)


def _suit_half(hand: int, suit: int) -> int:
    return sum(HALF_POINTS[c] for c in iter_cards(hand & SUIT_MASKS[suit]))


def _length(hand: int, card: int) -> int:
    return (hand & SUIT_MASKS[SUIT_OF[card]]).bit_count()


def _guarded(hand: int, card: int) -> bool:
    """A Queen under her King (or a Knight under King and Queen) likely wins."""
    over = hand & SUIT_MASKS[card // 14] & above(card)
    return over.bit_count() == 13 - card % 14


# -- declarations -------------------------------------------------------------


def should_declare_chelem(k: Knowledge) -> bool:
    """Only a hand that cannot lose a trick: its trumps draw all the others
    from the top, and every suit card is a master from the King down."""
    hand = k.hand
    trumps = hand & TRUMP_MASK
    out = TRUMP_MASK & ~trumps & ~k.my_ecart
    top_run = 0
    for t in range(MONDE, FIRST_TRUMP - 1, -1):
        if not trumps >> t & 1:
            break
        top_run += 1
    if top_run < out.bit_count():
        return False
    for s in PLAIN_SUITS:
        cards = hand & SUIT_MASKS[s]
        n = cards.bit_count()
        expected = sum(1 << (s * 14 + KING_RANK - i) for i in range(n))
        if cards != expected:
            return False
    return True


def choose_poignee(hand: int, sizes: list[int]) -> list[int] | None:
    """The biggest poignée, keeping the Petit and the 21 hidden when the
    trumps allow; the Excuse only as the last card of a full show."""
    size = max(sizes)
    trumps = iter_cards(hand & TRUMP_MASK)
    if len(trumps) < size:
        return [*trumps, EXCUSE] if hand & EXCUSE_BIT and len(trumps) == size - 1 else None
    order = [t for t in trumps if t not in (PETIT, MONDE)]
    order += [t for t in (MONDE, PETIT) if t in trumps]
    return sorted(order[:size])


# -- card play -----------------------------------------------------------------


def trick_state(k: Knowledge) -> tuple[int, int, int]:
    """``(led suit, winning card, winning seat)`` of the trick being played
    (``-1`` each when nothing but the Excuse has been played)."""
    led, top, winner = -1, -1, -1
    for i, card in enumerate(k.trick):
        if card == EXCUSE:
            continue
        seat = k.variant.after(k.trick_leader, i)
        suit = SUIT_OF[card]
        if led < 0:
            led, top, winner = suit, card, seat
        elif (suit == TRUMP and (top < FIRST_TRUMP or card > top)) or (suit == led and card > top):
            top, winner = card, seat
    return led, top, winner


def choose_card(k: Knowledge, legal: int) -> int:
    """The card to play (see the module docstring)."""
    if not legal & (legal - 1):
        return lowest(legal)
    if legal & EXCUSE_BIT and _chelem_on(k):
        # Led to the last trick by a camp that won every trick, the Excuse
        # wins it; any earlier it would lose a trick.
        if k.hand.bit_count() == 1:
            return EXCUSE
        legal &= ~EXCUSE_BIT
    elif legal & EXCUSE_BIT and k.hand.bit_count() <= 2:
        return EXCUSE  # played to the last trick it would change camp
    odds = Holdings(k)
    led, win_card, win_seat = trick_state(k)
    if led < 0:
        return _lead(k, legal, odds)
    card = _follow(k, legal, odds, led, win_card, win_seat)
    if legal & EXCUSE_BIT and k.me == k.taker and _excuse_instead(k, card, win_card, win_seat, led):
        return EXCUSE
    return card


def _excuse_instead(k: Knowledge, card: int, win_card: int, win_seat: int, led: int) -> bool:
    """Whether the taker should play the Excuse rather than ``card``, a card
    that loses the trick to the defence anyway: a trump late in the deal,
    anything in the last few tricks (``EXCUSE_FOR_TRUMP``, ``EXCUSE_FOR_ANY``)."""
    if card == EXCUSE or (1 << card) & beating(win_card, led) or k.partners(win_seat):
        return False
    held = k.hand.bit_count()
    return held <= EXCUSE_FOR_ANY or (card >= FIRST_TRUMP and held <= EXCUSE_FOR_TRUMP)


def _chelem_on(k: Knowledge) -> bool:
    """This seat's camp has won every trick so far and means to win them all."""
    return k.chelem_declared and k.me == k.taker and k.taker_tricks == k.tricks_done


def _opponents(k: Knowledge) -> list[int]:
    """Seats not surely in this seat's camp (at five players, before the
    called card is played, that may include the hidden partner)."""
    return [s for s in k.variant.seats if not k.partners(s)]


def _after_me(k: Knowledge) -> list[int]:
    n = len(k.trick)
    return [k.variant.after(k.me, i) for i in range(1, k.variant.players - n)]


def _follow(
    k: Knowledge, legal: int, odds: Holdings, led: int, win_card: int, win_seat: int
) -> int:
    opponents_after = [s for s in _after_me(k) if not k.partners(s)]
    if win_seat != k.me and k.p_partners(win_seat) >= CHARGE_CAMP:
        risk = odds.p_any_beats(opponents_after, win_card, led)
        if risk < CHARGE_SAFE:
            card = richest(legal)
            if card != PETIT or risk < 0.05:
                return card
            return richest(legal & ~(1 << PETIT))
    winners = legal & beating(win_card, led)
    if winners:
        if winners >> PETIT & 1 and odds.p_any_beats(opponents_after, PETIT, led) < 0.02:
            return PETIT  # the Petit home safe
        best, best_risk = -1, 1.0
        for c in iter_cards(winners & ~(1 << PETIT) & ~EXCUSE_BIT):
            risk = odds.p_any_beats(opponents_after, c, led)
            if risk < SAFE:
                return c  # the lowest card that holds
            if risk < best_risk:
                best, best_risk = c, risk
        trick_half = sum(HALF_POINTS[c] for c in k.trick if c != EXCUSE)
        # A long shot is worth it only for a rich trick and a cheap card.
        if best >= 0 and best_risk < 0.5 and trick_half >= 7 and HALF_POINTS[best] == 1:
            return best
    return _discard(legal)


def _discard(legal: int) -> int:
    card = cheapest(legal & ~EXCUSE_BIT)
    if legal & EXCUSE_BIT and (card < 0 or HALF_POINTS[card] >= KNIGHT_HALF):
        return EXCUSE
    return card


def _lead(k: Knowledge, legal: int, odds: Holdings) -> int:
    hand = legal & ~EXCUSE_BIT
    if not hand:
        return EXCUSE
    opponents = _opponents(k)
    trumps = hand & TRUMP_MASK
    their_trumps = 0
    for o in opponents:
        their_trumps |= odds.could_hold(o, TRUMP_MASK)
    taking = k.me == k.taker
    if taking:
        card = _find_partner_lead(k, hand)
        if card >= 0:
            return card
        card = _taker_trump_lead(trumps, their_trumps)
        if card >= 0:
            return card
    # Cash a King (or any top card) the opponents will follow under.
    best, best_risk = -1, TAKER_CASH_RISK if taking else CASH_RISK
    for suit in PLAIN_SUITS:
        cards = hand & SUIT_MASKS[suit]
        if not cards:
            continue
        top = highest(cards)
        if HALF_POINTS[top] < KNIGHT_HALF:
            continue
        higher_out = SUIT_MASKS[suit] & above(top) & ~k.played & ~k.hand
        if higher_out:
            continue  # not a master yet
        risk = odds.p_any_beats(opponents, top, suit)
        if risk < best_risk:
            best, best_risk = top, risk
    if best >= 0:
        return best
    attack = k.camp(k.me) == ATTACK
    if not attack and k.taker >= 0:
        card = _defence_lead(k, hand, odds)
        if card >= 0:
            return card
    suits = hand & ~TRUMP_MASK
    if suits:
        # The attack shortens its shortest suit (to trump it later), or the
        # taker sets up its longest; keep honours.
        pick = min if attack and not (taking and TAKER_LEADS_LONG[k.variant.players]) else max
        suit = pick(
            (s for s in PLAIN_SUITS if suits & SUIT_MASKS[s]),
            key=lambda s: (suits & SUIT_MASKS[s]).bit_count(),
        )
        return cheapest(suits & SUIT_MASKS[suit])
    low = trumps & ~(1 << PETIT)
    if their_trumps and low and highest(low) > highest(their_trumps):
        return highest(low)
    return lowest(low) if low else PETIT


def _find_partner_lead(k: Knowledge, hand: int) -> int:
    """Five players, the partner still hidden: the taker leads a small card
    of the called suit, which its partner takes with the called card (and so
    shows itself)."""
    if k.called < 0 or k.partner() >= 0:
        return -1
    suit = SUIT_OF[k.called]
    if any(k.void[s] >> suit & 1 for s in k.variant.seats if s != k.me):
        return -1  # a defender would trump it
    # Its small cards: under the honours next to the called card.
    small = hand & SUIT_MASKS[suit] & ((1 << (k.called - 3)) - 1)
    return lowest(small) if small else -1


def _taker_trump_lead(trumps: int, their_trumps: int) -> int:
    """The taker draws trumps only when its masters draw every trump still
    out: leading the 21 for the defence's small trumps spends a winner, and
    a taker that kept its trumps made more contracts (``bench/bots.py
    --table``: at four players 50.9% against 49.5% when it drew with any
    master or while longer than the whole defence). The Petit stays back."""
    if not trumps or not their_trumps:
        return -1
    masters = trumps & ~(1 << PETIT) & ~((2 << highest(their_trumps)) - 1)
    if masters.bit_count() < their_trumps.bit_count():
        return -1
    return highest(masters)


def _defence_lead(k: Knowledge, hand: int, odds: Holdings) -> int:
    """Defence: make the taker trump a suit it is out of (its trumps are
    what makes the contract), with the cheapest card of that suit."""
    taker = k.taker
    for suit in PLAIN_SUITS:
        cards = hand & SUIT_MASKS[suit]
        if cards and odds.p_any(taker, SUIT_MASKS[suit]) == 0.0:
            card = cheapest(cards)
            if HALF_POINTS[card] == 1 and odds.p_any(taker, TRUMP_MASK) > 0:
                return card
    return -1

"""The fast playout policy of ``strong``: greedy card play on an engine ``Deal``.

Inside one sampled world every hand is known, so the policy may look at all
of them (this is the world the search imagines, not the real table), and
the camps too (at five players, who holds the called card). It is
a handful of mask operations per card so a search plays many deals per
decision:

* lead: the taker draws trumps with a master while it holds as many as any
  defender; then a top card no opponent can beat; a defender leads low to
  a partner's master in a suit the taker must follow; else the taker leads
  low in its shortest suit, the defence in its longest; the Petit waits for
  the last trick once no opponent holds a trump;
* on a trick the camp wins for sure (a partner wins and no opponent after
  can beat it, or the taker has played and a partner after beats it), give
  the richest card (charger), the Petit first;
* else take the trick with the lowest card no later opponent can beat;
* else play the cheapest card, the Excuse instead of a Knight or better;
* never keep the Excuse for the last trick (it would change camp).

Once the seat to play holds ``SOLVE_CARDS`` cards or fewer the rest is
played perfectly instead (``endgame.py``: the tree is small by then), which
is what ``score_out`` gives the search.
"""

from __future__ import annotations

from protocol.cards import (
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    PETIT,
    PLAIN_SUITS,
    SUIT_MASKS,
    TRUMP_MASK,
)
from server.bots.endgame import Endgame, TooLong
from server.bots.tactics import (
    KNIGHT_HALF,
    above,
    beating,
    can_beat,
    cheapest,
    highest,
    iter_cards,
    lowest,
    richest,
)
from server.game import Deal

SOLVE_CARDS = 3
"""Cards in the hand of the seat to play from which a playout solves the
rest exactly: at three cards a hand the solver tries a few hundred cards
at most, about what the greedy policy costs for those tricks."""
SOLVE_NODES = 3000
"""The most cards the solver tries in one playout; past it the playout goes
on greedily and tries again a card later (a rare wide ending)."""


def score_out(deal: Deal, seat: int, solve_cards: int = SOLVE_CARDS) -> int:
    """``seat``'s score once the deal is played out: greedily, then the last
    ``solve_cards`` cards of each hand exactly (both camps playing perfectly)."""
    while deal.phase == "play":
        turn = deal.turn
        assert turn is not None
        cards = deal.hands[turn].bit_count()
        if cards <= solve_cards:
            try:
                value = Endgame(deal, SOLVE_NODES).value()
            except TooLong:
                solve_cards = cards - 1
            else:
                return value * deal.variant.shares(deal.taker, deal.partner)[seat]
        deal.play(turn, greedy_card(deal))
    result = deal.result()
    assert result is not None
    return result.scores[seat]


def play_out(deal: Deal) -> None:
    """Play the deal to its end with the greedy policy."""
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        deal.play(seat, greedy_card(deal))


def greedy_card(deal: Deal) -> int:
    """The policy's card for the seat to play (see the module docstring)."""
    seat = deal.turn
    assert seat is not None
    legal = deal.legal_mask()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    hands = deal.hands
    if legal & EXCUSE_BIT and hands[seat].bit_count() <= 2:
        return EXCUSE
    led = deal.led
    if led < 0:
        return _lead(deal, seat, legal)
    camp_of = deal.camp_of
    mine = camp_of(seat)
    trick_len = len(deal.trick)
    players = deal.players
    after = [(seat + i) % players for i in range(1, players - trick_len)]
    opponents_after = [s for s in after if camp_of(s) != mine]
    win_card = deal.win_card
    win_seat = deal.win_seat
    if camp_of(win_seat) == mine:
        if not any(can_beat(hands[o], win_card, led) for o in opponents_after):
            return richest(legal)
    elif not opponents_after and any(can_beat(hands[p], win_card, led) for p in after):
        return richest(legal)  # the opponents have played and a partner after me beats it
    winners = legal & beating(win_card, led)
    if winners:
        if winners >> PETIT & 1 and not any(
            can_beat(hands[o], PETIT, led) for o in opponents_after
        ):
            return PETIT
        for c in iter_cards(winners & ~(1 << PETIT)):
            if not any(can_beat(hands[o], c, led) for o in opponents_after):
                return c
    card = cheapest(legal & ~EXCUSE_BIT)
    if legal & EXCUSE_BIT and HALF_POINTS[card] >= KNIGHT_HALF:
        return EXCUSE
    return card


def _lead(deal: Deal, seat: int, legal: int) -> int:
    hands = deal.hands
    taker = deal.taker
    camp_of = deal.camp_of
    mine = camp_of(seat)
    is_attack = mine == camp_of(taker)
    opponents = [s for s in range(deal.players) if camp_of(s) != mine]
    hand = legal & ~EXCUSE_BIT
    if not hand:
        return EXCUSE
    trumps = hand & TRUMP_MASK
    their_trumps = 0
    their_most = 0
    for o in opponents:
        theirs = hands[o] & TRUMP_MASK
        their_trumps |= theirs
        their_most = max(their_most, theirs.bit_count())
    if not their_trumps and hand & ~(1 << PETIT):
        hand &= ~(1 << PETIT)  # nobody can take it: keep it for the last trick
    if seat == taker and their_trumps and trumps.bit_count() >= their_most:
        top = highest(trumps)
        if top > highest(their_trumps):
            return top  # draw their trumps with a master
    best = -1
    best_half = -1
    for suit in PLAIN_SUITS:
        cards = hand & SUIT_MASKS[suit]
        if not cards:
            continue
        top = highest(cards)
        if HALF_POINTS[top] > best_half and not any(
            can_beat(hands[o], top, suit) for o in opponents
        ):
            best, best_half = top, HALF_POINTS[top]
    if best >= 0:
        return best
    suits = hand & ~TRUMP_MASK
    if not is_attack and suits:
        # Lead low to a partner's master in a suit the taker must follow.
        taker_hand = hands[taker]
        for suit in PLAIN_SUITS:
            cards = suits & SUIT_MASKS[suit]
            theirs = taker_hand & SUIT_MASKS[suit]
            if not cards or not theirs:
                continue
            for p in range(deal.players):
                if (
                    p != seat
                    and camp_of(p) == mine
                    and hands[p] & SUIT_MASKS[suit] & above(highest(theirs))
                ):
                    return lowest(cards)
    if suits:
        # The attack shortens its shortest suit (to trump it later), the
        # defence plays its longest.
        pick = min if is_attack else max
        suit = pick(
            (s for s in PLAIN_SUITS if suits & SUIT_MASKS[s]),
            key=lambda s: (suits & SUIT_MASKS[s]).bit_count(),
        )
        return lowest(suits & SUIT_MASKS[suit])
    low = trumps & ~(1 << PETIT)
    return lowest(low) if low else PETIT

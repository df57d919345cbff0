"""The engine's fast legal cards against a reference written straight from the rules.

The engine lists a seat's legal cards off its hand kept as two machine-word
masks (``held.Held``, ``following.legal_list``) and ``play`` accepts a card by
the span of the list it last gave. ``reference_legal`` below is the
rule as a player says it, over plain lists, with no mask, table or span: if
the fast path and it ever differ, at any table size, these tests fail.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import CODES, DECK_SIZE, EXCUSE, FIRST_TRUMP, MONDE
from server.game import Deal, RuleError
from server.game.following import legal_list
from server.game.held import Held
from server.game.variant import VARIANTS

seeds = st.integers(min_value=0, max_value=2**32)
sizes = st.sampled_from(sorted(VARIANTS))


def suit_of(card: int) -> str:
    """The card's suit as a player names it."""
    if card == EXCUSE:
        return "excuse"
    if card >= FIRST_TRUMP:
        return "trump"
    return "SHDC"[card // 14]


def reference_legal(hand: list[int], trick: list[int], called: int | None = None) -> list[int]:
    """The cards of ``hand`` that may be played to ``trick`` (the cards played
    to it so far), lowest first. ``called``: the called card at five players
    when ``trick`` is the deal's first, led by this hand."""
    played = [c for c in trick if c != EXCUSE]
    if not played:  # leading (the Excuse led does not set the suit)
        if called is not None and not trick:
            # The deal's first lead: not the called suit, but the called card.
            allowed = [c for c in hand if suit_of(c) != suit_of(called) or c == called]
            return sorted(allowed or hand)
        return sorted(hand)
    led = suit_of(played[0])
    excuse = [EXCUSE] if EXCUSE in hand else []
    follow = [c for c in hand if suit_of(c) == led]
    if follow and led != "trump":
        return sorted(follow + excuse)
    trumps = [c for c in hand if suit_of(c) == "trump"]
    if not trumps:
        return sorted(hand)  # neither the suit nor a trump: anything
    best = max((c for c in played if suit_of(c) == "trump"), default=None)
    if best is not None and any(t > best for t in trumps):
        trumps = [t for t in trumps if t > best]  # overtrump, even a partner
    return sorted(trumps + excuse)


@settings(max_examples=400, deadline=None)
@given(seeds, sizes)
def test_legal_list_is_the_reference_at_any_position(seed: int, players: int) -> None:
    """Any hand (1 card to a full hand) and any trick so far (0 to all but
    one card, from the cards the hand does not hold), at 3, 4 and 5 players:
    not only the positions a random play reaches."""
    rng = random.Random(seed)
    variant = VARIANTS[players]
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    # Trumps and the Excuse more often than a shuffle gives them: the
    # overtrump and Excuse rules are where a fast path goes wrong.
    if rng.random() < 0.5:
        deck.sort(key=lambda c: (c < FIRST_TRUMP) + rng.random())
    size = rng.randint(1, variant.hand_size)
    hand = deck[:size]
    trick = deck[size : size + rng.randint(0, players - 1)]
    held = Held(sum(1 << c for c in hand))
    assert [held.holds(c) for c in range(DECK_SIZE)] == [c in hand for c in range(DECK_SIZE)]
    played = [c for c in trick if c != EXCUSE]
    if not played:
        got = legal_list(held.low, held.high, -1, -1)
    else:
        led = played[0]
        win = led
        for c in played[1:]:
            if c > win and (suit_of(c) == suit_of(led) or suit_of(c) == "trump"):
                win = c
        led_suit = 4 if suit_of(led) == "trump" else led // 14
        got = legal_list(held.low, held.high, led_suit, win)
    assert got == reference_legal(hand, trick), (
        [CODES[c] for c in hand],
        [CODES[c] for c in trick],
    )


def _to_play(rng: random.Random, players: int) -> Deal:
    """A random deal at the start of its play (a random contract and call)."""
    variant = VARIANTS[players]
    deal = Deal.deal(rng, rng.randrange(players), variant)
    while deal.phase != "bidding":
        deal = Deal.deal(rng, rng.randrange(players), variant)
    while deal.phase == "bidding":
        deal.bid(deal.turn, rng.choice([3, 4]) if not deal.bids else 0)  # type: ignore[arg-type]
    if deal.phase == "call":
        deal.call(deal.taker, rng.choice(deal.legal_calls()))
    deal.declare_chelem(deal.taker, False)
    return deal


@settings(max_examples=120, deadline=None)
@given(seeds, sizes)
def test_deal_plays_exactly_the_reference_cards(seed: int, players: int) -> None:
    """At every card of a random deal: ``legal_cards`` is the reference's
    list; ``play`` (by the span of that list) accepts a legal card and refuses
    an illegal one of the hand and a card not held, changing nothing."""
    rng = random.Random(seed)
    deal = _to_play(rng, players)
    called = deal.called_card if deal.called_card >= 0 else None
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        hand = [c for c in range(DECK_SIZE) if deal.hands[seat] >> c & 1]
        first = not deal.tricks and not deal.trick
        expected = reference_legal(hand, deal.trick, called if first else None)
        assert deal.legal_cards() == expected
        illegal = sorted(set(hand) - set(expected))
        not_held = sorted(set(range(DECK_SIZE)) - set(hand))
        for card, code in [
            *[(c, "illegal_card") for c in rng.sample(illegal, min(2, len(illegal)))],
            (rng.choice(not_held), "card_not_in_hand"),
        ]:
            trial = deal.clone()
            assert trial.legal_cards() == expected
            with pytest.raises(RuleError) as refused:
                trial.play(seat, card)
            assert refused.value.code == code
            assert trial.hands == deal.hands and trial.trick == deal.trick
            trial.play(seat, rng.choice(expected))  # a refusal changed nothing
        deal.play(seat, rng.choice(expected))


def test_reference_overtrumps_and_keeps_the_excuse() -> None:
    """The reference itself, on the cases the rules name."""
    t = FIRST_TRUMP - 1  # T(n) is t + n
    hand = [0, 30, t + 5, t + 12, EXCUSE]  # a spade, a diamond, T5, T12
    assert reference_legal(hand, [14]) == [t + 5, t + 12, EXCUSE]  # no heart: trump
    assert reference_legal(hand, [14, t + 8]) == [t + 12, EXCUSE]  # overtrump
    assert reference_legal(hand, [14, t + 15]) == [t + 5, t + 12, EXCUSE]  # cannot: any trump
    assert reference_legal(hand, [EXCUSE, 3]) == [0, EXCUSE]  # the Excuse led sets no suit
    assert reference_legal(hand, [MONDE]) == [t + 5, t + 12, EXCUSE]
    assert reference_legal([1, 2, 30], [t + 3]) == [1, 2, 30]  # no trump: anything

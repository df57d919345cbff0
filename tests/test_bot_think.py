"""A bot's pause follows the decision (issue 36): a forced card goes out
quickly, the écart and the first lead take longest, always a multiple of
the table's ``bot_think`` between 0.4 and 2, from the deal alone."""

from __future__ import annotations

from server.game import Deal, Game
from server.game.contracts import PASS, PRISE
from server.game.variant import FOUR
from server.table.think import ECART, FOLLOW, FORCED, HARD, LEAD, think_factor, think_time


def taken(seed: str) -> Deal:
    """A four-player deal where the first to speak takes a prise, the others pass."""
    deal = Game(deals=1, seed=seed, variant=FOUR).deal
    first = deal.turn
    while deal.phase == "bidding":
        seat = deal.turn
        assert seat is not None
        deal.bid(seat, PRISE if seat == first else PASS)
    return deal


def test_the_ecart_is_the_longest_and_a_bid_the_plain_pause() -> None:
    deal = Game(deals=1, seed="think/0", variant=FOUR).deal
    assert deal.turn is not None and think_factor(deal, deal.turn) == FOLLOW
    deal = taken("think/0")
    assert deal.phase == "ecart" and deal.taker is not None
    assert think_factor(deal, deal.taker) == ECART
    assert think_time(0.6, deal, deal.taker) == 0.6 * ECART


def test_the_first_lead_is_hard_a_forced_card_quick_and_every_pause_in_bounds() -> None:
    deal = taken("think/1")
    taker = deal.taker
    assert taker is not None
    deal.ecart(taker, sorted(c for c in range(78) if deal.ecart_candidates() >> c & 1)[:6])
    if deal.phase == "chelem":
        assert think_factor(deal, taker) == FORCED
        deal.declare_chelem(taker, False)
    seen: set[float] = set()
    first = True
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        factor = think_factor(deal, seat)
        seen.add(factor)
        assert FORCED <= factor <= ECART
        legal = deal.legal_cards()
        if deal.poignee_sizes(seat):
            assert factor == HARD  # a poignée to count (playing at once declines it)
        elif len(legal) == 1:
            assert factor == FORCED
        elif not deal.trick:
            assert factor == (HARD if first else LEAD)
        else:
            assert FOLLOW <= factor < LEAD
        first = False
        deal.play(seat, legal[0])
    # The last trick is forced for everyone: the quick pause happened.
    assert FORCED in seen and LEAD in seen

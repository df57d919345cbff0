"""Bidding behaviours added for issue 36: normal's garde overcall, strong's own bids."""

from __future__ import annotations

import time

from protocol.messages import Bid
from protocol.views import TableView
from server.bots import make_bot
from server.bots.evaluation import hand_strength
from server.bots.strong import StrongBot
from server.game import Deal, Game
from server.game.contracts import PRISE
from server.game.variant import FIVE
from tests.support.bots import table_view, view_at
from tests.support.engine import build

WEAK_WITH_A_BOUT = "T1 T2 T3 T4 KS 2S 3S 4S 6H 7H 8H 9H 2D 3D 4D 5D 6C 7C"
"""The Petit, three small trumps and a King: under every bar but the last
seat's when all passed (``evaluation.LAST_BAR``)."""


def _view_of(deal: Deal, seat: int) -> TableView:
    return view_at(deal, seat, "bidding")


def test_normal_overcalls_a_prise_with_a_garde_when_it_holds_two_bouts() -> None:
    # The 21 and the Petit, a count just above the prise bar, under the garde's.
    hand = "T21 T1 T3 T6 T9 T12 T14 KS CS 3S 6H 7H 8H 2D 3D 4D 6C 7C"
    deal = build({2: hand}, dealer=0)
    deal.bid(1, PRISE)
    assert 41 <= hand_strength(deal.hands[2]) < 46
    assert make_bot("normal").decide(_view_of(deal, 2)) == Bid(bid="garde")
    # With one bout the same count lets the prise stand.
    one_bout = build({2: hand.replace("T1 ", "T2 ").replace("KS", "KH")}, dealer=0, seed=1)
    one_bout.bid(1, PRISE)
    assert make_bot("normal").decide(_view_of(one_bout, 2)) == Bid(bid="pass")


def test_strong_passes_a_hand_that_loses_when_played_out() -> None:
    # The last to speak after three passes: normal takes to play (LAST_BAR),
    # strong plays the deal out from its seat and finds the prise loses.
    deal = build({0: WEAK_WITH_A_BOUT}, dealer=0)
    for seat in (1, 2, 3):
        deal.bid(seat, 0)
    view = _view_of(deal, 0)
    assert make_bot("normal").decide(view) == Bid(bid="prise")
    strong = StrongBot(1, budget_s=1e9, max_worlds=8)
    assert strong.decide(view) == Bid(bid="pass")
    assert strong.last_worlds >= 8  # it searched: not the count's answer


def test_strong_takes_a_hand_that_wins_when_played_out() -> None:
    hand = "T21 T20 T16 T13 T11 T9 T7 T4 T2 T5 T1 3S 6H 7H 2D 3D 6C 7C"
    deal = build({1: hand}, dealer=0)
    strong = StrongBot(1, budget_s=1e9, max_worlds=8)
    command = strong.decide(_view_of(deal, 1))
    assert isinstance(command, Bid) and command.bid != "pass"
    assert strong.last_worlds >= 8


def test_strong_bids_within_its_budget() -> None:
    deal = build({0: WEAK_WITH_A_BOUT}, dealer=0)
    for seat in (1, 2, 3):
        deal.bid(seat, 0)
    strong = StrongBot(1, budget_s=0.05, clock=time.thread_time)
    t0 = time.thread_time()
    strong.decide(_view_of(deal, 0))
    assert time.thread_time() - t0 < 0.05 * 2
    assert strong.last_worlds > 0


def test_strong_plays_a_marginal_last_hand_it_would_pass_first() -> None:
    # Its played-out deals lose a little with this hand: the first to speak
    # passes, the last after three passes takes rather than see a new deal
    # (strong_bids.LAST_PRISE_BAR).
    hand = "2S 3S 5S 1H 7H JH 3D 9D 10D 4C 5C CC T3 T11 T15 T19 T21 EX"
    first = build({1: hand}, dealer=0)
    assert StrongBot(1, budget_s=1e9, max_worlds=8).decide(_view_of(first, 1)) == Bid(bid="pass")
    last = build({0: hand}, dealer=0)
    for seat in (1, 2, 3):
        last.bid(seat, 0)
    assert StrongBot(1, budget_s=1e9, max_worlds=8).decide(_view_of(last, 0)) == Bid(bid="prise")


def test_strong_bids_a_garde_where_its_prise_is_won() -> None:
    # Four players, first to speak: the count says prise; strong's played-out
    # prise wins on average, and a garde doubles that (strong_bids.GARDE_BAR
    # is 0 at four players: the playouts judge the taker harshly already).
    hand = "T21 T1 T3 T6 T9 T12 T14 KS CS 3S 6H 7H 8H 2D 3D 4D 6C 7C"
    deal = build({1: hand}, dealer=0)
    view = _view_of(deal, 1)
    assert make_bot("normal").decide(view) == Bid(bid="prise")
    strong = StrongBot(1, budget_s=1e9, max_worlds=8)
    assert strong.decide(view) == Bid(bid="garde")
    assert strong.last_worlds >= 8


def test_strong_bids_a_garde_where_its_prise_is_won_at_five_players() -> None:
    # Five players, first to speak: the count says prise; strong's played-out
    # prise wins (by less than the old bar of 80), and a garde doubles that
    # (strong_bids.GARDE_BAR is 0 at five players too).
    hand = "T21 T2 T5 T8 T11 T14 T16 T18 KS 3S 6H 7H 2D 3D 6C"
    deal = build({1: hand}, dealer=0, variant=FIVE)
    game = Game(deals=1, seed="bidding", variant=FIVE)
    game.deal = deal
    view = table_view(game, 1)
    assert make_bot("normal").decide(view) == Bid(bid="prise")
    strong = StrongBot(1, budget_s=1e9, max_worlds=8)
    assert strong.decide(view) == Bid(bid="garde")
    assert strong.last_worlds >= 8

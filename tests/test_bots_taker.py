"""``normal`` as the taker: constructed positions where a rule of its card
play decides (docs/BOTS.md, "Figures after the fourth session")."""

from __future__ import annotations

from protocol.messages import Play
from protocol.views import TableView
from server.bots import make_bot
from server.game import Deal
from tests.support.bots import view_at
from tests.support.engine import build, play_codes, to_play


def _view_of(deal: Deal, seat: int) -> TableView:
    return view_at(deal, seat, "taker")


def test_the_taker_gives_the_excuse_rather_than_a_trump_that_loses() -> None:
    # The taker (seat 0, garde sans) cashes its eight top spades, diamonds
    # and clubs, then loses a club to seat 1, who leads the King of hearts;
    # seat 2 trumps with the 21. The taker, void in hearts with nine cards
    # left, must trump and cannot overtrump: the Excuse goes (kept by the
    # taker, and it must go before the last trick anyway) and the trump stays
    # to win a trick later. The old play gave the 2 of trumps.
    deal = build(
        {
            0: "KS QS CS 10S KD QD CD KC QC 7C T2 T3 T4 T5 T6 T7 T8 EX",
            1: "1S 2S 3S 1D 2D 3D 1C 2C JC 6H 7H 8H 9H 10H JH CH QH KH",
            2: "4S 5S 6S 4D 5D 6D 3C 4C 8C T13 T14 T15 T16 T17 T18 T19 T20 T21",
            3: "7S 8S 9S 7D 8D 9D 5C 6C 9C 10C 1H 2H 3H 4H 5H JS 10D JD",
        },
        dealer=3,
    )
    to_play(deal, 0)
    play_codes(
        deal,
        "KS 1S 4S 7S QS 2S 5S 8S CS 3S 6S 9S KD 1D 4D 7D QD 2D 5D 8D CD 3D 6D 9D "
        "KC 1C 3C 5C QC 2C 4C 6C 7C JC 8C 9C KH T21 1H",
    )
    assert deal.turn == 0
    assert make_bot("normal").decide(_view_of(deal, 0)) == Play(card="EX")


def test_the_taker_gives_the_excuse_to_a_lost_trick_in_its_last_five_cards() -> None:
    # The taker (seat 0, garde sans) cashes its twelve Kings, Queens and
    # Knights, then leads the 10 of hearts, which the defence trumps; seat 3
    # leads a trump and the taker, out of trumps with five cards left, loses
    # the trick whatever it plays: the Excuse goes now, rather than a 10 now
    # and the Excuse led later (a trick the defence would load). The old
    # play gave a 10.
    deal = build(
        {
            0: "KS QS CS KH QH CH KD QD CD KC QC CC 10S 10H JH 10D 10C EX",
            1: "1S 2S 3S 1H 2H 3H 1D 2D 3D 1C 2C 3C JS T5 T6 T7 T8 T9",
            2: "4S 5S 6S 4H 5H 6H 4D 5D 6D 4C 5C 6C T10 T11 T12 T13 T14 T15",
            3: "7S 8S 9S 7H 8H 9H 7D 8D 9D 7C 8C 9C T16 T17 T18 T19 T20 T21",
        },
        dealer=3,
    )
    to_play(deal, 0)
    cashes = " ".join(
        f"{rank}{suit} {low}{suit} {low + 3}{suit} {low + 6}{suit}"
        for suit in "SHDC"
        for rank, low in (("K", 1), ("Q", 2), ("C", 3))
    )
    play_codes(deal, f"{cashes} 10H T5 T10 T16 T17")
    assert deal.turn == 0
    assert make_bot("normal").decide(_view_of(deal, 0)) == Play(card="EX")

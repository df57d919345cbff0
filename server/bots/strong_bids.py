"""``strong``'s bid: the contract worth most in deals played out from its seat.

``normal`` bids on a point count. ``strong`` asks its own search instead:
it deals the unseen cards many times consistently with the bids heard
(``strong.StrongBot.worlds``), and in each world takes a prise itself (the
later seats pass), makes ``normal``'s call and écart and plays the deal out
with the playout policy (``playout.py``). The mean score its seat gets is
what taking is worth to it; passing is worth about nothing (a new deal when
everybody passes, a defence otherwise). A garde plays like a prise with
every score doubled, so it is worth more whenever the prise is worth
something, but a bad estimate costs twice as much: ``strong`` bids a garde
when the mean is above ``GARDE_BAR`` (at four players as soon as the prise
looks won: the playouts judge the taker harshly). The gardes without the
chien are left to ``normal``'s count (they play differently and are rare).
"""

from __future__ import annotations

from typing import Final

from protocol.cards import BOUTS_MASK
from server.bots.knowledge import Knowledge
from server.bots.normal import choose_call, choose_ecart
from server.bots.playout import score_out
from server.game import Deal, RuleError
from server.game.contracts import GARDE, GARDE_SANS, PASS, PRISE

PRISE_BAR: Final[dict[int, float]] = {3: 0.0, 4: 0.0, 5: 0.0}
"""Per table size, the mean score (the taker's own, in its played-out deals)
above which ``strong`` takes a prise."""
LAST_PRISE_BAR: Final = -80.0
"""The prise bar of the last to speak when all the others passed: the
alternative is a new deal, and a person at a bot table wants to play, so
it takes unless its deals say the prise is lost by more than a prise
usually loses (as ``normal``'s ``evaluation.LAST_BAR``)."""
GARDE_BAR: Final[dict[int, float]] = {3: 100.0, 4: 0.0, 5: 0.0}
"""Per table size, the mean score of a prise above which it bids a garde
(holding a bout). A garde doubles what a prise wins, so it pays whenever
the prise does; the playouts judge the taker harshly (both camps see every
card, and the defence plays together), so at four players a garde as soon
as the prise looks won did best in duplicate against normal: +7.7 ± 4.0
points per seat per deal over the bar of 100, +4.9 ± 2.4 with a bar of 30
(200 boards of seed ``tune``, 8 worlds per card, fourth session). At five
players the same: with the old bar of 80 strong bid a prise where
``normal``'s count bids the garde that pays there, and its bids lost to
the count's (−4.2 ± 3.0 with both playing ``normal``'s cards, 298 boards
of seed ``tune``); a bar of 0 gained +5.0 ± 3.8 over 80 on the same boards
(+0.8 ± 3.7 against the count; docs/BOTS.md, sixth session). Three players bid by the count
(``strong.SIMULATED_BIDS``)."""
MIN_WORLDS: Final = 8
"""Fewer worlds than this and the estimate is noise: it bids as ``normal``."""


def taking_value(deal: Deal, me: int) -> float | None:
    """This seat's score when it takes in ``deal`` (at its turn to bid) with
    the lowest contract that keeps the chien (a garde over a prise: then
    half its score, the prise's scale) and the deal is played out; ``None``
    if the world breaks a rule."""
    contract = PRISE if PRISE in deal.legal_bids() else GARDE
    if deal.phase != "bidding":
        return None
    try:
        score = _play_taking(deal, me, contract)
    except RuleError:
        return None
    return None if score is None else score / (contract - PRISE + 1)


def _play_taking(deal: Deal, me: int, contract: int) -> int:
    deal.bid(me, contract)
    while deal.phase == "bidding":
        seat = deal.turn
        assert seat is not None
        deal.bid(seat, PASS)
    if deal.phase == "call":
        calls = deal.legal_calls()
        deal.call(me, choose_call(deal.hands[me], calls))
    if deal.phase == "ecart":
        cards = choose_ecart(
            deal.hands[me],
            deal.ecart_candidates(),
            deal.ecart_trumps_needed(),
            deal.variant.ecart_size,
        )
        deal.ecart(me, cards)
    if deal.phase == "chelem":
        deal.declare_chelem(me, False)
    return score_out(deal, me)


def searches_bid(legal: list[int], rules_bid: int) -> bool:
    """Whether the search has a say: a prise or a garde may be bid and
    ``normal``'s count (``rules_bid``) does not ask for more."""
    return rules_bid < GARDE_SANS and (PRISE in legal or GARDE in legal)


def bid_from_values(k: Knowledge, legal: list[int], rules_bid: int, scores: list[float]) -> int:
    """The bid that the values of taking in the worlds played (``taking_value``)
    ask for; ``rules_bid`` (``normal``'s) when they are too few to tell."""
    if len(scores) < MIN_WORLDS:
        return rules_bid
    mean = sum(scores) / len(scores)
    players = k.variant.players
    last = sum(bid == PASS for _seat, bid in k.bids) == players - 1
    prise_bar = LAST_PRISE_BAR if last else PRISE_BAR[players]
    if mean > GARDE_BAR[players] and GARDE in legal and k.hand & BOUTS_MASK:
        return GARDE
    if mean > prise_bar:
        if PRISE in legal:
            return PRISE
        if GARDE in legal and mean > GARDE_BAR[players] / 2:
            return GARDE  # an overcall of a prise
    return PASS

"""Building what one seat may see of a game: the game half of a ``TableView``.

This is the single place where hidden information is filtered. A seat gets
its own hand, its own écart when it is the taker, its legal actions, and the
public history; nothing else. A spectator (``seat=None``) gets no hand.
"""

from __future__ import annotations

import msgspec

from protocol.cards import CODES, EXCUSE_BIT, TRUMP_MASK, cards_of
from protocol.views import BidView, DealLine, DealView, Legal, PoigneeView, TrickView
from server.game import BID_NAMES, Deal, Game, ScoredDeal
from server.game.contracts import takes_chien
from server.game.scoring import POIGNEE_SIZES, AnnulledDeal


def _codes(cards: list[int]) -> list[str]:
    return [CODES[c] for c in cards]


def deal_view(game: Game) -> DealView:
    """The public state of the game's current deal."""
    deal = game.deal
    first = (deal.dealer + 1) % 4
    tricks = [
        TrickView(leader=leader, cards=_codes(t), winner=w)
        for t, leader, w in zip(deal.tricks, deal.leaders, deal.winners, strict=True)
    ]
    trick = None
    if deal.phase == "play":
        trick = TrickView(leader=deal.leader, cards=_codes(deal.trick))
    result = deal.result()
    return DealView(
        number=game.counted + 1 if not game.finished else game.counted,
        dealer=deal.dealer,
        phase=deal.phase,
        turn=deal.turn,
        bids=[BidView(seat=(first + i) % 4, bid=BID_NAMES[b]) for i, b in enumerate(deal.bids)],
        taker=deal.taker if deal.taker >= 0 else None,
        contract=BID_NAMES[deal.contract] if deal.taker >= 0 else None,
        # The chien is shown to all in a prise or garde, never otherwise.
        chien=_codes(deal.chien) if deal.taker >= 0 and takes_chien(deal.contract) else [],
        ecart_trumps=_codes(deal.ecart_trumps),
        chelem_declared=deal.chelem_declared,
        poignees=[
            PoigneeView(seat=s, size=POIGNEE_SIZES[len(cs)], cards=_codes(cs))
            for s, cs in deal.poignees
        ],
        tricks=tricks,
        trick=trick,
        tricks_won=[deal.taker_tricks, len(deal.tricks) - deal.taker_tricks],
        annulled=deal.annulled_reason,
        annulled_seat=deal.annulled_seat,
        result=msgspec.to_builtins(result) if result is not None else None,
    )


def legal_view(deal: Deal, seat: int | None) -> Legal:
    """What ``seat`` may do now (nothing unless it is that seat's turn)."""
    if seat is None or deal.turn != seat:
        return Legal()
    phase = deal.phase
    if phase == "bidding":
        return Legal(bids=[BID_NAMES[b] for b in deal.legal_bids()])
    if phase == "ecart":
        return Legal(
            ecart=_codes(cards_of(deal.ecart_candidates())),
            ecart_trumps=deal.ecart_trumps_needed(),
        )
    if phase == "chelem":
        return Legal(chelem=True)
    if phase == "play":
        sizes = deal.poignee_sizes(seat)
        return Legal(
            cards=_codes(deal.legal_cards()),
            poignee_sizes=sizes,
            poignee_cards=_codes(cards_of(deal.hands[seat] & (TRUMP_MASK | EXCUSE_BIT)))
            if sizes
            else [],
        )
    return Legal()


def hand_view(deal: Deal, seat: int | None) -> list[str]:
    return [] if seat is None else _codes(cards_of(deal.hands[seat]))


def ecart_view(deal: Deal, seat: int | None) -> list[str]:
    """The écart is the taker's secret: only the taker sees it."""
    return _codes(deal.ecart_cards) if seat is not None and seat == deal.taker else []


def sheet(game: Game) -> list[DealLine]:
    """The score sheet: one line per finished deal, annulled ones included."""
    lines = []
    number = 0
    for attempt, result in enumerate(game.results):
        dealer = (game.first_dealer + attempt) % 4
        if isinstance(result, ScoredDeal):
            number += 1
            lines.append(
                DealLine(
                    number=number,
                    dealer=dealer,
                    taker=result.taker,
                    contract=result.contract,
                    made=result.made,
                    scores=list(result.scores),
                )
            )
        else:
            assert isinstance(result, AnnulledDeal)
            lines.append(DealLine(number=number, dealer=dealer, annulled=result.annulled))
    return lines

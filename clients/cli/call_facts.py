"""The called card at a table of five: what the taker may call and why, and
what this seat knows of the taker's partner so far. Pure readings of a
``TableView``.

At five the taker calls a card (a King, or a Queen when holding all four
Kings, …); its holder is the taker's partner, a secret until the card is
played. The server says the partner (``DealView.partner``) only then, so
this module never guesses: it reads what the view says, what the table has
seen (the card in a shown chien, or played by the taker: the taker plays
alone) and, for the taker, their own hand and écart.
"""

from __future__ import annotations

from typing import Any

from clients.cli import wording
from clients.cli.cards_text import label
from clients.cli.i18n import _
from protocol.views import DealView, TableView

RANKS = ("K", "Q", "C", "J")
"""The ranks that may be called, a rank only when the taker holds every card above it."""


def called(view: TableView) -> str | None:
    """The called card, once called (public)."""
    return view.deal.called if view.deal is not None else None


def played_by(deal: DealView, card: str) -> int | None:
    """The seat that played ``card`` in this deal, if it has been played."""
    tricks = [*deal.tricks, deal.trick] if deal.trick is not None else deal.tricks
    for trick in tricks:
        if card in trick.cards:
            return (trick.leader + trick.cards.index(card)) % deal.players
    return None


def _result(deal: DealView) -> dict[str, Any] | None:
    r = deal.result
    return r if r is not None and "annulled" not in r else None


def partner(view: TableView) -> int | None:
    """The partner's seat once public (the called card played, or the deal over)."""
    deal = view.deal
    if deal is None or deal.called is None:
        return None
    if deal.partner is not None:
        return deal.partner
    r = _result(deal)
    seat = r.get("partner") if r is not None else None
    return seat if isinstance(seat, int) else None


def alone(view: TableView) -> bool:
    """The taker plays alone, as this seat knows: the result says so, the called
    card lies in the shown chien or was played by the taker, or (for the taker)
    it is in the taker's own hand or écart."""
    deal = view.deal
    if deal is None or deal.called is None or deal.taker is None:
        return False
    card = deal.called
    r = _result(deal)
    if r is not None and "partner" in r:
        return r["partner"] is None
    if card in deal.chien or played_by(deal, card) == deal.taker:
        return True
    return view.you == deal.taker and (card in view.hand or card in view.ecart)


def partner_line(view: TableView) -> str:
    """``Bob is the partner: K♥`` (``was`` once the deal is over), ``Alice
    plays alone (K♥ called)``, or "" while the partner is unknown to this seat."""
    deal = view.deal
    card = called(view)
    if deal is None or card is None or deal.taker is None:
        return ""
    seat = partner(view)
    if seat is not None:
        # Named as soon as the called card is played: while the deal goes
        # on, the partner *is* one; "was" once the deal is over.
        key = "was_partner" if deal.phase == "done" else "is_partner"
        return wording.about(key, _seat_name(view, seat), seat == view.you, card=label(card))
    if alone(view):
        taker = deal.taker
        return wording.about(
            "plays_alone", _seat_name(view, taker), taker == view.you, card=label(card)
        )
    return ""


def _seat_name(view: TableView, seat: int) -> str:
    # table_facts.seat_name, without importing table_facts (which imports this).
    if seat == view.you:
        return _("You")
    if 0 <= seat < len(view.seats) and view.seats[seat].name:
        return wording.player_name(str(view.seats[seat].name))
    return wording.seat_word(seat + 1)


def call_rank(calls: list[str]) -> str:
    """The rank the taker may call now: ``K``, ``Q``, ``C`` or ``J``."""
    ranks = {c[:-1] for c in calls}
    return next((r for r in RANKS if r in ranks), "K")


def call_reason(calls: list[str]) -> str:
    """Why these cards and no others, in words."""
    rank = call_rank(calls)
    if rank == "Q":
        return _("You hold all four Kings, so you call a Queen.")
    if rank == "C":
        return _("You hold all four Kings and Queens, so you call a Knight.")
    if rank == "J":
        return _("You hold all four Kings, Queens and Knights, so you call a Jack.")
    return _("You call a King, of any suit.")


def call_note(card: str, view: TableView) -> str:
    """What calling ``card`` means for this taker: its holder is your partner,
    unless you hold it (then you play alone)."""
    if card in view.hand:
        return _("in your hand: you would play alone")
    return _("its holder plays with you")

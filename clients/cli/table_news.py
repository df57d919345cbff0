"""What the table screen's message line says of the game: a public event
that just happened (a deal dealt, a trick taken, a contract, the called
card and the partner it reveals, a poignée, a chelem), why a card may not
be played, and what moment of the game older news belongs to. Pure
functions of views.
"""

from __future__ import annotations

from typing import Any

from clients.cli import call_facts, wording
from clients.cli import table_facts as facts
from clients.cli.cards_text import label
from clients.cli.i18n import _
from protocol.views import TableView


def moment(view: TableView) -> tuple[Any, ...]:
    """What the message bar's news belongs to: the game's status, the deal, its phase."""
    deal = view.deal
    if deal is None:
        return (view.status,)
    return (view.status, deal.number, deal.dealer, deal.phase)


def why_not(view: TableView) -> str:
    """Why a card outside ``legal.cards`` may not be played, in the rules' words."""
    deal = view.deal
    trick = deal.trick if deal else None
    if trick is None or not trick.cards:
        return _("that card cannot be played now")
    led = next((c for c in trick.cards if c != "EX"), None)
    if led is None:
        return _("that card cannot be played now")
    legal = view.legal.cards
    if led.startswith("T"):
        return _("you must play a trump (higher than the best one, if you can)")
    suit = led[-1]
    if any(c.endswith(suit) and not c.startswith("T") and c != "EX" for c in legal):
        return _("you must follow {suit}").format(suit=label("K" + suit)[-1])
    if any(c.startswith("T") for c in legal):
        return _("you must trump (higher than the best trump, if you can)")
    return _("that card cannot be played now")


def not_now(view: TableView, answered: bool) -> str:
    if answered:
        return _("wait: your move is on its way")
    if view.you is None:
        return _("you are watching")
    return _("it is not your turn")


def what_happened(old: TableView, new: TableView) -> str:
    """A one-line note for the message bar when something public happened."""
    a, b = old.deal, new.deal
    if b is None:
        return ""

    def who(seat: int | None) -> tuple[str, bool]:
        return facts.seat_name(new, seat), seat is not None and seat == new.you

    if a is None or a.number != b.number or a.dealer != b.dealer:
        if b.phase == "bidding":
            return wording.about("deals", *who(b.dealer), deal=b.number)
        return ""
    revealed = call_facts.partner_line(new)
    if revealed and revealed != call_facts.partner_line(old):
        return revealed  # at five: the called card was just played (or the chien shown)
    if len(b.tricks) > len(a.tricks) and b.tricks[-1].winner is not None:
        key = "takes_last_trick" if b.phase == "done" else "takes_trick"
        return wording.about(key, *who(b.tricks[-1].winner), trick=len(b.tricks))
    if a.taker is None and b.taker is not None:
        return wording.about("takes_contract", *who(b.taker), contract=wording.contract(b.contract))
    if a.called is None and b.called is not None:
        return wording.about("calls", *who(b.taker), card=label(b.called))
    if len(b.poignees) > len(a.poignees):
        p = b.poignees[-1]
        return wording.about(
            "shows_poignee", *who(p.seat), size=p.size, cards=" ".join(label(c) for c in p.cards)
        )
    if not a.chelem_declared and b.chelem_declared:
        return wording.about("declares_chelem", *who(b.taker))
    # An annulment is not news for this line: the prompt above says it,
    # with the key that goes on (it used to read twice).
    return ""

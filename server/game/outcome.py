"""What a deal's play established, read off the deal: the facts ``score``
needs (bouts won, petit au bout, chelem) and the deal record.

Pure functions over a ``Played`` deal (the engine's ``Deal`` is one); kept
apart from the state machine in ``deal.py``, which only plays the deal.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from protocol.cards import CODES, EXCUSE, PETIT
from server.game.contracts import BID_NAMES
from server.game.results import AnnulledDeal, Camp, ChelemOutcome, DealResult
from server.game.scoring import score
from server.game.variant import FOUR, Variant


class Played(Protocol):
    """The parts of a deal read here (``server.game.deal.Deal``)."""

    @property
    def variant(self) -> Variant: ...
    @property
    def phase(self) -> str: ...
    @property
    def dealer(self) -> int: ...
    @property
    def dealt(self) -> list[list[int]]: ...
    @property
    def chien(self) -> list[int]: ...
    @property
    def bids(self) -> list[int]: ...
    @property
    def taker(self) -> int: ...
    @property
    def contract(self) -> int: ...
    @property
    def called(self) -> str | None: ...
    @property
    def partner(self) -> int | None: ...
    @property
    def camps(self) -> list[int]: ...
    @property
    def camp_half(self) -> list[int]: ...
    @property
    def ecart_cards(self) -> list[int]: ...
    @property
    def chelem_declared(self) -> bool: ...
    @property
    def poignees(self) -> list[tuple[int, list[int]]]: ...
    @property
    def tricks(self) -> list[list[int]]: ...
    @property
    def trick(self) -> list[int]: ...
    @property
    def leaders(self) -> list[int]: ...
    @property
    def winners(self) -> list[int]: ...
    @property
    def taker_tricks(self) -> int: ...
    @property
    def bout_camps(self) -> dict[int, int]: ...
    @property
    def excuse_camp(self) -> int: ...
    @property
    def annulled_reason(self) -> Literal["all_pass", "petit_sec"] | None: ...
    @property
    def annulled_seat(self) -> int | None: ...


def taker_bouts(deal: Played) -> int:
    """The bouts the attack camp won (camp 0), the Excuse included."""
    n = sum(1 for camp in deal.bout_camps.values() if camp == 0)
    return n + (1 if deal.excuse_camp == 0 else 0)


def petit_au_bout(deal: Played) -> Camp | None:
    """The camp that won the Petit in the last trick (or in the one before
    when the last trick was won by an Excuse led under the chelem exception)."""
    if deal.phase != "done":
        return None
    n = deal.variant.tricks - 1
    last = deal.tricks[n]
    excuse_won = last[0] == EXCUSE and deal.winners[n] == deal.leaders[n]
    if excuse_won and PETIT not in last:
        n -= 1
    if PETIT not in deal.tricks[n]:
        return None
    return "taker" if deal.camps[deal.winners[n]] == 0 else "defense"


def chelem_outcome(deal: Played) -> ChelemOutcome | None:
    """Whether a chelem was made, failed or suffered (``None``: no chelem)."""
    if deal.taker_tricks == deal.variant.tricks:
        return "declared_made" if deal.chelem_declared else "undeclared_made"
    if deal.chelem_declared:
        return "declared_failed"
    if deal.taker_tricks == 0:
        return "defense"
    return None


def result(deal: Played) -> DealResult | None:
    """The deal's score once it is over (``None`` while it is played)."""
    if deal.phase == "annulled":
        assert deal.annulled_reason is not None
        return AnnulledDeal(deal.annulled_reason, deal.annulled_seat, deal.variant.no_scores())
    if deal.phase != "done":
        return None
    return score(
        taker=deal.taker,
        contract=deal.contract,
        taker_half_points=deal.camp_half[0],
        bouts=taker_bouts(deal),
        petit_au_bout=petit_au_bout(deal),
        poignees=[(seat, len(cards)) for seat, cards in deal.poignees],
        chelem=chelem_outcome(deal),
        variant=deal.variant,
        partner=deal.partner,
    )


def record(deal: Played) -> dict[str, Any]:
    """The deal record (docs/DEAL-RECORD.md) of the deal so far, as JSON-ready data."""
    rec: dict[str, Any] = {} if deal.variant is FOUR else {"players": deal.variant.players}
    rec |= {
        "dealer": deal.dealer,
        "hands": [[CODES[c] for c in hand] for hand in deal.dealt],
        "chien": [CODES[c] for c in deal.chien],
    }
    if deal.annulled_reason == "petit_sec":
        return rec
    rec["bids"] = [BID_NAMES[b] for b in deal.bids]
    if deal.phase in ("bidding", "annulled"):
        return rec
    if deal.called is not None:
        rec["call"] = deal.called
    if deal.ecart_cards:
        rec["ecart"] = [CODES[c] for c in deal.ecart_cards]
    rec["chelem"] = deal.chelem_declared
    rec["poignees"] = [
        {"seat": seat, "cards": [CODES[c] for c in cards]} for seat, cards in deal.poignees
    ]
    tricks = [[CODES[c] for c in t] for t in deal.tricks]
    if deal.trick:
        tricks.append([CODES[c] for c in deal.trick])
    rec["tricks"] = tricks
    return rec

"""Past deals from the table's ``history`` (deal records, DEAL-RECORD.md),
read for a person: a one-line summary per deal, and a deal replayed trick by
trick — who led, who played what, who took it.

The records hold cards and bids only; who led and took each trick follows
from the rules, so a deal is replayed through the rules engine itself
(``server.game``), exactly as ``atout-server replay`` checks a record. Pure:
records in, plain data out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.cli import wording
from protocol.cards import CARD_OF, CODES
from server.game.contracts import takes_chien
from server.game.deal import Deal
from server.game.errors import RuleError
from server.game.replay import replay_record
from server.game.variant import FOUR, VARIANTS


@dataclass
class PlayedTrick:
    leader: int
    cards: list[tuple[int, str]]
    """(seat, card) in the order played."""
    winner: int


@dataclass
class PastDeal:
    """One record, replayed."""

    index: int
    """Position in the table's history, from 1."""
    number: int
    """The counted deal it belongs to (an annulled attempt: the deal it was an attempt at)."""
    dealer: int
    result: dict[str, Any]
    bids: list[tuple[int, str]] = field(default_factory=list)
    chien: list[str] = field(default_factory=list)
    """The chien, when it was shown to all (a prise or a garde)."""
    tricks: list[PlayedTrick] = field(default_factory=list)
    problem: str = ""
    """Why the record could not be replayed, if it could not."""

    @property
    def annulled(self) -> str | None:
        value = self.result.get("annulled")
        return str(value) if value else None


def past_deals(records: list[dict[str, Any]]) -> list[PastDeal]:
    """Every record replayed, numbered as the score sheet numbers deals."""
    out = []
    counted = 0
    for index, record in enumerate(records, 1):
        deal = replay(record, index, counted + 1)
        if deal.annulled is None and not deal.problem:
            counted += 1
        out.append(deal)
    return out


def replay(record: dict[str, Any], index: int = 1, number: int = 1) -> PastDeal:
    result = replay_record(record)
    dealer = int(record.get("dealer", 0)) if isinstance(record, dict) else 0
    past = PastDeal(index=index, number=number, dealer=dealer, result=result)
    if "code" in result:  # the record breaks a rule: say so rather than guess
        past.problem = str(result.get("message", result["code"]))
        return past
    try:
        _replay_into(past, record)
    except (RuleError, KeyError, TypeError, ValueError) as e:
        past.problem = str(e)
    return past


def _cards(codes: list[str]) -> list[int]:
    return [CARD_OF[c] for c in codes]


def _annulled(deal: Deal) -> bool:
    # A function, not an inline test: the checker would keep the phase it
    # narrowed before ``bid`` changed it.
    return deal.phase == "annulled"


def _replay_into(past: PastDeal, record: dict[str, Any]) -> None:
    # Of three, four or five: a record without ``players`` is of four
    # (``replay_record`` has checked the size already).
    variant = VARIANTS[int(record.get("players", FOUR.players))]
    hands = [_cards(h) for h in record["hands"]]
    deal = Deal(past.dealer, hands, _cards(record["chien"]), variant)
    if _annulled(deal):  # a petit sec, as dealt
        return
    for bid in record.get("bids", []):
        seat = deal.turn
        assert seat is not None
        past.bids.append((seat, str(bid)))
        deal.bid(seat, bid)
    if _annulled(deal):  # everyone passed
        return
    if deal.phase == "call":  # five players: the taker's called card
        deal.call(deal.taker, CARD_OF[record["call"]])
    if takes_chien(deal.contract):
        past.chien = list(record["chien"])
        deal.ecart(deal.taker, _cards(record.get("ecart", [])))
    deal.declare_chelem(deal.taker, bool(record.get("chelem", False)))
    poignees = {p["seat"]: _cards(p["cards"]) for p in record.get("poignees", [])}
    for number, trick in enumerate(record.get("tricks", [])):
        played = []
        for code in trick:
            seat = deal.turn
            assert seat is not None
            if number == 0 and seat in poignees:
                deal.declare_poignee(seat, poignees.pop(seat))
            played.append((seat, CODES[CARD_OF[code]]))
            deal.play(seat, CARD_OF[code])
        past.tricks.append(PlayedTrick(deal.leaders[-1], played, deal.winners[-1]))


def summary(past: PastDeal, names: list[str]) -> str:
    """``Deal 2 · Garde by Alice, made by 12`` (or annulled, or unreadable)."""
    head = wording.history_head(past.index, past.number)
    if past.problem:
        return f"{head} · {wording.HISTORY_UNREADABLE}"
    if past.annulled:
        return f"{head} · {wording.sheet_annulled(past.annulled)}"
    r = past.result
    taker = names[int(r["taker"])]
    outcome = wording.history_outcome(r.get("contract"), taker, r.get("made"), r.get("margin", 0))
    return f"{head} · {outcome}"

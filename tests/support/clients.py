"""Scripted players: random legal moves through a real ``Session`` until a
condition holds (``finished``, for one), a chooser that always takes
(``Taker``), and the check that no message to a seat held a card that seat
could not see."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from clients.session import Session
from protocol.cards import CARD_OF, CODES
from protocol.messages import (
    Bid,
    Call,
    Chelem,
    Ecart,
    Play,
    Poignee,
    Ready,
    TablePatch,
    TableSnapshot,
)
from protocol.views import TableView


class Taker(random.Random):
    """Bids the highest bid it may (so a deal is played, not annulled)."""

    def random(self) -> float:
        return 0.99

    def choice(self, seq: Any) -> Any:
        return seq[-1]


def finished(view: TableView) -> bool:
    """The table's game is over (an ``until`` for ``autoplay``)."""
    return view.status == "finished"


def wants_decision(view: TableView) -> bool:
    legal = view.legal
    return bool(legal.bids or legal.calls or legal.cards or legal.ecart or legal.chelem)


def choose(view: TableView, rng: random.Random) -> Any:
    """A random legal command for the decision the view asks for."""
    legal = view.legal
    if legal.bids:
        return Bid(bid=legal.bids[0] if rng.random() < 0.5 else rng.choice(legal.bids))
    if legal.calls:
        return Call(card=rng.choice(legal.calls))
    if legal.ecart:
        suits = [c for c in legal.ecart if not c.startswith("T")]
        trumps = [c for c in legal.ecart if c.startswith("T")]
        if legal.ecart_trumps:
            return Ecart(cards=suits + rng.sample(trumps, legal.ecart_trumps))
        return Ecart(cards=rng.sample(suits, legal.ecart_size))
    if legal.chelem:
        return Chelem(declare=False)
    if legal.poignee_sizes and rng.random() < 0.5:
        size = legal.poignee_sizes[0]
        trumps = [c for c in legal.poignee_cards if c != "EX"]
        cards = trumps[:size] if len(trumps) >= size else [*trumps, "EX"]
        return Poignee(cards=cards)
    return Play(card=rng.choice(legal.cards))


async def autoplay(
    session: Session,
    rng: random.Random | Callable[[TableView], random.Random],
    until: Any,
    timeout: float = 60.0,
    on_view: Any = None,
    decide: Callable[[TableView, random.Random], Any] = choose,
) -> TableView:
    """Play random legal moves whenever the view asks, until ``until(view)``.

    ``rng`` may be a function of the view, for choices that must not depend
    on what happened before (the same moves in two runs of one seeded game).
    ``decide``: the command for a view (``choose``: a random legal one).
    """
    acted = -1

    def reading(v: TableView) -> bool:
        # A deal's result waits for its players: press Continue as a person would.
        return v.status == "between_deals" and v.you is not None and v.you not in v.ready

    def ready(v: TableView) -> bool:
        return until(v) or (session.table_seq > acted and (wants_decision(v) or reading(v)))

    async def loop() -> TableView:
        nonlocal acted
        while True:
            view = await session.wait_view(ready, timeout=timeout)
            # ``wait_for`` hands the view over a loop turn later: act on the
            # newest one (between deals the table moves on without us).
            view = session.table or view
            if until(view):
                return view
            if not (wants_decision(view) or reading(view)):
                continue
            if on_view is not None:
                await on_view(view)
            acted = session.table_seq
            if reading(view):
                await session.send(Ready())
                continue
            await session.send(decide(view, rng if isinstance(rng, random.Random) else rng(view)))

    return await asyncio.wait_for(loop(), timeout)


def contract_taker(record: dict[str, Any]) -> tuple[str | None, int | None]:
    bids = record.get("bids") or []
    order = ["pass", "prise", "garde", "garde_sans", "garde_contre"]
    if not bids or all(b == "pass" for b in bids):
        return None, None
    best = max(range(len(bids)), key=lambda i: order.index(bids[i]))
    return bids[best], (record["dealer"] + 1 + best) % len(record["hands"])


def deal_of(view: TableView, records: list[dict[str, Any]], seat: int | None) -> Any:
    """The record of the deal a view shows (by its hand, or its tricks)."""
    d = view.deal
    assert d is not None
    for rec in records:
        if rec["dealer"] != d.dealer:
            continue
        played = [c for t in d.tricks for c in t.cards] + (d.trick.cards if d.trick else [])
        rec_plays = [c for t in rec.get("tricks", []) for c in t]
        if rec_plays[: len(played)] != played:
            continue
        if seat is not None and view.hand:
            own = set(rec["hands"][seat]) | set(rec["chien"])
            if not set(view.hand) <= own:
                continue
        return rec
    return None


def check_no_leaks(s: Session, seat: int | None, records: list[dict[str, Any]]) -> None:
    """No message to ``seat`` held a card that seat could not see at that
    time (``records``: the table's deal records, from ``history``)."""
    assert s.received
    checked = 0
    for msg, view in s.received:
        if not isinstance(msg, TableSnapshot | TablePatch) or view is None or view.deal is None:
            continue
        rec = deal_of(view, records, seat)
        assert rec is not None, "a view matches no deal record"
        d = view.deal
        allowed: set[str] = set()
        if seat is not None:
            allowed |= set(rec["hands"][seat])
        contract, taker = contract_taker(rec)
        if contract in ("prise", "garde") and d.phase != "bidding":
            allowed |= set(rec["chien"])  # shown to all
        if seat is not None and seat == taker:
            allowed |= set(rec["chien"]) if contract in ("prise", "garde") else set()
            allowed |= set(rec.get("ecart", []))
        allowed |= set(d.ecart_trumps)
        allowed |= set(view.legal.calls)  # the cards one may call: no one's holding
        if d.called is not None:
            assert d.called == rec["call"]
            allowed.add(d.called)  # public once called (five players)
        assert set(d.ecart_trumps) <= {c for c in rec.get("ecart", []) if c.startswith("T")}
        played = [c for t in d.tricks for c in t.cards] + (d.trick.cards if d.trick else [])
        allowed |= set(played)  # genuinely played: _deal_of matched them to the record
        for p in d.poignees:
            shown = next(x for x in rec["poignees"] if x["seat"] == p.seat)
            assert sorted(p.cards) == sorted(shown["cards"])
            allowed |= set(p.cards)
        leaked = cards_in(msg) - allowed
        assert not leaked, f"seat {seat} was sent {sorted(leaked)}"
        if seat is None:
            assert not view.hand
        checked += 1
    assert checked > 10


def cards_in(obj: Any) -> set[str]:
    """Every card code anywhere in a decoded message."""
    out: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in CARD_OF:
                out.add(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            stack.extend(x)
        elif hasattr(x, "__struct_fields__"):
            stack.extend(getattr(x, f) for f in x.__struct_fields__)
    return out


__all__ = [
    "CODES",
    "autoplay",
    "cards_in",
    "check_no_leaks",
    "choose",
    "contract_taker",
    "deal_of",
    "wants_decision",
]

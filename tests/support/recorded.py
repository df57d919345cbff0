"""Replaying a deal record (docs/DEAL-RECORD.md) one step at a time.

``server.game.replay`` checks and scores a record in one go; a test that
looks at what the views say *during* the deal needs the deal after each
card instead. Records here are known good (the reference deals, or
``Deal.record()`` of a deal just played), so a broken one fails loudly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from protocol.cards import CARD_OF
from server.game import Deal
from server.game.contracts import BID_OF, takes_chien
from server.game.variant import VARIANTS

DATA = Path(__file__).resolve().parent.parent / "data"
REFERENCE_FILES = ("reference-deals.jsonl", "reference-deals-3-5.jsonl")


def reference_records() -> list[tuple[str, dict[str, Any]]]:
    """The hand-checked reference deals at 3, 4 and 5 players: (name, record)."""
    out = []
    for name in REFERENCE_FILES:
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                out.append((entry["name"], entry["record"]))
    return out


def _cards(codes: list[str]) -> list[int]:
    return [CARD_OF[c] for c in codes]


def replay_steps(record: dict[str, Any]) -> Iterator[Deal]:
    """The deal of ``record`` once the play begins, then after each card
    (the same object, moved on: look at it before taking the next)."""
    variant = VARIANTS[record.get("players", 4)]
    hands = [_cards(h) for h in record["hands"]]
    deal = Deal(record["dealer"], hands, _cards(record["chien"]), variant)
    for bid in record.get("bids", []):
        deal.bid(deal.turn, BID_OF[bid])  # type: ignore[arg-type]
    if deal.phase in ("annulled", "done"):
        yield deal
        return
    if deal.phase == "call":
        deal.call(deal.taker, CARD_OF[record["call"]])
    if takes_chien(deal.contract):
        deal.ecart(deal.taker, _cards(record["ecart"]))
    deal.declare_chelem(deal.taker, bool(record.get("chelem", False)))
    poignees = {p["seat"]: _cards(p["cards"]) for p in record.get("poignees", [])}
    yield deal
    for number, trick in enumerate(record["tricks"]):
        for code in trick:
            seat = deal.turn
            assert seat is not None
            if number == 0 and seat in poignees:
                deal.declare_poignee(seat, poignees.pop(seat))
            deal.play(seat, CARD_OF[code])
            yield deal

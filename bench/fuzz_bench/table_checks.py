"""What the tables campaign checks after every step, read from the table
itself: the 78 cards all there once, the cards a seat may not see, the state
a refused command must leave alone, the views a fresh snapshot would give."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from bench.fuzz_bench.wire import is_json
from protocol.cards import CODES, cards_of
from server.game.contracts import takes_chien
from server.table import TableCore
from server.table.actor import Table


def _mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def core_of(table: Table | TableCore) -> TableCore:
    """The table's pure core: its state, game, streams and views (server/table/core.py)."""
    return table.core if isinstance(table, Table) else table


def hidden_from(table: Table | TableCore, seat: int | None) -> set[str]:
    """The cards ``seat`` may not see now (``None``: a spectator)."""
    game = core_of(table).game
    if game is None:
        return set()
    deal = game.deal
    shown = _mask(c for _, cards in deal.poignees for c in cards)
    hidden = 0
    for s in range(4):
        if s != seat:
            hidden |= deal.hands[s]
    if deal.taker < 0 or not takes_chien(deal.contract):
        hidden |= _mask(deal.chien)
    else:
        shown |= _mask(deal.chien)  # turned face up for all after a prise or garde
    if seat != deal.taker:
        hidden |= _mask(deal.ecart_cards) & ~_mask(deal.ecart_trumps)
    # Cards already on the table are public whoever held them.
    shown |= _mask(c for t in deal.tricks for c in t) | _mask(deal.trick)
    return {CODES[c] for c in cards_of(hidden & ~shown)}


def cards_conserved(table: Table | TableCore) -> str | None:
    game = core_of(table).game
    if game is None:
        return None
    deal = game.deal
    cards = [c for m in deal.hands for c in range(78) if m >> c & 1]
    cards += [c for t in deal.tricks for c in t] + list(deal.trick) + list(deal.ecart_cards)
    if deal.taker < 0 or not takes_chien(deal.contract):
        cards += list(deal.chien)
    if len(cards) != 78 or len(set(cards)) != 78:
        return f"{len(cards)} cards, {len(set(cards))} different"
    return None


_CARD_STRING = re.compile(rb'"([0-9]{1,2}[SHDC]|[JCQK][SHDC]|T[0-9]{1,2}|EX)"')
_CARD_CODES = {c.encode() for c in CODES}


def cards_in(doc: Any) -> set[str]:
    """Every string anywhere in ``doc`` that is a card code (one regex over its
    JSON: a tree walk in Python was the campaign's slowest part)."""
    found = set(_CARD_STRING.findall(msgspec.json.encode(doc)))
    return {m.decode() for m in found & _CARD_CODES}


def state_of(table: Table | TableCore) -> dict[str, Any]:
    """The table's state and its game's, as documents (what a save would write)."""
    core = core_of(table)
    game = core.game.state() if core.game else None
    doc = msgspec.to_builtins(core.state)
    # The lobby's sweeper stamps this every 5 s while a human is connected:
    # a clock, not a change a command made.
    doc.pop("last_human_at")
    return {"table": doc, "game": msgspec.to_builtins(game)}


def changed_keys(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = []
    for part in before:
        b, a = before[part], after[part]
        if isinstance(b, dict) and isinstance(a, dict):
            out += [f"{part}.{k}" for k in sorted(set(b) | set(a)) if b.get(k) != a.get(k)]
        elif b != a:
            out.append(part)
    return out


def seqs_of(table: Table | TableCore) -> list[int]:
    fan = core_of(table).fan
    return [s.seq if s else -1 for s in fan.streams] + [fan.spectator_stream.seq]


def fresh_doc(table: Table | TableCore, seat: int | None, kind: str) -> Any:
    view = core_of(table).view_for(seat)
    if is_json(kind):
        return msgspec.json.decode(msgspec.json.encode(view))
    return msgspec.msgpack.decode(msgspec.msgpack.encode(view))

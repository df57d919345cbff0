"""A table view as the load clients read it: patched in place (version 1) or
positional read by field names (version 2, ``Named``), its progress (a tuple
every move makes strictly greater) and a random legal move."""

from __future__ import annotations

import random
from typing import Any

from bench.common.views import apply_patch, random_ecart
from protocol.cards import CODES
from protocol.diff import PatchError
from protocol.positional import TableReader

PHASE_RANK = {"bidding": 0, "ecart": 1, "chelem": 2, "play": 3, "done": 4, "annulled": 4}


def patch_view(doc: Any, patch: list[Any]) -> Any:
    """``apply_patch`` as ``clients.sync`` wants it: a patch that does not
    fit the document raises ``PatchError`` (the sync then asks for a snapshot)."""
    try:
        return apply_patch(doc, patch)
    except (LookupError, TypeError, ValueError, AttributeError) as e:
        raise PatchError(f"{type(e).__name__}: {e}") from None


FIELDS: dict[str, dict[str, tuple[int, Any]]] = {}
"""Protocol version 2: each struct's fields by name, (position, type), from the
server's schema (one server per worker: the same for every client)."""


def read_schema(schema: Any) -> TableReader:
    reader = TableReader(schema)
    FIELDS.clear()
    for struct, fields in reader.structs.items():
        FIELDS[struct] = {name: (i, kind) for i, (name, kind) in enumerate(fields)}
    return reader


def _named(value: Any, kind: Any) -> Any:
    if value is None or kind is None:
        return value
    if kind == "card":
        return CODES[value]
    if type(kind) is list:
        item = kind[0]
        if item is None:
            return value
        if item == "card":
            return [CODES[c] for c in value]
        return [Named(v, FIELDS[item]) for v in value]
    return Named(value, FIELDS[kind])


class Named:
    """A version 2 (positional) document read by field names, as the rest of
    the bench reads a version 1 one: cheap to make, the arrays are not copied."""

    __slots__ = ("_fields", "_value")

    def __init__(self, value: list[Any], fields: dict[str, tuple[int, Any]]) -> None:
        self._value = value
        self._fields = fields

    def __getitem__(self, name: str) -> Any:
        i, kind = self._fields[name]
        return _named(self._value[i], kind)

    def get(self, name: str, default: Any = None) -> Any:
        field = self._fields.get(name)
        return default if field is None else _named(self._value[field[0]], field[1])

    def count(self, name: str) -> int:
        """The length of a list field, its items not read (``view_progress``
        runs on every message of 16,000 clients)."""
        return len(self.raw(name))

    def raw(self, name: str) -> Any:
        """A field's value as sent (positional, card numbers)."""
        return self._value[self._fields[name][0]]


def _count(doc: Any, name: str) -> int:
    return doc.count(name) if type(doc) is Named else len(doc[name])


def _any(doc: Any, name: str) -> bool:
    """Whether a field is true, or a list field holds anything (not read)."""
    return bool(doc.raw(name) if type(doc) is Named else doc[name])


def view_progress(doc: Any) -> tuple[int, int, int, int]:
    """(score-sheet length, phase rank, bids, cards played) of a table view.

    Every move makes it strictly greater within a game: a bid adds a bid, the
    écart and the chelem decision move the phase on, a card adds a card to the
    trick or completes one (four cards each). A finished deal ranks after all
    its moves (phase 4) and before the next deal. The sheet counts the lines
    before the deal shown: a finished deal is shown already scored, its own
    line on the sheet, and the next deal starts with that same sheet. A new
    game starts again from zero: ``Client`` counts games.
    """
    deal = doc.get("deal")
    if deal is None:
        return (-1, 0, 0, 0)
    trick = deal.get("trick")
    played = 4 * _count(deal, "tricks") + (_count(trick, "cards") if trick else 0)
    rank = PHASE_RANK.get(deal["phase"], 5)
    before = _count(doc, "sheet") - (1 if rank == 4 else 0)
    return (before, rank, _count(deal, "bids"), played)


def can_act(doc: Any) -> bool:
    if doc is None or doc.get("status") != "playing":
        return False
    legal = doc["legal"]
    return (
        _any(legal, "bids") or _any(legal, "ecart") or _any(legal, "chelem") or _any(legal, "cards")
    )


def choose(doc: Any, rng: random.Random, rid: int) -> dict[str, Any]:
    """A random legal move (a poignée is optional: never shown)."""
    legal = doc["legal"]
    if legal["bids"]:
        return {"t": "bid", "rid": rid, "bid": rng.choice(legal["bids"])}
    if legal["ecart"]:
        return {"t": "ecart", "rid": rid, "cards": random_ecart(legal, rng)}
    if legal["chelem"]:
        return {"t": "chelem", "rid": rid, "declare": rng.random() < 0.02}
    return {"t": "play", "rid": rid, "card": rng.choice(legal["cards"])}

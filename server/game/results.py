"""A deal's result as the server sends and stores it: msgspec Structs.

Apart from ``scoring`` (which computes them, and is compiled:
server/base/compiled.py): a msgspec Struct with ``msgspec.field`` defaults
cannot be compiled with mypyc.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from server.game.contracts import ContractName
from server.game.variant import FOUR, PoigneeSize

Camp = Literal["taker", "defense"]
ChelemOutcome = Literal["declared_made", "undeclared_made", "declared_failed", "defense"]


class PoigneeScore(msgspec.Struct, frozen=True):
    seat: int
    size: PoigneeSize
    bonus: int


class ScoredDeal(msgspec.Struct, frozen=True):
    """A played deal's result, field for field what ``replay`` prints."""

    taker: int
    contract: ContractName
    multiplier: int
    bouts: int
    target: int
    points: float
    made: bool
    margin: int
    petit_au_bout: Camp | None
    poignees: list[PoigneeScore]
    chelem: ChelemOutcome | None
    base: int
    scores: list[int]
    partner: int | UnsetType | None = UNSET
    """Five players only: the called partner's seat, ``None`` when the taker
    played alone; absent (unset) at a table without a called partner."""


class AnnulledDeal(msgspec.Struct, frozen=True, omit_defaults=True):
    """A deal that did not count: every seat passed, or a petit sec (with its seat)."""

    annulled: Literal["all_pass", "petit_sec"]
    seat: int | None = None
    # The default is four players' zeros: a four-player result leaves them
    # out (as results always did), any other size writes its own.
    scores: list[int] = msgspec.field(default_factory=FOUR.no_scores)


DealResult = ScoredDeal | AnnulledDeal

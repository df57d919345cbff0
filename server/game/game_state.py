"""``GameState``: what rebuilds a ``Game``, as the table saves it.

In a module of its own, left as Python: msgspec decodes a Struct by its
fields' annotations, and a Struct defined in a compiled module
(server/base/compiled.py) has them bare (``list``, not
``list[tuple[str, int, Any]]``), so a saved log would come back as lists.
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.game.variant import FOUR


class GameState(msgspec.Struct):
    """Everything needed to rebuild a ``Game`` (persisted by the table)."""

    seed: str
    deals: int
    first_dealer: int
    attempt: int
    results: list[dict[str, Any]]
    log: list[tuple[str, int, Any]]
    players: int = FOUR.players
    """The variant's player count; a state saved before variants is of four."""

"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.engine import (
    any_ecart,
    bid_all,
    build,
    codes,
    names,
    play_codes,
    random_deal,
    random_finish,
    to_play,
)

__all__ = [
    "any_ecart",
    "bid_all",
    "build",
    "codes",
    "names",
    "play_codes",
    "random_deal",
    "random_finish",
    "to_play",
]

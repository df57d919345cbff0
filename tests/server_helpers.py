"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.clients import CODES, autoplay, cards_in, choose, wants_decision
from tests.support.servers import FAST, running, self_signed, tls_front, url

__all__ = [
    "CODES",
    "FAST",
    "autoplay",
    "cards_in",
    "choose",
    "running",
    "self_signed",
    "tls_front",
    "url",
    "wants_decision",
]

"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.bots import MAX_DECISIONS, Observer, play_deal, table_view

__all__ = ["MAX_DECISIONS", "Observer", "play_deal", "table_view"]

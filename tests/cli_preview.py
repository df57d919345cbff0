"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.cli_preview import (
    MOMENTS,
    NAMES,
    PreviewApp,
    lobby_view,
    main,
    scripted_game,
    scripted_view,
)

__all__ = ["MOMENTS", "NAMES", "PreviewApp", "lobby_view", "main", "scripted_game", "scripted_view"]

"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.cli_cuts import (
    NARROW,
    NEAR,
    cropped,
    cuts,
    drawn,
    intended,
    intended_ellipses,
    narrow_cells,
    plain,
    report,
    table_text,
)

__all__ = [
    "NARROW",
    "NEAR",
    "cropped",
    "cuts",
    "drawn",
    "intended",
    "intended_ellipses",
    "narrow_cells",
    "plain",
    "report",
    "table_text",
]

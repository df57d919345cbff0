"""Showing a new text in a panel whose size is the screen's (fixed heights
and widths in the CSS), never its text's: at each move and each countdown
tick the table redraws every panel, most of them unchanged.

``put`` repaints a panel only when its text changed (rich ``Text`` compares
only the characters and their spans, so the text's own settings are compared
too), and without laying out the whole screen again: that is Textual's work
of a frame for nothing, at every move, on a phone over SSH as much as here.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def _drawn_as(text: Text) -> tuple[object, ...]:
    return (
        text.plain,
        text.spans,
        text.style,
        text.justify,
        text.overflow,
        text.no_wrap,
        text.end,
        text.tab_size,
    )


def put(panel: Static, text: Text) -> None:
    """Show ``text`` in ``panel`` (a Static sized by the CSS alone)."""
    shown = panel.content
    if isinstance(shown, Text) and _drawn_as(shown) == _drawn_as(text):
        return
    panel.update(text, layout=False)

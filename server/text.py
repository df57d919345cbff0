"""Text people type (names, chat lines, table names), made safe to show.

Pure: the table core (server/table/core.py) cleans chat lines with it, the
hello (server/net.py) and the lobby names and table names with it.
"""

from __future__ import annotations

import unicodedata

_DROPPED = {"Cc", "Cf", "Co", "Cs", "Cn"}
"""Control, format (bidi overrides, zero-width), private-use, surrogate and
unassigned characters: nothing a person needs in a name or a chat line."""


def clean_text(text: str) -> str:
    """``text`` without invisible or control characters, whitespace collapsed."""
    if text.isascii() and text.isprintable():
        return " ".join(text.split())  # the common case, fast
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in _DROPPED
    )
    return " ".join(kept.split())


__all__ = ["clean_text"]

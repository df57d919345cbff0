"""Text people type (names, chat lines, table names), made safe to show.

Pure: the table core (server/table/core.py) cleans chat lines with it, the
hello (server/front/door.py) and the lobby names and table names with it; guests'
names (server/front/door.py) and players' names (``server.base.players.clean_name``)
both go through ``bot_like``.
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


BOT_NAME_REFUSED = 'names starting with "Bot " are for the bots that play empty seats'


def bot_like(name: str) -> bool:
    """Whether ``name`` would pass for a bot's ("Bot Ada"): seats played by
    bots are named so, and a person named so could pose as one. Look-alikes
    count (NFKC and case folded, as ``server.base.players.name_key``): "BOT x",
    "ｂｏｔ x"."""
    return unicodedata.normalize("NFKC", name).casefold().startswith("bot ")


__all__ = ["BOT_NAME_REFUSED", "bot_like", "clean_text"]

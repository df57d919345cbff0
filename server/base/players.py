"""Players who last: a player key, its digest, a player id and a display name.

A client makes its player key once per server (128 random bits, written as
32 hex digits) and sends it in its ``hello``. The server keeps only the key's
digest, so a leaked store gives nobody's key away, and maps it to a player id
and a display name (``server/store/players.py``). A connection without a key
is a *guest*: it plays as always, but enters no leaderboard.

Display names are checked here, once, for every path that sets one (the
first hello with a key, a rename): what a name may contain, and the
*name key* two names are the same under (so "Alice", "alice" and "Ａｌｉｃｅ"
cannot belong to three different players).

Pure functions and values: no I/O.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata

import msgspec

from protocol.limits import NAME_MAX
from server.base.text import BOT_NAME_REFUSED, bot_like

KEY_HEX = 32
"""A player key is 128 bits written as 32 lowercase hex digits."""

NAME_MIN = 1

_KEY = re.compile(r"[0-9a-f]{32}")

# Categories a name may not contain: control (Cc), format (Cf: zero-width
# joiners, bidi overrides that reorder what others see), separators other
# than the plain space (Zl, Zp, and Zs below), unassigned and private use.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """A registered player: a stable id and the current display name."""

    id: str
    name: str


class BadName(ValueError):
    """A display name that may not be used; ``str()`` is said to the player."""


def new_key() -> str:
    """A fresh player key (what a client makes on first use)."""
    return secrets.token_hex(KEY_HEX // 2)


def new_player_id() -> str:
    return "p" + secrets.token_hex(6)


def valid_key(key: str) -> bool:
    """Whether ``key`` has the shape of a player key (not whether it is known)."""
    return bool(_KEY.fullmatch(key))


def key_digest(key: str) -> str:
    """What the server stores instead of the key.

    A plain SHA-256 is enough: a key is 128 random bits, so there is nothing
    to guess that a slow hash would protect.
    """
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def clean_name(raw: str) -> str:
    """The display name ``raw`` asks for, or ``BadName`` saying why not.

    Outer spaces are dropped; inside, only single plain spaces are allowed.
    Any other whitespace (no-break, em, ideographic spaces...) is refused
    rather than silently turned into a space: it would let "Bob" and
    "Bob" with a no-break space look alike in a leaderboard.
    """
    name = unicodedata.normalize("NFC", raw).strip(" ")
    if len(name) < NAME_MIN:
        raise BadName("choose a display name")
    if len(name) > NAME_MAX:
        raise BadName(f"a display name is at most {NAME_MAX} characters")
    for ch in name:
        category = unicodedata.category(ch)
        if category in _REFUSED_CATEGORIES:
            raise BadName(f"a display name may not contain {_describe(ch)}")
        if category == "Zs" and ch != " ":
            raise BadName(f"a display name may only use plain spaces, not {_describe(ch)}")
    if "  " in name:
        raise BadName("a display name may not contain two spaces in a row")
    if bot_like(name):  # the rule guests meet at their hello (server/front/door.py)
        raise BadName(BOT_NAME_REFUSED)
    return name


def name_key(name: str) -> str:
    """Two names with the same key are the same name (one owner for both).

    NFKC folds compatibility forms (full-width letters, ligatures) and
    ``casefold`` folds case, so look-alikes of these kinds collide.
    """
    return unicodedata.normalize("NFKC", name).casefold()


def _describe(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name.lower()})" if name else "")

"""Words for a person about player keys: ``atout key``'s messages, and what
to do when a server refuses our key.

A key belongs to a server and a player (``keys.py``), so every sentence
names the player and repeats the option that chooses them (``--name Bob``
or ``--profile bob``): a command it suggests is one that works as typed.
English msgids marked for the catalogs (docs/TRANSLATING.md), translated
when used, as in ``wording.py``.
"""

from __future__ import annotations

import shlex
from typing import Any

from clients.cli.i18n import N_, _, deep

_MARKED: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    # PEP 562: ``key_words.NAME`` for a marked constant is its translation now.
    if name in _MARKED:
        return deep(_MARKED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def who(player: str, name: str) -> str:
    """The option that chooses this player on a command line: ``--name Bob``
    when the player is the name, else ``--profile bob``."""
    if player.strip().casefold() == name.strip().casefold():
        return f"--name {shlex.quote(name)}"
    return f"--profile {shlex.quote(player)}"


_MARKED.update(
    EXPORT_WARNING=N_(
        "This is the player key of {player} for {url}. It is a secret: whoever has it "
        "plays as {player} there. Paste it only into `atout key import` on a machine "
        "of your own."
    ),
    NO_KEY=N_(
        "atout: no player key for {player} on {url} yet. Connect once (`atout connect "
        "{url} {who}` or `atout daily {url} {who}`) to make one, or import one with "
        "`atout key import {url} KEY {who}`."
    ),
    OLD_KEY_UNCLAIMED=N_(
        "This computer also keeps a key for {url} from before keys were kept per player: "
        "it goes to the first player who connects there under the name the server knows "
        "it by."
    ),
    OLD_KEY_OWNED=N_(
        "This computer also keeps a key for {url} from before keys were kept per player: "
        "it is {owner}'s, and becomes theirs when they connect as {owner}."
    ),
    IMPORTED=N_(
        "Player key of {player} for {url} saved in {path}. Connect with {who} to play "
        "as its player."
    ),
    SAME_KEY=N_("That key is already {player}'s for {url}; nothing changed."),
    REPLACE_REFUSED=N_(
        "atout: {player} already has another player key for {url} here. Export it first "
        "if it may be needed again (`atout key export {url} {who}`), then import with "
        "--replace."
    ),
    FORGOTTEN=N_(
        "Player key of {player} for {url} forgotten; their next connection makes a new player."
    ),
    NOTHING_TO_FORGET=N_("No player key for {player} on {url}; nothing to forget."),
    KEY_FILE_PROBLEM=N_("atout: cannot use the key file: {error}"),
    IMPORT_ARGS=N_("atout key import: give [URL] KEY"),
)


def key_hint(code: str, url: str, who: str) -> str:
    """What to do next when a server refuses our key (appended to its message);
    ``who`` is the option that chooses the player (``who()``)."""
    match code:
        case "name_taken":
            return " " + _("Choose another name with --name.")
        case "unknown_key":
            return " " + _(
                "Import your key for it (`atout key import {url} KEY {who}`), or forget this"
                " one to become a new player (`atout key forget {url} {who}`)."
            ).format(url=url, who=who)
        case "bad_key":
            return " " + _(
                "The key file is damaged; `atout key forget {url} {who}` makes a new player."
            ).format(url=url, who=who)
    return ""

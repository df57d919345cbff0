"""``atout daily`` and ``atout key``: their command lines, and the key commands.

    atout daily [URL] [--name NAME] [--profile P] [--cafile FILE]
        today's daily game on that server (starts it, or resumes it)
    atout key export [URL] [--name NAME | --profile P]
        print this computer's player key of that player for URL
    atout key import [URL] KEY [--name NAME | --profile P]
        keep KEY as that player's key for URL
    atout key forget [URL] [--name NAME | --profile P]
        forget it (the player's next connection registers anew)

A key belongs to a server and a player, chosen as for seat tokens: the
``--profile`` when given, else the ``--name`` (``keys.py``). The key commands
need no terminal UI: they read and write ``keys.json`` and print. The key
goes to stdout alone, the warning to stderr, so ``atout key export URL >
key.txt`` copies only the key.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from clients.cli import key_words as words
from clients.cli.i18n import _
from clients.cli.keys import BadKey, FileKeys, SavedKey, claim, parse_key, same_name
from clients.cli.tokens import seat_key


def add_parsers(
    sub: Any,
    default_url: str,
    default_name: str,
    player_options: Callable[[argparse.ArgumentParser], None],
) -> argparse.ArgumentParser:
    """The ``daily`` and ``key`` subcommands, on ``atout``'s subparsers (made
    after the language is chosen, so their help speaks it); ``daily``'s parser.
    ``player_options`` adds ``--profile`` (and what goes with it) to a parser."""
    url_help = _("default {url}").format(url=default_url)
    daily = sub.add_parser("daily", help=_("play today's daily game (same deals for everyone)"))
    daily.add_argument("url", nargs="?", default=default_url, help=url_help)
    daily.add_argument(
        "--name",
        default=default_name,
        help=_("your name the first time (then the server keeps it)"),
    )
    player_options(daily)
    key = sub.add_parser("key", help=_("export or import your player key (to play from elsewhere)"))
    actions = key.add_subparsers(dest="key_action", metavar="{export,import,forget}")
    actions.required = True
    export = actions.add_parser("export", help=_("print your player key for a server (a secret)"))
    export.add_argument("url", nargs="?", default=default_url, help=url_help)
    imp = actions.add_parser(
        "import",
        help=_("keep a player key exported on another machine"),
        usage="atout key import [-h] [--replace] [URL] KEY [--name NAME | --profile P]",
    )
    imp.add_argument(
        "args",
        nargs="+",
        metavar="URL KEY",
        help=_("URL default {url}").format(url=default_url),
    )
    imp.add_argument(
        "--replace", action="store_true", help=_("replace the key this computer has for URL")
    )
    forget = actions.add_parser("forget", help=_("forget your player key for a server"))
    forget.add_argument("url", nargs="?", default=default_url, help=url_help)
    for action in (export, imp, forget):
        action.add_argument(
            "--name",
            default=default_name,
            help=_("whose key: the name you connect with (default {name})").format(
                name=default_name
            ),
        )
        player_options(action)
    return daily  # type: ignore[no-any-return]


class Player:
    """Whose key a command is about: the ``--profile``, else the ``--name``."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.name: str = " ".join(args.name.split())
        profile = getattr(args, "profile", None)
        self.id: str = profile.strip() if profile and profile.strip() else self.name
        self.who = words.who(self.id, self.name)

    def owns(self, owner: str) -> bool:
        return same_name(owner, self.id) or same_name(owner, self.name)


def run(
    args: argparse.Namespace,
    default_url: str,
    normalize_url: Callable[[str], str],
    keys: FileKeys | None = None,
) -> int:
    """Carry out ``atout key ACTION``; the exit status."""
    keys = keys or FileKeys()
    player = Player(args)
    try:
        match args.key_action:
            case "export":
                return _export(keys, normalize_url(args.url), player)
            case "import":
                if len(args.args) > 2:
                    print(words.IMPORT_ARGS, file=sys.stderr)
                    return 2
                url, text = (default_url, args.args[0]) if len(args.args) == 1 else args.args
                return _import(keys, normalize_url(url), player, text, args.replace)
            case "forget":
                return _forget(keys, normalize_url(args.url), player)
    except OSError as e:
        print(words.KEY_FILE_PROBLEM.format(error=e), file=sys.stderr)
        return 1
    return 2


def _own(keys: FileKeys, url: str, player: Player) -> SavedKey | None:
    """The player's key for ``url``: their own, or the old per-server key once
    the server has named them its owner (then it becomes theirs, as on connecting)."""
    where = seat_key(url, player.id)
    saved = keys.get(where)
    if saved is None:
        old = keys.get(url)
        if old is not None and old.owner and player.owns(old.owner):
            saved = claim(keys, url, where, old)
    return saved


def _old_key_note(keys: FileKeys, url: str) -> None:
    """Say so when an old per-server key waits for its owner (keys.py)."""
    old = keys.get(url)
    if old is not None:
        note = words.OLD_KEY_OWNED if old.owner else words.OLD_KEY_UNCLAIMED
        print(note.format(url=url, owner=old.owner), file=sys.stderr)


def _export(keys: FileKeys, url: str, player: Player) -> int:
    saved = _own(keys, url, player)
    if saved is None:
        print(words.NO_KEY.format(url=url, player=player.id, who=player.who), file=sys.stderr)
        _old_key_note(keys, url)
        return 1
    print(words.EXPORT_WARNING.format(url=url, player=player.id), file=sys.stderr)
    print(saved.key)
    return 0


def _import(keys: FileKeys, url: str, player: Player, text: str, replace: bool) -> int:
    try:
        key = parse_key(text)
    except BadKey as e:
        print(f"atout key import: {e}", file=sys.stderr)
        return 2
    named = {"url": url, "player": player.id, "who": player.who}
    old = _own(keys, url, player)
    if old is not None and old.key == key:
        print(words.SAME_KEY.format(**named), file=sys.stderr)
        return 0
    if old is not None and old.registered and not replace:
        print(words.REPLACE_REFUSED.format(**named), file=sys.stderr)
        return 1
    # Registered: the server that made this player knows it; a mistyped key
    # must be refused (unknown_key), not quietly registered as someone new.
    keys.save(seat_key(url, player.id), SavedKey(key, registered=True))
    legacy = keys.get(url)
    if legacy is not None and legacy.key == key:
        keys.forget(url)  # the old per-server key, now this player's
    print(words.IMPORTED.format(path=keys.path, **named), file=sys.stderr)
    return 0


def _forget(keys: FileKeys, url: str, player: Player) -> int:
    named = {"url": url, "player": player.id}
    if _own(keys, url, player) is None:
        print(words.NOTHING_TO_FORGET.format(**named), file=sys.stderr)
        return 0
    keys.forget(seat_key(url, player.id))
    print(words.FORGOTTEN.format(**named), file=sys.stderr)
    return 0

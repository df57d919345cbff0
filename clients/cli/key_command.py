"""``atout daily`` and ``atout key``: their command lines, and the key commands.

    atout daily [URL] [--name NAME]
        today's daily game on that server (starts it, or resumes it)
    atout key export [URL]          print this computer's player key for URL
    atout key import [URL] KEY      keep KEY as the player key for URL
    atout key forget [URL]          forget it (the next connection registers anew)

The key commands need no terminal UI: they read and write ``keys.json``
(``keys.py``) and print. The key goes to stdout alone, the warning to
stderr, so ``atout key export URL > key.txt`` copies only the key.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from clients.cli import daily_words as words
from clients.cli.i18n import _
from clients.cli.keys import BadKey, FileKeys, SavedKey, parse_key


def add_parsers(sub: Any, default_url: str, default_name: str) -> argparse.ArgumentParser:
    """The ``daily`` and ``key`` subcommands, on ``atout``'s subparsers (made
    after the language is chosen, so their help speaks it); ``daily``'s parser."""
    url_help = _("default {url}").format(url=default_url)
    daily = sub.add_parser("daily", help=_("play today's daily game (same deals for everyone)"))
    daily.add_argument("url", nargs="?", default=default_url, help=url_help)
    daily.add_argument(
        "--name",
        default=default_name,
        help=_("your name the first time (then the server keeps it)"),
    )
    key = sub.add_parser("key", help=_("export or import your player key (to play from elsewhere)"))
    actions = key.add_subparsers(dest="key_action", metavar="{export,import,forget}")
    actions.required = True
    export = actions.add_parser("export", help=_("print your player key for a server (a secret)"))
    export.add_argument("url", nargs="?", default=default_url, help=url_help)
    imp = actions.add_parser(
        "import",
        help=_("keep a player key exported on another machine"),
        usage="atout key import [-h] [--replace] [URL] KEY",
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
    return daily  # type: ignore[no-any-return]


def run(
    args: argparse.Namespace,
    default_url: str,
    normalize_url: Callable[[str], str],
    keys: FileKeys | None = None,
) -> int:
    """Carry out ``atout key ACTION``; the exit status."""
    keys = keys or FileKeys()
    try:
        match args.key_action:
            case "export":
                return _export(keys, normalize_url(args.url))
            case "import":
                if len(args.args) > 2:
                    print(words.IMPORT_ARGS, file=sys.stderr)
                    return 2
                url, text = (default_url, args.args[0]) if len(args.args) == 1 else args.args
                return _import(keys, normalize_url(url), text, args.replace)
            case "forget":
                return _forget(keys, normalize_url(args.url))
    except OSError as e:
        print(words.KEY_FILE_PROBLEM.format(error=e), file=sys.stderr)
        return 1
    return 2


def _export(keys: FileKeys, url: str) -> int:
    saved = keys.get(url)
    if saved is None:
        print(words.NO_KEY.format(url=url), file=sys.stderr)
        return 1
    print(words.EXPORT_WARNING.format(url=url), file=sys.stderr)
    print(saved.key)
    return 0


def _import(keys: FileKeys, url: str, text: str, replace: bool) -> int:
    try:
        key = parse_key(text)
    except BadKey as e:
        print(f"atout key import: {e}", file=sys.stderr)
        return 2
    old = keys.get(url)
    if old is not None and old.key == key:
        print(words.SAME_KEY.format(url=url), file=sys.stderr)
        return 0
    if old is not None and old.registered and not replace:
        print(words.REPLACE_REFUSED.format(url=url), file=sys.stderr)
        return 1
    # Registered: the server that made this player knows it; a mistyped key
    # must be refused (unknown_key), not quietly registered as someone new.
    keys.save(url, SavedKey(key, registered=True))
    print(words.IMPORTED.format(url=url, path=keys.path), file=sys.stderr)
    return 0


def _forget(keys: FileKeys, url: str) -> int:
    if keys.get(url) is None:
        print(words.NOTHING_TO_FORGET.format(url=url), file=sys.stderr)
        return 0
    keys.forget(url)
    print(words.FORGOTTEN.format(url=url), file=sys.stderr)
    return 0

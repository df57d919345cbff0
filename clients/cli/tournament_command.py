"""``atout tournament``: its command lines and their checks.

    atout tournament create [URL] [--title T] [--rounds 3] [--deals 4]
        [--format free|duplicate] [--teams 0|2|4 --team NAME] [--bots-fill]
        [--bot-level LEVEL] [--round-timeout SECONDS] [--name NAME] [--profile P]
        host a tournament on that server, and play in it (the server counts
        as players those who join: the client joins its host at once); its
        screen shows the code to share
    atout tournament join CODE [URL] [--team NAME] [--name NAME] [--profile P]
        join one by its code (again after a restart: back to your seat)

Both play as a player of the server (its key, as ``atout daily``): guests
cannot enter a ranked event. ``--name`` stays the player's name, as in every
other command, so the tournament's own name is ``--title``. The settings are
checked against ``protocol/tournaments.py``'s limits before any screen (a
usage mistake: one line, exit status 2); the server checks them again.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from clients.cli import tournament_words as words
from clients.cli.i18n import _
from clients.cli.tournament_dialogs import TournamentEntry, code_of
from protocol.tournaments import MAX_ROUND_DEALS, MAX_ROUNDS, TEAM_SIZES, TournamentSettings

BOT_LEVELS = ("random", "easy", "normal", "strong")


class TournamentUsage(Exception):
    """A mistake on ``atout tournament``'s command line (``__main__`` says it)."""


def add_parser(
    sub: Any,
    default_url: str,
    default_name: str,
    player_options: Callable[[argparse.ArgumentParser], None],
) -> list[argparse.ArgumentParser]:
    """``atout tournament create`` and ``join``, on ``atout``'s subparsers;
    returns both (the caller adds the options every online command has)."""
    defaults = TournamentSettings()
    url_help = _("default {url}").format(url=default_url)
    tournament = sub.add_parser(
        "tournament", help=_("host a tournament, or join one by its code (with friends)")
    )
    actions = tournament.add_subparsers(dest="tournament_action", metavar="{create,join}")
    actions.required = True
    create = actions.add_parser(
        "create", help=_("create a tournament and host it: its screen shows the code to share")
    )
    create.add_argument("url", nargs="?", default=default_url, help=url_help)
    create.add_argument(
        "--title",
        help=_("the tournament's name (default: NAME's tournament)"),
    )
    create.add_argument(
        "--rounds",
        type=int,
        default=defaults.rounds,
        help=_("rounds, 1 to {n} (default {default})").format(
            n=MAX_ROUNDS, default=defaults.rounds
        ),
    )
    create.add_argument(
        "--deals",
        type=int,
        default=defaults.deals,
        help=_("deals each table plays a round, 1 to {n} (default {default})").format(
            n=MAX_ROUND_DEALS, default=defaults.deals
        ),
    )
    create.add_argument(
        "--format",
        choices=("free", "duplicate"),
        default=defaults.format,
        help=_("free: ranked by points; duplicate: the same deals at every table (default free)"),
    )
    create.add_argument(
        "--teams",
        type=int,
        choices=TEAM_SIZES,
        default=defaults.team_size,
        help=_("players a team: 2 or 4, or 0 for no teams (default 0)"),
    )
    create.add_argument(
        "--bots-fill",
        action="store_true",
        help=_("seat four at every table, bots filling (default: tables of 3 or 5 instead)"),
    )
    create.add_argument(
        "--bot-level",
        choices=BOT_LEVELS,
        default=defaults.bot_level,
        help=_("the bots' level (default normal)"),
    )
    create.add_argument(
        "--round-timeout",
        type=int,
        metavar="SECONDS",
        default=int(defaults.round_timeout),
        help=_(
            "seconds after a round starts when you may have bots finish it (default {s})"
        ).format(s=int(defaults.round_timeout)),
    )
    join = actions.add_parser(
        "join",
        help=_("join a tournament by its code"),
        # Written out: argparse would show "CODE [URL] [CODE [URL] ...]" for
        # the one list of words (tests/test_cli_units.py checks every option is here).
        usage=(
            "atout tournament join [-h] [--team TEAM] [--name NAME] [--profile PROFILE]\n"
            "       [--lang {en,fr,zh,ko}] [--cafile FILE] CODE [URL]"
        ),
    )
    join.add_argument(
        "where",
        nargs="+",
        metavar="CODE [URL]",
        help=_("the tournament's code, then the server ({url})").format(url=url_help),
    )
    for command in (create, join):
        command.add_argument(
            "--team", default="", help=_("your team's name, in a tournament of teams")
        )
        command.add_argument(
            "--name",
            default=default_name,
            help=_("your name the first time (then the server keeps it)"),
        )
        player_options(command)
    return [create, join]


def _looks_like_url(text: str) -> bool:
    return any(mark in text for mark in (":", "/", ".")) or text.lower() == "localhost"


def check(args: argparse.Namespace, default_url: str) -> None:
    """Read ``join``'s CODE and URL (either order), and check what argparse
    cannot; ``TournamentUsage`` for a mistake."""
    if args.tournament_action == "join":
        where = list(args.where)
        if len(where) > 2:
            raise TournamentUsage(_("join takes a CODE and, if you like, a URL"))
        urls = [w for w in where if _looks_like_url(w)]
        codes = [w for w in where if not _looks_like_url(w)]
        if len(codes) != 1 or len(urls) > 1:
            raise TournamentUsage(_("give the tournament's code (letters and digits)"))
        args.code = code_of(codes[0])
        if not args.code.isalnum():
            raise TournamentUsage(_("a tournament's code is letters and digits"))
        args.url = urls[0] if urls else default_url
        args.team = " ".join(args.team.split())
        if problem := words.team_problem(args.team):
            raise TournamentUsage(problem)
        return
    title = args.title if args.title is not None else words.default_name(args.name)
    args.settings = TournamentSettings(
        name=" ".join(title.split()),
        rounds=args.rounds,
        deals=args.deals,
        format=args.format,
        team_size=args.teams,
        bot_level=args.bot_level,
        bots_fill=args.bots_fill,
        round_timeout=float(args.round_timeout),
    )
    args.team = " ".join(args.team.split())
    problem = words.settings_problem(args.settings) or words.team_problem(args.team, args.teams)
    if problem:
        raise TournamentUsage(problem)


def start(args: argparse.Namespace) -> TournamentEntry:
    """What the app does once online (after ``check``): create (and join), or join."""
    if args.tournament_action == "join":
        return TournamentEntry(code=args.code, team=args.team)
    return TournamentEntry(settings=args.settings, team=args.team)

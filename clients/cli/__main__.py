"""``atout``: the terminal client. ``atout`` alone is ``atout play``.

    atout play [--name NAME] [--profile P] [--bots LEVEL] [--deals N] [--timer S]
        a local server, a table with three bots, and play (the default command)
    atout connect [ws://host:port] [--name NAME] [--profile P] [--guest] [--cafile FILE]
        the lobby of a server, to play or watch with friends
    atout daily [ws://host:port] [--name NAME] [--profile P] [--cafile FILE]
        today's daily game on that server: same deals for everyone, one leaderboard
    atout key {export,import,forget} [ws://host:port] ... [--name NAME | --profile P]
        a player's key for a server, to play as yourself from another machine
    atout tournament create [ws://host:port] [--title T] [--rounds N] [--deals N] ...
    atout tournament join CODE [ws://host:port] [--team NAME] [--name NAME] [--profile P]
        host a tournament, or join one by its code (``tournament_command.py``)

A player is the ``--profile`` when given, else the ``--name``: their seat
tokens and player keys are kept per server and player (``tokens.py``,
``keys.py``). ``--cafile`` trusts a ``wss://`` server's own certificate
(``tls.py``).

Usage mistakes (a bad address, an empty name, a negative timer) and a
missing terminal are one line on stderr and exit status 2, before any
screen. Logs (ours and the embedded server's) go to a file, never to the screen.
"""

from __future__ import annotations

import argparse
import getpass
import importlib.metadata
import logging
import os
import sys
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

from clients.cli import argparse_words, i18n, key_command, tls, tournament_command, wording
from clients.cli.i18n import _
from protocol.limits import NAME_MAX

DEFAULT_URL = "ws://127.0.0.1:8765"
BOT_LEVELS = ("random", "easy", "normal", "strong")
USAGE_ERROR = 2  # the exit status of a usage mistake, like argparse's
COMMANDS = ("play", "connect", "daily", "key", "tournament")


class UsageError(Exception):
    """A mistake on the command line: one line on stderr, exit status 2."""


def default_name() -> str:
    try:
        return getpass.getuser()[:NAME_MAX] or "Player"
    except Exception:  # no login name (containers): any name will do
        return "Player"


def normalize_url(url: str) -> str:
    """``ws://`` or ``wss://`` for a server address typed as ``host:port``,
    ``http://host:port`` or ``https://host``; a UsageError for anything else."""
    url = url.strip()
    if "://" not in url:
        url = "ws://" + url
    scheme, rest = url.split("://", 1)
    rest = rest.rstrip("/")
    scheme = {"http": "ws", "https": "wss"}.get(scheme.lower(), scheme.lower())
    if scheme not in ("ws", "wss"):
        raise UsageError(wording.bad_url(url))
    url = f"{scheme}://{rest}"
    try:
        parsed = urlsplit(url)
        port = parsed.port  # raises on a port that is not a number
    except ValueError:
        raise UsageError(wording.bad_url(url)) from None
    if not parsed.hostname or (port is not None and not 0 < port < 65536):
        raise UsageError(wording.bad_url(url))
    return url


def check_name(name: str) -> str:
    name = " ".join(name.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise UsageError(wording.bad_name(NAME_MAX))
    return name


def log_file() -> Path:
    override = os.environ.get("ATOUT_LOG")
    if override:
        return Path(override)
    try:
        import platformdirs

        folder = Path(platformdirs.user_log_dir("atout", appauthor=False))
    except ImportError:
        folder = Path.home() / ".cache" / "atout"
    return folder / "atout.log"


def setup_logging(path: Path) -> None:
    """Everything to ``path``: a terminal UI has no room for log lines."""
    import structlog

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = open(path, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    except OSError:
        stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    logging.basicConfig(
        stream=stream, level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.WriteLoggerFactory(file=stream),
        cache_logger_on_first_use=True,
    )


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage block: the mistake is what matters.
        see = _("(see {command} --help)").format(command=self.prog)
        self.exit(USAGE_ERROR, f"{self.prog}: {message} {see}\n")


def parser() -> argparse.ArgumentParser:
    argparse_words.install()
    p = Parser(
        prog="atout",
        description=wording.CLI_DESCRIPTION,
        epilog=wording.CLI_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--version",
        action="version",
        version=f"atout {version()}",
        help=_("show program's version number and exit"),
    )
    lang_help = _("language: {languages} (default: from the locale, else en)").format(
        languages=", ".join(i18n.LANGUAGES)
    )
    p.add_argument("--lang", choices=tuple(i18n.LANGUAGES), help=lang_help)
    sub = p.add_subparsers(
        dest="command", metavar="{" + ",".join(COMMANDS) + "}", parser_class=Parser
    )
    play = sub.add_parser(
        "play",
        help=_("play now against three bots (the default: atout alone)"),
        description=wording.PLAY_DESCRIPTION,
    )
    play.add_argument("--name", default=default_name(), help=_("your display name"))
    play.add_argument(
        "--bots", choices=BOT_LEVELS, default="normal", help=_("the bots' level (default normal)")
    )
    play.add_argument(
        "--deals",
        type=int,
        default=None,
        help=_("deals in the game (1-40; default: each player deals twice)"),
    )
    play.add_argument(
        "--timer", type=int, default=0, help=_("seconds per move (0-600), 0 for none")
    )
    connect = sub.add_parser(
        "connect",
        help=_("connect to a server to play with friends"),
        description=_(
            "Connect to a server to play with friends: its lobby lists the tables to "
            "join, quick play seats you at once, and an invite code takes you to a "
            "friend's private table."
        ),
    )
    connect.add_argument(
        "url",
        nargs="?",
        default=DEFAULT_URL,
        help=_(
            "the server to connect to: ws://, wss://, http(s):// or host:port (default {url})"
        ).format(url=DEFAULT_URL),
    )
    connect.add_argument("--name", default=default_name(), help=_("your display name"))
    for command in (play, connect):
        command.add_argument(
            "--players",
            type=int,
            choices=(3, 4, 5),
            default=4,
            help=_("players at the table: 3, 4 or 5 (play, and quick play in the lobby)"),
        )
        # Also after the command (``atout play --lang fr``, and ``atout --lang fr``,
        # which is ``atout play --lang fr``); SUPPRESS keeps the one given first.
        command.add_argument(
            "--lang", choices=tuple(i18n.LANGUAGES), default=argparse.SUPPRESS, help=lang_help
        )
        player_option(command)
    connect.add_argument(
        "--guest",
        action="store_true",
        help=_("play as a guest, without a player key: no name kept, no leaderboard"),
    )
    daily = key_command.add_parsers(sub, DEFAULT_URL, default_name(), player_option)  # daily, key
    daily.add_argument(
        "--lang", choices=tuple(i18n.LANGUAGES), default=argparse.SUPPRESS, help=lang_help
    )
    tournament = tournament_command.add_parser(sub, DEFAULT_URL, default_name(), player_option)
    for action in tournament:
        action.add_argument(
            "--lang", choices=tuple(i18n.LANGUAGES), default=argparse.SUPPRESS, help=lang_help
        )
    for online in (connect, daily, *tournament):
        online.add_argument(
            "--cafile",
            metavar="FILE",
            help=_(
                "also trust the certificate(s) in FILE for a wss:// server, such as "
                "its own self-signed one (SSL_CERT_FILE=FILE works too)"
            ),
        )
    return p


def player_option(command: argparse.ArgumentParser) -> None:
    """``--profile``: the player, for the seat tokens and player keys kept here."""
    command.add_argument(
        "--profile",
        help=_(
            "whose saved seats, game and player keys to use (default: your name); "
            "one per player sharing this machine"
        ),
    )


def version() -> str:
    try:
        return importlib.metadata.version("atout")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def check(args: argparse.Namespace) -> None:
    """The mistakes argparse cannot see (raises UsageError)."""
    args.name = check_name(args.name)
    if args.profile is not None and not args.profile.strip():
        raise UsageError(wording.BAD_PROFILE)
    if args.command == "play":
        if args.deals is not None and not 1 <= args.deals <= 40:
            raise UsageError(wording.BAD_DEALS)
        if not 0 <= args.timer <= 600:
            raise UsageError(wording.BAD_TIMER)
    elif args.command != "key":  # key_command.py reads its own URL
        if args.command == "tournament":
            try:
                tournament_command.check(args, DEFAULT_URL)  # join's CODE and URL, the settings
            except tournament_command.TournamentUsage as e:
                raise UsageError(str(e)) from None
        args.url = normalize_url(args.url)
        args.ssl = None
        if args.cafile is not None:
            if not args.url.startswith("wss://"):
                raise UsageError(
                    _("--cafile is for wss:// addresses; {url} is not encrypted").format(
                        url=args.url
                    )
                )
            try:
                args.ssl = tls.context(args.cafile)
            except tls.BadCertificates as e:
                raise UsageError(str(e)) from None


def lang_arg(argv: list[str]) -> str | None:
    """``--lang`` from the command line before argparse reads it (argparse
    itself must already speak the language), or None."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def read(argv: list[str]) -> argparse.Namespace:
    """The command line, read; a ``--profile`` without ``--name`` names the
    player too (the login name is not theirs, and may be someone else's on
    the server: issue 33)."""
    args = parser().parse_args(argv)
    named = any(arg == "--name" or arg.startswith("--name=") for arg in argv)
    profile = getattr(args, "profile", None)
    if profile is not None and profile.strip() and not named and hasattr(args, "name"):
        args.name = " ".join(profile.split())[:NAME_MAX]
    return args


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    asks = {"-h", "--help", "--version"}
    if not any(arg in COMMANDS or arg in asks for arg in argv):
        argv = ["play", *argv]  # `atout` alone plays (`atout --lang fr` too)
    # The language first: --help and the usage errors speak it.
    i18n.use(i18n.choose(lang_arg(argv)))
    args = read(argv)
    try:
        check(args)
        if args.command == "key":  # key_command.py: no terminal UI
            sys.exit(key_command.run(args, DEFAULT_URL, normalize_url))
    except UsageError as e:
        see = _("(see {command} --help)").format(command=f"atout {args.command}")
        print(f"atout {args.command}: {e} {see}", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    if not has_terminal():
        # Textual would wait for a terminal forever (and spin a core).
        print(f"atout: {wording.NO_TERMINAL}", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    path = log_file()
    setup_logging(path)

    from clients.cli.app import AtoutApp
    from clients.cli.keys import FileKeys
    from protocol.messages import CreateTable

    if args.command == "play":
        from clients.cli.tokens import play_file
        from server.process.embedded import Settings

        app = AtoutApp(
            play_file=play_file(args.profile or args.name),
            profile=args.profile,
            # The local server lives only while its player is here: it never
            # closes the game for want of a human.
            embedded_settings=Settings(port=0, host="127.0.0.1", idle_close=10 * 365 * 86400.0),
            name=args.name,
            autoplay=CreateTable(
                name=_("{name}'s table").format(name=args.name),
                private=True,
                deals=args.deals,
                players=args.players,
                bot_level=args.bots,
                turn_timer=float(args.timer),
            ),
            log_path=str(path),
        )
    else:
        # A player of that server (its key made on first use), unless a guest.
        guest = args.command == "connect" and args.guest
        app = AtoutApp(
            url=args.url,
            name=args.name,
            profile=args.profile,
            log_path=str(path),
            keys=None if guest else FileKeys(),
            daily=args.command == "daily",
            ssl=args.ssl,
            players=getattr(args, "players", 4),
            tournament=tournament_command.start(args) if args.command == "tournament" else None,
        )
    try:
        app.run()
    except KeyboardInterrupt:
        pass
    except Exception:
        logging.getLogger("atout.client").exception("the client stopped")
        stopped = _("stopped by an unexpected problem; details in {path}").format(path=path)
        print(f"atout: {stopped}", file=sys.stderr)
        sys.exit(1)
    finally:
        if app.embedded is not None:
            app.embedded.stop()
    status = app.link_status
    if status.phase == "stopped" and status.reason:
        print(f"atout: {status.reason}", file=sys.stderr)
    if app.return_code:
        sys.exit(app.return_code)


if __name__ == "__main__":
    main()

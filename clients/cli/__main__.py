"""``atout``: the terminal client.

    atout play [--name NAME] [--bots LEVEL] [--deals N] [--timer S]
        a local server, a table with three bots, and play (the default command)
    atout connect [ws://host:port] [--name NAME] [--guest]
        the lobby of a server, to play or watch with friends
    atout daily [ws://host:port] [--name NAME]
        today's daily game on that server: same deals for everyone, one leaderboard
    atout key {export,import,forget} [ws://host:port] ...
        your player key for a server, to play as yourself from another machine

Logs (ours and the embedded server's) go to a file, never to the screen.
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys
from pathlib import Path

from clients.cli import key_command

DEFAULT_URL = "ws://127.0.0.1:8765"
BOT_LEVELS = ("random", "easy", "normal", "strong")


def default_name() -> str:
    try:
        return getpass.getuser()[:24] or "Player"
    except Exception:  # no login name (containers): any name will do
        return "Player"


def normalize_url(url: str) -> str:
    """Accept ``host:port`` as well as ``ws://host:port``."""
    url = url.strip()
    if "://" not in url:
        url = "ws://" + url
    return url.rstrip("/")


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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="atout", description="French Tarot for four, in a terminal.")
    sub = p.add_subparsers(dest="command", metavar="{play,connect,daily,key}")
    play = sub.add_parser("play", help="play now against three bots (starts a local server)")
    play.add_argument("--name", default=default_name(), help="your display name")
    play.add_argument("--bots", choices=BOT_LEVELS, default="normal", help="bot level")
    play.add_argument("--deals", type=int, default=8, help="deals in the game (1-40)")
    play.add_argument("--timer", type=int, default=0, help="seconds per move, 0 for none")
    connect = sub.add_parser("connect", help="connect to a server to play with friends")
    connect.add_argument("url", nargs="?", default=DEFAULT_URL, help=f"default {DEFAULT_URL}")
    connect.add_argument("--name", default=default_name(), help="your display name")
    connect.add_argument(
        "--guest", action="store_true", help="no player key: no kept name, no leaderboard"
    )
    key_command.add_parsers(sub, DEFAULT_URL, default_name())  # daily, key
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0].startswith("--name"):
        argv = ["play", *argv]  # `atout` alone plays
    args = parser().parse_args(argv)
    if args.command == "key":  # key_command.py: no terminal UI
        sys.exit(key_command.run(args, DEFAULT_URL, normalize_url))
    path = log_file()
    setup_logging(path)

    from clients.cli.app import AtoutApp
    from clients.cli.keys import FileKeys
    from protocol.messages import CreateTable

    if args.command == "play":
        if not 1 <= args.deals <= 40:
            raise SystemExit("atout play: --deals is 1 to 40")
        app = AtoutApp(
            name=args.name,
            autoplay=CreateTable(
                name=f"{args.name}'s table",
                private=True,
                deals=args.deals,
                bot_level=args.bots,
                turn_timer=float(max(0, args.timer)),
            ),
            log_path=str(path),
        )
    else:
        # A player of that server (its key made on first use), unless a guest.
        guest = args.command == "connect" and args.guest
        app = AtoutApp(
            url=normalize_url(args.url),
            name=args.name,
            log_path=str(path),
            keys=None if guest else FileKeys(),
            daily=args.command == "daily",
        )
    try:
        app.run()
    except KeyboardInterrupt:
        pass
    except Exception:
        logging.getLogger("atout.client").exception("the client stopped")
        print(f"atout: stopped by an unexpected problem; details in {path}", file=sys.stderr)
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

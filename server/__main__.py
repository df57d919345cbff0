"""``atout-server``: serve tables (the default command) or replay deal records.

Every mistake that stops the server from starting is one line on stderr that
names the setting and what would work, never a traceback: exit status 2 for
a wrong command line or ``ATOUT_*`` value (the usage convention of argparse
and most Unix tools), 1 when the machine says no (the port is taken, the host
is not ours, Redis does not answer). docs/DEPLOY.md lists the messages.
"""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import NoReturn

from server.base import config

PROG = "atout-server"
USAGE = 2
"""Exit status of a mistake in the command line or an ``ATOUT_*`` variable."""
FAILED = 1
"""Exit status when the server could not start with what it was given."""

DESCRIPTION = f"""\
Serve Atout (French Tarot) tables over WebSockets, or replay deal records.

commands:
  serve     serve tables over WebSockets (the default: `{PROG}` alone is
            `{PROG} serve`, and takes the options below)
  replay    check and score deal records: {PROG} replay FILE... (see
            {PROG} replay --help)

Every option can also be set by the ATOUT_* variable named in brackets;
the option wins over the variable, which wins over the default."""


def _say(message: str, status: int) -> NoReturn:
    # One line, whatever the cause said: a supervisor's log shows one event.
    print(f"{PROG}: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(status)


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line (it prints the usage first)."""

    def error(self, message: str) -> NoReturn:
        _say(f"{message} (see {self.prog} --help)", USAGE)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30)


def _version() -> str:
    try:
        return version("atout")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def serve_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        usage=f"{PROG} [serve] [OPTION...]\n       {PROG} replay FILE...\n       {PROG} --version",
        description=DESCRIPTION,
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    config.add_arguments(parser)
    return parser


def replay_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=f"{PROG} replay",
        description="Check deal records against the rules and score them "
        "(one JSON result per record per line; exit status 0 when every record is legal).",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="record files, - for stdin")
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "replay":
        args = replay_parser().parse_args(argv[1:])
        from server.replay_cli import run

        sys.exit(run(args.files))
    if argv and argv[0] == "serve":
        argv = argv[1:]
    args = serve_parser().parse_args(argv)
    try:
        settings = config.load(args)
    except config.SettingError as exc:
        _say(str(exc), USAGE)
    from server.process import app

    if settings.workers > 1:
        from server.process import workers

        try:
            sys.exit(workers.supervise(settings, explain=cannot_start))
        except workers.GaveUp as exc:
            _say(exc.message, exc.status)
    try:
        app.serve_main(settings)
    except app.CannotStart as exc:
        _say(cannot_start(settings, exc), FAILED)
    except KeyboardInterrupt:  # Ctrl-C before the server was up: nothing to save
        sys.exit(130)


def cannot_start(settings: config.Settings, exc: Exception) -> str:
    """The line that says why the server could not start (``app.CannotStart``);
    re-raises ``exc`` when its cause is none we know how to explain."""
    from server.store.base import StoreError

    cause = exc.__cause__
    if isinstance(cause, StoreError):
        return _no_redis(settings, cause)
    if isinstance(cause, OSError):
        return _cannot_listen(settings, cause)
    raise exc


def _cannot_listen(settings: config.Settings, exc: OSError) -> str:
    host, port = settings.host, settings.port
    other_port = "choose another with --port or ATOUT_PORT"
    if isinstance(exc, socket.gaierror):
        return (
            f"cannot resolve host {host!r} (--host / ATOUT_HOST): {exc.strerror}; "
            "use an address of this machine (127.0.0.1, 0.0.0.0) or a name that resolves to one"
        )
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is already in use on {host} (another atout-server?); {other_port}"
    if exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"cannot listen on {host} (--host / ATOUT_HOST): not an address of this machine; "
            "use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or one of its addresses"
        )
    if exc.errno == errno.EACCES:
        return (
            f"not allowed to listen on port {port} (--port / ATOUT_PORT): ports below 1024 "
            f"need privileges; {other_port}, from 1024 to 65535"
        )
    return (
        f"cannot listen on {host} port {port} (--host / ATOUT_HOST, --port / ATOUT_PORT): "
        f"{exc.strerror or exc}"
    )


def _no_redis(settings: config.Settings, exc: Exception) -> str:
    from server.store.redis import parse_url

    host, port, db, _ = parse_url(settings.redis_url)
    where = f"Redis at redis://{host}:{port}/{db} (--redis / ATOUT_REDIS_URL)"
    reason: BaseException = exc
    while reason.__cause__ is not None:  # StoreError <- what the socket or Redis said
        reason = reason.__cause__
    then = "exiting at once, without retrying (a supervisor such as Compose restarts the server)"
    if isinstance(reason, TimeoutError):
        problem = f"cannot reach {where}: no answer in time"
    elif isinstance(reason, OSError):
        problem = f"cannot reach {where}: {reason.strerror or reason}"
    else:  # Redis answered, with an error: a wrong password, a db out of range...
        return f"{where} refused: {reason}; {then}: fix the password or the db in the URL"
    return (
        f"{problem}; {then}: start Redis or fix the URL, or leave it empty to keep tables in memory"
    )


if __name__ == "__main__":
    main()

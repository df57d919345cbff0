"""``atout-server``: serve tables (the default command) or replay deal records."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "replay":
        parser = argparse.ArgumentParser(
            prog="atout-server replay",
            description="Check deal records against the rules and score them "
            "(one JSON result per record per line).",
        )
        parser.add_argument("files", nargs="+", metavar="FILE", help="record files, - for stdin")
        args = parser.parse_args(argv[1:])
        from server.replay_cli import run

        sys.exit(run(args.files))
    if argv and argv[0] == "serve":
        argv = argv[1:]
    from server.app import serve_main

    serve_main(argv)


if __name__ == "__main__":
    main()

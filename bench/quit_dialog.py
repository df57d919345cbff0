"""Benchmark: from a key to the quit (^q) or leave (Esc) question on screen.

Issue 34 said the quit dialog "takes a moment to appear". A terminal client
(the real ``AtoutApp`` under Textual's pilot) sits at a table of ``--players``
started on a server and presses the key ``--tries`` times, then Esc (Stay).
Each try is timed from the key handed to the app to the first frame the
question's screen paints (its compositor's refresh), with the moments the
action ran and the question was mounted. ``--embedded`` plays as ``atout
play`` does (the server and its bots in a thread of this process, bots
thinking while we press); without it the server is in-process but idle at
our turn. ``--hogs`` processes spin on the cores meanwhile.

    python bench/quit_dialog.py [--tries 20] [--players 4] [--size 80x24] [--embedded] [--hogs 0]

Prints ``name: value`` lines: per key, the median and worst milliseconds to
the action, to the mounted question and to its first frame.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.screen import Screen

from clients.cli import table_facts as facts
from clients.cli.app import AtoutApp
from clients.cli.dialogs import Confirm
from clients.cli.tokens import FileTokens
from protocol.messages import Bid, Chelem, CreateTable, Play, Ready
from tests.support.pilot import client, sit_and_start, until
from tests.support.servers import for_people, running, url

MARKS: dict[str, float] = {}


def _instrument() -> None:
    """Note when the action runs, the question mounts and first paints."""
    quit_action = AtoutApp.action_quit

    async def action_quit(self: AtoutApp) -> None:
        MARKS.setdefault("action", time.perf_counter())
        await quit_action(self)

    AtoutApp.action_quit = action_quit  # type: ignore[method-assign]
    mount = Confirm.on_mount

    def on_mount(self: Confirm) -> None:
        MARKS.setdefault("action", time.perf_counter())  # Esc's leave has no app action
        MARKS.setdefault("mount", time.perf_counter())
        mount(self)

    Confirm.on_mount = on_mount  # type: ignore[method-assign]
    refresh = Screen._compositor_refresh

    def compositor_refresh(self: Screen[Any]) -> None:
        refresh(self)
        if isinstance(self, Confirm):
            MARKS.setdefault("painted", time.perf_counter())

    Screen._compositor_refresh = compositor_refresh  # type: ignore[method-assign]


def _spin() -> None:
    while True:
        pass


def _move(view: Any) -> Any:
    """Keep an ``atout play`` game going: pass, no chelem, the first legal card."""
    if facts.reading_now(view):
        return Ready()
    if not facts.my_turn(view):
        return None
    match facts.decision(view):
        case "bid":
            return Bid(bid="pass")
        case "chelem":
            return Chelem(declare=False)
        case "play":
            return Play(card=view.legal.cards[0])
    return None


async def _tries(app: AtoutApp, pilot: Any, key: str, n: int, embedded: bool) -> list[list[float]]:
    rows: list[list[float]] = []
    while len(rows) < n:
        view = app.link.table if app.link is not None else None
        if view is None or view.status in ("finished", "closed"):
            break
        if embedded:  # play on, and press while the bots think
            move = _move(view)
            if move is not None:
                app.send(move)
            await pilot.pause(0.05)
            if facts.my_turn(view) or facts.reading_now(view):
                continue
        MARKS.clear()
        start = time.perf_counter()
        app.simulate_key(key)
        while "painted" not in MARKS:
            await asyncio.sleep(0.0005)
        rows.append([1000 * (MARKS[k] - start) for k in ("action", "mount", "painted")])
        await pilot.press("escape")  # Stay
        while isinstance(app.screen, Confirm):
            await asyncio.sleep(0.001)
        await pilot.pause(0.1)
    return rows


def _print(key: str, rows: list[list[float]]) -> None:
    name = {"ctrl+q": "quit", "escape": "leave"}[key]
    print(f"{name}_tries: {len(rows)}")
    for i, what in enumerate(("action", "mounted", "painted")):
        values = [r[i] for r in rows]
        if values:
            print(
                f"{name}_{what}_ms: median {statistics.median(values):.0f}, worst {max(values):.0f}"
            )


async def main(args: argparse.Namespace) -> None:
    _instrument()
    width, height = (int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory() as folder:
        if args.embedded:
            create = CreateTable(
                name="bench", private=True, players=args.players, deals=40, bot_level="strong"
            )
            app = AtoutApp(
                name="Alice",
                autoplay=create,
                embedded_settings=for_people(host="127.0.0.1"),
                play_file=Path(folder) / "play.sqlite3",
                tokens=FileTokens(Path(folder) / "config"),
            )
            async with app.run_test(size=(width, height)) as pilot:
                await until(pilot, lambda: app.link and app.link.table is not None, 60, "table")
                for key in ("ctrl+q", "escape"):
                    _print(key, await _tries(app, pilot, key, args.tries, True))
                await app.aclose()
            return
        async with running(for_people()) as server:
            app = client(url(server), Path(folder))
            async with app.run_test(size=(width, height)) as pilot:
                await sit_and_start(pilot, app, players=args.players, turn_timer=0)
                await pilot.pause(0.5)
                for key in ("ctrl+q", "escape"):
                    _print(key, await _tries(app, pilot, key, args.tries, False))
                await app.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--embedded", action="store_true")
    parser.add_argument("--hogs", type=int, default=0)
    arguments = parser.parse_args()
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(arguments.hogs)]
    for hog in hogs:
        hog.start()
    try:
        asyncio.run(main(arguments))
    finally:
        for hog in hogs:
            hog.terminate()

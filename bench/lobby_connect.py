"""Benchmark: the lobby is on screen at connect, every time, under load.

A server (in-process, as ``atout-server`` runs it) holds two open tables,
"Alice's table" and "Friday tarot". Then, ``--tries`` times, a terminal
client (the real ``AtoutApp``, driven by Textual's pilot at 80×24 and
140×40 in turn, English and French in turn) connects as a new person. A try
counts when, within ``--within`` seconds of the lobby screen showing, both
tables and the "N online" count are on screen, and they are still there
``--hold`` seconds later (issue 33: a resize's redraw used to wipe the
first lobby a moment after it was drawn). ``--hogs`` processes spin on the
cores meanwhile, as a busy machine would.

    python bench/lobby_connect.py [--tries 100] [--hogs 2]

Prints ``name: value`` lines: ``lobby_shown`` as N/tries, and the time to the
lobby (median, worst).
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clients.cli import i18n
from clients.cli.app import AtoutApp
from clients.cli.table_names import table_name
from clients.cli.tokens import FileTokens
from clients.session import Session
from protocol.messages import CreateTable, Seated
from tests.support.pilot import screen_text
from tests.support.servers import for_people, running, url

SIZES = ((80, 24), (140, 40))
LANGS = ("en", "fr")
ONLINE = {"en": "online", "fr": "en ligne"}


def _spin() -> None:
    while True:
        pass


async def one_try(address: str, folder: Path, n: int, within: float, hold: float) -> float | None:
    """Seconds from the lobby screen to the whole lobby on screen (None: not
    within ``within``, or wiped before ``hold`` had passed)."""
    lang = LANGS[n % 2]
    i18n.use(lang)
    app = AtoutApp(url=address, name=f"P{n}", tokens=FileTokens(folder / f"P{n}"), base_delay=0.05)

    def whole() -> bool:
        text = screen_text(app)
        head = text.split("\n", 1)[0]
        alice = table_name("Alice's table")  # "Table de Alice" in French
        return alice in text and "Friday tarot" in text and ONLINE[lang] in head

    took: float | None = None
    async with app.run_test(size=SIZES[(n // 2) % 2]) as pilot:
        while app.screen is not app.lobby_screen:
            await pilot.pause(0.01)
        shown = time.perf_counter()
        while time.perf_counter() - shown < within:
            if whole():
                took = time.perf_counter() - shown
                break
            await pilot.pause(0.02)
        if took is not None:
            await pilot.pause(hold)
            if not whole():
                took = None
        if took is None:
            print(screen_text(app).split("\n", 1)[0], file=sys.stderr)
        await app.aclose()
    return took


async def main(tries: int, hogs: int, within: float, hold: float) -> None:
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(hogs)]
    for p in spinners:
        p.start()
    times: list[float] = []
    try:
        async with running(for_people(log_level="error")) as server:
            address = url(server)
            hosts = []
            for name in ("Alice's table", "Friday tarot"):
                s = await Session.open(address, name.split("'")[0].split()[0])
                await s.send(CreateTable(name=name))
                await s.wait_for(Seated)
                hosts.append(s)
            with tempfile.TemporaryDirectory() as tmp:
                for n in range(tries):
                    took = await one_try(address, Path(tmp), n, within, hold)
                    if took is not None:
                        times.append(took)
                    else:
                        print(f"try {n}: the lobby was not on screen", file=sys.stderr)
            for s in hosts:
                await s.close()
    finally:
        for p in spinners:
            p.terminate()
    print(f"tries: {tries}")
    print(f"hogs: {hogs}")
    print(f"lobby_shown: {len(times)}/{tries}")
    if times:
        print(f"to_lobby_median_s: {statistics.median(times):.3f}")
        print(f"to_lobby_worst_s: {max(times):.3f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tries", type=int, default=100)
    ap.add_argument("--hogs", type=int, default=2, help="busy processes beside (load)")
    ap.add_argument("--within", type=float, default=1.0, help="seconds allowed to show the lobby")
    ap.add_argument("--hold", type=float, default=0.5, help="seconds it must stay")
    args = ap.parse_args()
    asyncio.run(main(args.tries, args.hogs, args.within, args.hold))

"""Issue 26's evening, as new users would have it: nine people on one code,
one of them in the terminal client (``atout tournament create``, then
``atout tournament join CODE``), the others scripted; a free tournament of
two rounds (a third proves nothing new) at the tables of 3, 4 or 5 the
seating decides, then a duplicate one; each time the standings equal our own
computation from the deal records, and the terminal shows the final
standings with its line lit.
(A restart mid-round: tests/test_tournament_live.py, on Redis.)"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

from clients.cli.app import AtoutApp
from clients.cli.tournament_dialogs import TournamentEntry
from clients.cli.tournament_screen import TournamentScreen
from protocol.messages import Tournament, TournamentCreate, TournamentJoin, TournamentStart
from protocol.tournaments import TournamentSettings, TournamentView
from server.process.app import Server
from tests.support.pilot import SIZE, screen_text, shown, until
from tests.support.servers import FAST, running, url
from tests.support.tournament_pilot import (
    at_our_table,
    atout_tournament,
    created_and_joined,
    play_table,
    tview,
)
from tests.support.tournaments import Entrant, check_standings, fetch

NAMES = ("Bob", "Chloé", "Dan", "Emma", "Farid", "Gao", "Hana", "Ines")


async def rounds_in_the_terminal(pilot: object, app: AtoutApp, rounds: int) -> TournamentView:
    """Alice sits at each round's table (the client takes her there) and plays it."""
    rng = random.Random(3)
    for r in range(1, rounds + 1):
        await until(
            pilot,
            lambda r=r: at_our_table(app) and tview(app).round == r,
            timeout=120,
            what=f"Alice at her round {r} table",
        )
        await play_table(pilot, app, rng)
    await until(
        pilot,
        lambda: tview(app).status == "finished" and app.current_mode == "tournament",
        timeout=120,
        what="the final standings",
    )
    await shown(pilot, app, "Final standings")
    screen = app.screen
    assert isinstance(screen, TournamentScreen)
    grid = screen.query_one("#t-standings")
    rows = [grid.get_row_at(i) for i in range(grid.row_count)]  # type: ignore[attr-defined]
    assert len(rows) == 9
    assert [r[1].plain for r in rows if r[1].plain.startswith("▶")] == ["▶ Alice"]
    assert app.errors == []
    return tview(app)


async def checked(srv: Server, view: TournamentView, fmt: str) -> dict[str, object]:
    _, _, body = await asyncio.to_thread(fetch, srv.port, f"/tournaments/{view.code}.json")
    export: dict[str, object] = json.loads(body)
    check_standings(view, export, fmt)
    return export


async def test_nine_people_play_a_free_then_a_duplicate_tournament(tmp_path: Path) -> None:
    # A long grace: a bot takes nobody's turn while the pilot looks around.
    async with running(FAST, grace=60.0) as srv:
        others = [await Entrant.open(url(srv), name) for name in NAMES]
        try:
            # 1. Alice hosts a free tournament from her terminal.
            settings = TournamentSettings(name="Vendredi", rounds=2, deals=1)
            app = atout_tournament(srv, tmp_path, TournamentEntry(settings=settings))
            async with app.run_test(size=SIZE) as pilot:
                await created_and_joined(pilot, app)
                code = tview(app).code
                for e in others:  # her friends type the code she shows
                    assert isinstance(await e.ask(TournamentJoin(code=code)), Tournament)
                await until(pilot, lambda: len(tview(app).players) == 9, what="9 players")
                await pilot.press("s")
                await until(pilot, lambda: "Start the tournament" in screen_text(app))
                await pilot.press("enter")  # Start has the focus
                playing = [
                    asyncio.create_task(e.play(random.Random(k), timeout=240))
                    for k, e in enumerate(others)
                ]
                final = await rounds_in_the_terminal(pilot, app, 2)
                await asyncio.gather(*playing)
            await app.aclose()
            export = await checked(srv, final, "free")
            for played in export["rounds"]:  # type: ignore[attr-defined]
                sizes = [t["players"] for t in played["tables"]]
                assert sum(sizes) == 9 and set(sizes) <= {3, 4, 5}

            # 2. Bob hosts a duplicate one; Alice joins with its code.
            bob = others[0]
            created = await bob.ask(
                TournamentCreate(settings=TournamentSettings(rounds=2, deals=1, format="duplicate"))
            )
            code = created.view.code
            for e in others:
                assert isinstance(await e.ask(TournamentJoin(code=code)), Tournament)
            app = atout_tournament(srv, tmp_path, TournamentEntry(code=code))
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: len(tview(app).players) == 9, what="Alice joined")
                assert isinstance(await bob.ask(TournamentStart(code=code)), Tournament)
                for e in others:
                    e.played.clear()
                playing = [
                    asyncio.create_task(e.play(random.Random(10 + k), timeout=240))
                    for k, e in enumerate(others)
                ]
                final = await rounds_in_the_terminal(pilot, app, 2)
                await asyncio.gather(*playing)
            await app.aclose()
            export = await checked(srv, final, "duplicate")
            for played in export["rounds"]:  # type: ignore[attr-defined]
                assert [t["players"] for t in played["tables"]] == [3, 3, 3]
        finally:
            await asyncio.gather(*(e.close() for e in others))

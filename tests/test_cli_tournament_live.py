"""``atout tournament`` against a real in-process server, driven with
Textual's Pilot: the host creates a tournament from the command line's
entry (and so joins it), three scripted players join with the code it
shows, the host starts from its screen, and the client sits at its table
by itself; closed and run again as ``atout tournament join CODE`` it is
led back to its seat; it plays round 1 and moves to round 2's table by
itself; closed and run again as a plain ``atout connect``, it is back at
that seat following the tournament, plays it out, and ends on the final
standings with its line lit.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from clients.cli.app import AtoutApp
from clients.cli.keys import FileKeys
from clients.cli.tokens import FileTokens
from clients.cli.tournament_dialogs import TournamentEntry
from clients.cli.tournament_screen import TournamentScreen
from protocol.messages import TournamentJoin
from protocol.tournaments import TournamentSettings
from tests.support.pilot import SIZE, screen_text, shown, until
from tests.support.servers import FAST, running, url
from tests.support.tournament_pilot import (
    at_our_table,
    atout_tournament,
    created_and_joined,
    play_table,
    tview,
)
from tests.support.tournaments import Entrant


async def test_the_host_creates_starts_and_the_client_follows_the_rounds(tmp_path: Path) -> None:
    settings = TournamentSettings(name="Vendredi", rounds=2, deals=1)
    # A long grace: no bot plays Alice's seat while she restarts her client.
    async with running(FAST, grace=60.0) as srv:
        others = [await Entrant.open(url(srv), name) for name in ("Bob", "Chloé", "Dan")]
        try:
            app = atout_tournament(srv, tmp_path, TournamentEntry(settings=settings))
            async with app.run_test(size=SIZE) as pilot:
                # Created, and joined: the host is a player of it.
                await created_and_joined(pilot, app)
                view = tview(app)
                assert view.you_host and view.players[0].name == "Alice"
                assert isinstance(app.screen, TournamentScreen)
                code = view.code
                await shown(pilot, app, " ".join(code))  # big, to share
                for e in others:
                    joined = await e.ask(TournamentJoin(code=code))
                    assert joined.view.code == code
                await until(pilot, lambda: len(tview(app).players) == 4, what="4 players")
                await shown(pilot, app, "Gathering: 4 players so far")
                await pilot.press("s")
                await until(pilot, lambda: "Start the tournament" in screen_text(app))
                await pilot.press("enter")  # Start has the focus
                # Round 1: the client sits at its table by itself.
                await until(pilot, lambda: at_our_table(app), what="Alice at her table")
                first = tview(app).your_table
                assert tview(app).round == 1 and app.errors == []
            await app.aclose()

            # Closed mid-round, run again as `atout tournament join CODE`:
            # back to the seat (joined already, the view leads there).
            app = atout_tournament(srv, tmp_path, TournamentEntry(code=code))
            rng = random.Random(7)
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: at_our_table(app), what="Alice back at her table")
                assert tview(app).your_table == first and app.errors == []
                players = [
                    asyncio.create_task(e.play(random.Random(k), timeout=240))
                    for k, e in enumerate(others)
                ]
                await play_table(pilot, app, rng)
                # Round 2 seats everyone again: the client leaves the finished
                # table and sits at the new one.
                await until(
                    pilot,
                    lambda: at_our_table(app) and tview(app).round == 2,
                    timeout=120,
                    what="Alice at her round 2 table",
                )
                second = tview(app).your_table
                assert second != first
            await app.aclose()

            # Closed again, run as a plain `atout connect`: the seat is
            # resumed, and the tournament it remembered is followed again.
            app = AtoutApp(
                url=url(srv),
                name="Alice",
                tokens=FileTokens(tmp_path),
                keys=FileKeys(tmp_path),
                base_delay=0.05,
            )
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: at_our_table(app), what="Alice back, at round 2")
                assert tview(app).your_table == second and app.errors == []
                await play_table(pilot, app, rng)
                await until(
                    pilot,
                    lambda: tview(app).status == "finished" and app.current_mode == "tournament",
                    timeout=120,
                    what="the final standings",
                )
                await asyncio.gather(*players)
                await shown(pilot, app, "Final standings", "Finished after 2 rounds")
                screen = app.screen
                assert isinstance(screen, TournamentScreen)
                grid = screen.query_one("#t-standings")
                rows = [grid.get_row_at(i) for i in range(grid.row_count)]  # type: ignore[attr-defined]
                ours = [r for r in rows if r[1].plain.startswith("▶")]
                assert len(rows) == 4 and len(ours) == 1 and ours[0][1].plain == "▶ Alice"
                assert app.errors == []
            await app.aclose()
        finally:
            await asyncio.gather(*(e.close() for e in others))

"""The table's footer at 80×24 never loses ^q Quit (issue 33): at a new
five-player tournament table the hint key (no hints there) showed for a
frame, pushing ^q Quit off the screen. Every footer the table screen
publishes, from its first, is recorded and measured."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets._footer import FooterKey

from clients.cli.app import AtoutApp
from clients.cli.screen_keys import footer_width
from clients.cli.tournament_dialogs import TournamentEntry
from protocol.messages import CreateTable, TournamentJoin
from protocol.tournaments import TournamentSettings
from tests.support.pilot import SIZE, client, screen_text, until, url_of
from tests.support.servers import FAST, for_people, running, url
from tests.support.tournament_pilot import at_our_table, atout_tournament, created_and_joined, tview
from tests.support.tournaments import Entrant


def footer_keys(app: AtoutApp) -> list[str]:
    """The keys the footer drew (its FooterKey widgets), left to right."""
    return [str(k.description) for k in app.screen.query(FooterKey)]


async def test_the_hint_key_waits_for_a_table_that_offers_hints(tmp_path: Path) -> None:
    async with running(for_people()) as server:
        app = client(url_of(server), tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.link and app.link.lobby is not None, what="lobby")
            # Seated, the view not there yet (as at a new tournament table):
            # no hint key, the footer fitted from its first frame.
            await app.switch_mode("table")
            await pilot.pause()
            keys = footer_keys(app)
            assert "Hint" not in keys and keys[-1] == "Quit", keys
            assert footer_width(app.screen) <= SIZE[0]
            # A table of friends offers hints: the key comes, ^q Quit stays.
            app.send(CreateTable(name="Friends", players=5))
            await until(pilot, lambda: app.table_screen.view is not None, what="the table")
            await pilot.pause()
            keys = footer_keys(app)
            assert "Hint" in keys and keys[-1] == "Quit", keys
            assert footer_width(app.screen) <= SIZE[0]
            await app.aclose()


async def test_a_five_player_tournament_table_never_shows_hint_nor_loses_quit(
    tmp_path: Path,
) -> None:
    settings = TournamentSettings(name="Vendredi", rounds=1, deals=1)
    # Grace long enough that Alice's seat waits for her: with FAST's 0.2 s, a
    # busy machine's client reached its table after a bot had played the
    # one deal in her place and the tournament was over (seen in a soak).
    async with running(FAST, grace=60.0) as srv:
        others = [await Entrant.open(url(srv), n) for n in ("Bob", "Chloé", "Dan", "Eve")]
        try:
            app = atout_tournament(srv, tmp_path, TournamentEntry(settings=settings))
            footers: list[tuple[int, bool, str]] = []
            screen = app.table_screen

            def record(_screen: object) -> None:
                if not screen.is_current:
                    return
                shown = [
                    a.binding.action for a in screen.active_bindings.values() if a.binding.show
                ]
                footers.append(
                    (
                        footer_width(screen),
                        "hint" in shown,
                        repr(screen.view and screen.view.table_id),
                    )
                )

            async with app.run_test(size=SIZE) as pilot:
                screen.bindings_updated_signal.subscribe(app, record)
                await created_and_joined(pilot, app)
                code = tview(app).code
                for e in others:
                    await e.ask(TournamentJoin(code=code))
                await until(pilot, lambda: len(tview(app).players) == 5, what="5 players")
                await pilot.press("s")
                await until(pilot, lambda: "Start the tournament" in screen_text(app))
                await pilot.press("enter")
                await until(pilot, lambda: at_our_table(app), what="Alice at her table")
                # The footer drawn (under load, 0.2 s after the table showed
                # it was still blank).
                await until(
                    pilot,
                    lambda: "^q Quit" in screen_text(app).splitlines()[-1],
                    what="the table's footer with Quit",
                )
                assert footers, "the table screen drew its footer"
                assert all(not hint for _w, hint, _t in footers), footers
                assert all(width <= SIZE[0] for width, _h, _t in footers), footers
                assert "^q Quit" in screen_text(app).splitlines()[-1]
            await app.aclose()
        finally:
            await asyncio.gather(*(e.close() for e in others))

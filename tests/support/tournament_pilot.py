"""The terminal client in a tournament, driven with Textual's Pilot: the app
as ``atout tournament create|join`` makes it, its tournament view, whether
it sits at the table its view names, and legal moves played through it to
its table's end."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from clients.cli.app import AtoutApp
from clients.cli.keys import FileKeys
from clients.cli.tokens import FileTokens
from clients.cli.tournament_dialogs import TournamentEntry
from protocol.tournaments import TournamentView
from server.process.app import Server
from tests.support.clients import choose, wants_decision
from tests.support.pilot import table, until
from tests.support.servers import url


def atout_tournament(
    srv: Server, folder: Path, entry: TournamentEntry, name: str = "Alice"
) -> AtoutApp:
    """``atout tournament create|join`` as ``name``, with its own config folder."""
    return AtoutApp(
        url=url(srv),
        name=name,
        tokens=FileTokens(folder),
        keys=FileKeys(folder),
        base_delay=0.05,
        tournament=entry,
    )


def tview(app: AtoutApp) -> TournamentView:
    view = app.tournaments.view
    assert view is not None
    return view


def at_our_table(app: AtoutApp) -> bool:
    view = app.tournaments.view
    here = app.link.table if app.link else None
    return (
        view is not None
        and view.your_table is not None
        and here is not None
        and here.table_id == view.your_table
        and here.you == view.your_seat
        and app.current_mode == "table"
    )


async def play_table(pilot: Any, app: AtoutApp, rng: random.Random) -> None:
    """Legal moves sent through the app whenever the view asks, to the table's
    end: its game finished, or the client already gone to the next round's
    table (a round of one deal all passed may end between two looks)."""
    here = table(app).table_id
    while True:
        view = app.link.table if app.link else None
        if view is None or view.table_id != here or view.status == "finished":
            return
        if not wants_decision(view):
            await pilot.pause(0.02)
            continue
        seq = app.link.session.table_seq  # type: ignore[union-attr]
        app.send(choose(view, rng))
        await until(
            pilot,
            lambda seq=seq: app.link.session.table_seq != seq or app.errors,  # type: ignore[union-attr]
            what="the server to take the move",
        )
        assert app.errors == []


async def created_and_joined(pilot: Any, app: AtoutApp) -> None:
    """``atout tournament create`` made its tournament and joined it: the host
    is its one player."""
    await until(
        pilot,
        lambda: app.tournaments.view is not None and len(app.tournaments.view.players) == 1,
        what="the tournament created and joined",
    )

"""A round's tables are told to their players only once they are open: a
view read while the round's tables are still being opened (the moment
between the save of the new round and ``Tables.open_new``) would send the
players to join a table that is nowhere yet (CI once saw ``no_such_table``
in test_tournament_cluster.py, the watch loop telling the round early)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from protocol.messages import (
    JoinTable,
    Ping,
    Pong,
    Seated,
    Tournament,
    TournamentCreate,
    TournamentJoin,
    TournamentStart,
)
from protocol.tournaments import TournamentSettings
from tests.support.clock import ManualClock
from tests.support.servers import running, url
from tests.support.tournaments import Entrant

pytestmark = pytest.mark.asyncio


async def test_a_round_is_told_only_once_its_tables_are_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A clock of our own: the watch loop never looks by itself; the test has
    # it look (``look``) at the moment that matters.
    async with running(clock=ManualClock()) as server:
        entrants = [await Entrant.open(url(server), n) for n in ("Ann", "Bob", "Cid", "Dee")]
        # The round's tables open only when the test says so.
        opening, go_on = asyncio.Event(), asyncio.Event()
        try:
            host, follower = entrants[0], entrants[1]
            created = await host.ask(TournamentCreate(settings=TournamentSettings(name="Gate")))
            assert isinstance(created, Tournament)
            code = created.view.code
            for e in entrants:
                assert isinstance(await e.ask(TournamentJoin(code=code)), Tournament)

            open_new = server.tables.open_new

            async def held(state: Callable[..., Any], table_id: str) -> Any:
                opening.set()
                await go_on.wait()
                return await open_new(state, table_id)

            monkeypatch.setattr(server.tables, "open_new", held)
            started = asyncio.create_task(host.ask(TournamentStart(code=code)))
            await asyncio.wait_for(opening.wait(), 10)
            # The round is saved, its tables not open yet: a look tells nobody.
            await server.tournaments.look()
            rid = await follower.session.send(Ping())
            await follower.session.wait_for(Pong, where=lambda m: m.rid == rid)
            assert follower.view is not None and follower.view.your_table is None

            go_on.set()
            assert isinstance(await started, Tournament)
            view = await follower.until(lambda v: v.your_table is not None)
            assert view.your_table is not None and view.your_table in server.tables
            rid = await follower.session.send(JoinTable(table_id=view.your_table))
            seated = await follower.session.wait_for(Seated, where=lambda m: m.rid == rid)
            assert seated.table_id == view.your_table
        finally:
            go_on.set()
            await asyncio.gather(*(e.close() for e in entrants), return_exceptions=True)

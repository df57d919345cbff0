"""A tournament on a service of two processes (one Redis): players on
either process, the round's tables served by one and played from both, the
tournament's changes seen from both; then the process serving the tables
stops mid-round and the other carries the tournament to its end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random

import pytest

from protocol.messages import (
    Tournament,
    TournamentCreate,
    TournamentGet,
    TournamentJoin,
    TournamentStart,
)
from protocol.tournaments import TournamentSettings
from tests.support.clients import autoplay
from tests.support.redis import RedisServer
from tests.support.servers import running, url
from tests.support.tournaments import Entrant, check_standings, fetch, reference_scores

pytestmark = pytest.mark.asyncio

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]


async def test_tables_on_one_process_players_on_two_and_a_process_stops(
    redis_server: RedisServer,
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        a = await stack.enter_async_context(running(redis_url=redis_server.url))
        b = await stack.enter_async_context(running(redis_url=redis_server.url))
        on_a = [await Entrant.open(url(a), n) for n in NAMES[:4]]
        on_b = [await Entrant.open(url(b), n) for n in NAMES[4:]]
        everyone = on_a + on_b
        try:
            host = on_b[0]
            settings = TournamentSettings(name="Two", rounds=2, deals=2)
            created = await host.ask(TournamentCreate(settings=settings))
            assert isinstance(created, Tournament)
            code = created.view.code
            for e in everyone:  # through either process: one tournament in Redis
                assert isinstance(await e.ask(TournamentJoin(code=code)), Tournament)
            # The host starts on B: round 1's two tables are served by B, and
            # the players connected to A sit at them through A.
            assert isinstance(await host.ask(TournamentStart(code=code)), Tournament)
            views = [await e.until(lambda v: v.your_table is not None) for e in everyone]
            tables = {v.your_table for v in views}
            assert len(tables) == 2 and all(t in b.tables for t in tables)
            for e, v in zip(everyone, views, strict=True):
                assert v.your_table is not None
                await e.sit(v.your_table)
            # Into the second deal at both tables, then B stops: its tables
            # go to A, the players connected to B are cut off.
            await asyncio.gather(
                *(
                    autoplay(
                        e.session,
                        random.Random(k),
                        lambda v: v.deal is not None and v.deal.number >= 2,
                    )
                    for k, e in enumerate(everyone)
                )
            )
            await asyncio.gather(*(e.close() for e in on_b))
            await b.stop()
            back = [
                await Entrant.open(url(a), name, e.session.key)
                for name, e in zip(NAMES[4:], on_b, strict=True)
            ]
            everyone = on_a + back
            for e in back:
                answer = await e.ask(TournamentGet(code=code))
                assert isinstance(answer, Tournament) and answer.view.round == 1
            await asyncio.gather(
                *(e.play(random.Random(10 + k), timeout=120) for k, e in enumerate(everyone))
            )
            final = await on_a[0].until(lambda v: v.status == "finished")
            _, _, body = await asyncio.to_thread(fetch, a.port, f"/tournaments/{code}.json")
            export = json.loads(body)
            assert [len(t["records"]) for r in export["rounds"] for t in r["tables"]] == [2] * 4
            check_standings(final, export, "free")
            assert len(reference_scores(export, "free")) == 8
        finally:
            await asyncio.gather(*(e.close() for e in everyone), return_exceptions=True)

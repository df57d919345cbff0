"""Tournaments end to end: a real server, scripted players over real
WebSockets, from the host's create to the final standings, checked against
a computation of our own from the exported deal records."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from clients.session import Session
from protocol.messages import (
    Error,
    JoinTable,
    Tournament,
    TournamentCreate,
    TournamentFinish,
    TournamentGet,
    TournamentJoin,
    TournamentStart,
    Watch,
)
from protocol.tournaments import TournamentSettings
from server.store.redis import RedisStore
from tests.support.clients import autoplay
from tests.support.clock import ManualClock
from tests.support.redis import RedisServer
from tests.support.servers import running, url
from tests.support.tournaments import Entrant, check_standings, fetch

pytestmark = pytest.mark.asyncio


async def gather(url_: str, count: int) -> list[Entrant]:
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou"]
    return list(await asyncio.gather(*(Entrant.open(url_, names[i]) for i in range(count))))


async def tournament(entrants: list[Entrant], settings: TournamentSettings) -> str:
    host = entrants[0]
    created = await host.ask(TournamentCreate(settings=settings))
    assert isinstance(created, Tournament), created
    code = created.view.code
    for e in entrants:
        answer = await e.ask(TournamentJoin(code=code))
        assert isinstance(answer, Tournament), answer
    started = await host.ask(TournamentStart(code=code))
    assert isinstance(started, Tournament), started
    assert started.view.status == "playing" and started.view.round == 1
    return code


@pytest.mark.parametrize("fmt", ["free", "duplicate"])
async def test_nine_friends_play_three_rounds(fmt: str) -> None:
    async with running() as server:
        entrants = await gather(url(server), 9)
        try:
            settings = TournamentSettings(name="Friday", rounds=3, deals=2, format=fmt)
            code = await tournament(entrants, settings)
            # Nobody watches another table of the round (in duplicate it plays
            # the same cards), nor sits at it.
            view = await entrants[0].until(lambda v: v.your_table is not None)
            other = next(t.table_id for t in view.tables if t.table_id != view.your_table)
            for refused in (Watch(table_id=other), JoinTable(table_id=other)):
                rid = await entrants[0].session.send(refused)
                answer = await entrants[0].session.wait_for(
                    Error, where=lambda m, rid=rid: m.rid == rid
                )
                assert answer.code == "tournament_table"
            finals = await asyncio.gather(
                *(e.play(random.Random(k), timeout=240) for k, e in enumerate(entrants))
            )
            final = await entrants[0].until(
                lambda v: v.status == "finished" and len(v.standings) == 9
            )
            # Every player played every round, at a table of 3, 4 or 5.
            assert all(len(e.played) == 3 for e in entrants)
            assert all(v.status == "finished" for v in finals)
            status, kind, body = await asyncio.to_thread(
                fetch, server.port, f"/tournaments/{code}.json"
            )
            assert status == 200 and kind.startswith("application/json")
            export = json.loads(body)
            for played in export["rounds"]:
                sizes = [t["players"] for t in played["tables"]]
                assert sum(sizes) == 9 and set(sizes) <= {3, 4, 5}
                if fmt == "duplicate":
                    assert sizes == [3, 3, 3]  # no size alone: each result has others to meet
                    # The same cards at every table: each deal's hands and dealer.
                    deals = [
                        [(r["dealer"], r["hands"]) for r in t["records"]] for t in played["tables"]
                    ]
                    assert deals[0] == deals[1] == deals[2]
                assert all(len(t["records"]) == 2 for t in played["tables"])
            check_standings(final, export, fmt)
            # Each player's own line is marked in its view, and only its own.
            for e in entrants:
                view = e.view
                assert view is not None
                mine = [x for x in view.standings if x.you]
                assert [x.player_id for x in mine] == [e.session.player_id]
            # Over HTTP: the public view (nobody's line marked) and the CSV.
            status, _, body = await asyncio.to_thread(fetch, server.port, f"/tournaments/{code}")
            public = json.loads(body)
            assert status == 200 and public["status"] == "finished"
            assert not any(line["you"] for line in public["standings"])
            status, kind, body = await asyncio.to_thread(
                fetch, server.port, f"/tournaments/{code}.deals.csv"
            )
            assert status == 200 and kind.startswith("text/csv")
            # A line per player per deal, and nothing else (one table a file).
            assert body.decode().count("\n") == 1 + sum(x["deals"] for x in public["standings"])
            status, kind, body = await asyncio.to_thread(
                fetch, server.port, f"/tournaments/{code}.csv"
            )
            assert status == 200 and kind.startswith("text/csv")
            assert body.decode().count("\n") == 1 + len(public["standings"])
        finally:
            await asyncio.gather(*(e.close() for e in entrants))


async def test_bad_requests_change_nothing() -> None:
    async with running() as server:
        ann, bob, cid = await gather(url(server), 3)
        try:
            bad = [
                TournamentSettings(rounds=0),
                TournamentSettings(deals=1000),
                TournamentSettings(team_size=3),
                TournamentSettings(round_timeout=1.0),
            ]
            for settings in bad:
                answer = await ann.ask(TournamentCreate(settings=settings))
                assert isinstance(answer, Error) and answer.code == "bad_tournament", answer
            answer = await ann.ask(TournamentJoin(code="NOSUCH"))
            assert isinstance(answer, Error) and answer.code == "no_such_tournament"
            created = await ann.ask(TournamentCreate(settings=TournamentSettings(rounds=1)))
            code = created.view.code
            assert isinstance(await ann.ask(TournamentJoin(code=code)), Tournament)
            again = await ann.ask(TournamentJoin(code=code))
            assert isinstance(again, Error) and again.code == "already_joined"
            early = await bob.ask(TournamentStart(code=code))
            assert isinstance(early, Error) and early.code == "not_host"
            few = await ann.ask(TournamentStart(code=code))
            assert isinstance(few, Error) and few.code == "too_few_players"
            view = (await bob.ask(TournamentJoin(code=code))).view
            assert [p.name for p in view.players] == ["Ann", "Bob"]  # nothing else changed
            assert view.status == "gathering"
            await cid.ask(TournamentJoin(code=code))
            assert isinstance(await ann.ask(TournamentStart(code=code)), Tournament)
            late = await cid.ask(TournamentJoin(code=code))
            assert isinstance(late, Error) and late.code in ("tournament_started", "already_joined")
        finally:
            for e in (ann, bob, cid):
                await e.close()


async def test_a_restart_mid_round_loses_nothing(redis_server: RedisServer) -> None:
    """Redis keeps the tournament and its tables: a server stopped in the
    middle of round 1 and started again carries on, and the standings count
    every deal played before and after."""
    store = await RedisStore.connect(redis_server.url)
    async with running(store=store, redis_url=redis_server.url) as server:
        entrants = await gather(url(server), 4)
        keys = [e.session.key for e in entrants]
        code = await tournament(entrants, TournamentSettings(rounds=2, deals=2))
        view = await entrants[0].until(lambda v: v.your_table is not None)
        table = view.your_table
        assert table is not None
        for e in entrants:
            await e.sit(table)
        # Play into the round's second deal, then the server stops.
        await asyncio.gather(
            *(
                autoplay(
                    e.session, random.Random(k), lambda v: v.deal is not None and v.deal.number >= 2
                )
                for k, e in enumerate(entrants)
            )
        )
        await asyncio.gather(*(e.close() for e in entrants))
    store2 = await RedisStore.connect(redis_server.url)
    async with running(store=store2, redis_url=redis_server.url) as server:
        back = [
            await Entrant.open(url(server), name, key)
            for name, key in zip(["Ann", "Bob", "Cid", "Dee"], keys, strict=True)
        ]
        try:
            for e in back:
                answer = await e.ask(TournamentGet(code=code))
                assert isinstance(answer, Tournament) and answer.view.round == 1
            await asyncio.gather(
                *(e.play(random.Random(k), timeout=120) for k, e in enumerate(back))
            )
            final = await back[0].until(lambda v: v.status == "finished")
            assert final.round == 2
            _, _, body = await asyncio.to_thread(fetch, server.port, f"/tournaments/{code}.json")
            export = json.loads(body)
            # Every deal of both rounds is there, the ones before the restart too.
            assert [len(t["records"]) for r in export["rounds"] for t in r["tables"]] == [2, 2]
            check_standings(final, export, "free")
        finally:
            await asyncio.gather(*(e.close() for e in back))


async def test_guests_cannot_enter() -> None:
    async with running() as server:
        guest = Entrant(await Session.open(url(server), "Guest"))
        try:
            answer = await guest.ask(TournamentCreate())
            assert isinstance(answer, Error) and answer.code == "guest"
            answer = await guest.ask(TournamentJoin(code="ABCDEF"))
            assert isinstance(answer, Error) and answer.code == "guest"
        finally:
            await guest.close()


async def test_teams_never_share_a_table_and_add_up() -> None:
    async with running() as server:
        entrants = await gather(url(server), 8)
        try:
            host = entrants[0]
            settings = TournamentSettings(rounds=2, deals=1, team_size=2)
            code = (await host.ask(TournamentCreate(settings=settings))).view.code
            nameless = await host.ask(TournamentJoin(code=code))
            assert isinstance(nameless, Error) and nameless.code == "bad_tournament"
            teams = ["North", "South", "East", "West"]
            for k, e in enumerate(entrants):
                answer = await e.ask(TournamentJoin(code=code, team=teams[k // 2]))
                assert isinstance(answer, Tournament), answer
            extra = await Entrant.open(url(server), "Zed")
            full = await extra.ask(TournamentJoin(code=code, team="North"))
            assert isinstance(full, Error) and full.code == "team_full"
            await extra.close()
            assert isinstance(await host.ask(TournamentStart(code=code)), Tournament)
            await asyncio.gather(*(e.play(random.Random(k)) for k, e in enumerate(entrants)))
            final = await host.until(lambda v: v.status == "finished" and len(v.teams) == 4)
            _, _, body = await asyncio.to_thread(fetch, server.port, f"/tournaments/{code}.json")
            export = json.loads(body)
            team_of = {p["player_id"]: p["team"] for p in export["players"]}
            for played in export["rounds"]:
                for t in played["tables"]:
                    seated = [team_of[s["player_id"]] for s in t["seats"] if s["player_id"]]
                    assert len(seated) == len(set(seated)), seated  # partners apart
            by_player = {x.player_id: x.score for x in final.standings}
            for line in final.teams:
                members = [p for p, team in team_of.items() if team == line.name]
                assert line.score == pytest.approx(sum(by_player[p] for p in members), abs=0.011)
            assert [x.you for x in final.teams].count(True) == 1  # the host's team
        finally:
            await asyncio.gather(*(e.close() for e in entrants))


async def test_the_host_has_bots_finish_a_round_after_its_timeout() -> None:
    clock = ManualClock()
    async with running(clock=clock) as server:
        entrants = await gather(url(server), 3)
        try:
            host = entrants[0]
            settings = TournamentSettings(rounds=1, deals=2, round_timeout=60)
            code = await tournament(entrants, settings)
            early = await host.ask(TournamentFinish(code=code))
            assert isinstance(early, Error) and early.code == "too_early"
            other = await entrants[1].ask(TournamentFinish(code=code))
            assert isinstance(other, Error) and other.code == "not_host"
            clock.advance(61)
            answer = await host.ask(TournamentFinish(code=code))
            assert isinstance(answer, Tournament), answer
            # Nobody sat: the bots play every seat out, and the round (the
            # tournament) ends.
            final = await host.until(lambda v: v.status == "finished", timeout=60)
            assert len(final.standings) == 3
            assert all(line.deals == 2 for line in final.standings)
        finally:
            await asyncio.gather(*(e.close() for e in entrants))


async def test_a_flood_of_tournaments_is_limited_like_tables() -> None:
    async with running(create_rate=0.01) as server:
        (maker,) = await gather(url(server), 1)
        try:
            answers = [await maker.ask(TournamentCreate()) for _ in range(6)]
            assert all(isinstance(a, Tournament) for a in answers[:5])
            assert isinstance(answers[5], Error) and answers[5].code == "rate_limited"
        finally:
            await maker.close()


async def test_a_finished_tournament_takes_nobody() -> None:
    async with running() as server:
        entrants = await gather(url(server), 4)
        try:
            code = await tournament(entrants[:3], TournamentSettings(rounds=1, deals=1))
            await asyncio.gather(*(e.play(random.Random(k)) for k, e in enumerate(entrants[:3])))
            await entrants[0].until(lambda v: v.status == "finished")
            late = await entrants[3].ask(TournamentJoin(code=code))
            assert isinstance(late, Error) and late.code == "tournament_finished"
            # Its tables keep to their players, finished too (a finished
            # duplicate table's history holds cards others may be playing).
            table = entrants[0].played[0]
            rid = await entrants[3].session.send(Watch(table_id=table))
            refused = await entrants[3].session.wait_for(Error, where=lambda m: m.rid == rid)
            assert refused.code == "tournament_table"
            again = await entrants[0].ask(TournamentStart(code=code))
            assert isinstance(again, Error) and again.code == "tournament_finished"
        finally:
            await asyncio.gather(*(e.close() for e in entrants))


async def test_guessing_tournament_codes_is_limited_like_table_codes() -> None:
    async with running(guess_rate=0.01) as server:
        (guesser,) = await gather(url(server), 1)
        try:
            answers = [await guesser.ask(TournamentJoin(code=f"NOPE{k:02d}")) for k in range(11)]
            assert [a.code for a in answers[:10]] == ["no_such_tournament"] * 10
            assert answers[10].code == "rate_limited"  # the code is not even looked at
        finally:
            await guesser.close()

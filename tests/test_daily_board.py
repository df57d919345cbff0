"""The ``DailyBoard`` contract, held by the memory and Redis boards alike
(a real redis-server), and what only Redis adds (surviving a restart)."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from collections.abc import AsyncIterator

import pytest

from server.daily.board import PERIODS, BoardLine, DailyBoard, MemoryBoard
from server.daily.coalesce import Coalesce
from server.daily.deals import day_start
from server.daily.redis_board import RedisBoard
from server.store.redis import RedisStore
from tests.support.redis import RedisServer

D0 = dt.date(2025, 6, 1)


def noon(day: dt.date, plus: int = 0) -> float:
    return day_start(day + dt.timedelta(days=plus)) + 12 * 3600


def iso(plus: int) -> str:
    return (D0 + dt.timedelta(days=plus)).isoformat()


@pytest.fixture(params=["memory", "redis"])
async def board(request: pytest.FixtureRequest) -> AsyncIterator[DailyBoard]:
    if request.param == "memory":
        yield MemoryBoard()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    store = await RedisStore.connect(server.url)
    yield RedisBoard(store, refresh_s=0.0)
    await store.close()


async def play(board: DailyBoard, plus: int, player: str, scores: list[int]) -> None:
    assert await board.claim(iso(plus), player, f"t-{player}-{plus}") is None
    assert await board.record(iso(plus), player, scores, noon(D0, plus))


async def test_one_ranked_attempt_a_day(board: DailyBoard) -> None:
    assert await board.claim(iso(0), "ann", "t1") is None
    assert await board.claim(iso(0), "ann", "t2") == "t1"  # resume t1, never a second
    assert await board.claim(iso(1), "ann", "t3") is None  # a new day
    assert await board.result(iso(0), "ann") is None
    assert await board.record(iso(0), "ann", [10, -20], noon(D0))
    assert not await board.record(iso(0), "ann", [99, 99], noon(D0))
    assert await board.result(iso(0), "ann") == [10, -20]


async def test_nothing_recorded_without_a_claim_or_after_the_day(board: DailyBoard) -> None:
    assert not await board.record(iso(0), "bob", [10], noon(D0))
    assert await board.result(iso(0), "bob") is None
    assert await board.claim(iso(0), "ann", "t1") is None
    # Still taken an hour after midnight (an attempt begun late may finish)...
    assert not await board.record(iso(0), "ann", [10], day_start(D0) + 86400 + 3601)
    assert await board.result(iso(0), "ann") is None
    assert await board.record(iso(0), "ann", [10], day_start(D0) + 86400 + 60)


async def test_today_with_ties_pages_and_positions(board: DailyBoard) -> None:
    await play(board, 0, "ann", [100, 0])
    await play(board, 0, "bob", [0, 100])
    await play(board, 0, "cat", [50, 50])
    await play(board, 0, "dan", [-10, -10])
    await play(board, 0, "eve", [-10, -10])
    counts = await board.deal_counts(iso(0))
    assert counts == [{100: 1, 0: 1, 50: 1, -10: 2}, {0: 1, 100: 1, 50: 1, -10: 2}]
    lines, total = await board.page("today", noon(D0), 0, 10)
    assert total == 5
    # ann, bob and cat all beat 3 of 4 others on average: 75%, level on
    # points too, so they share first place; dan and eve tie last.
    assert [(x.position, x.percent, x.points) for x in lines] == [
        (1, 75.0, 100),
        (1, 75.0, 100),
        (1, 75.0, 100),
        (4, 12.5, -20),
        (4, 12.5, -20),
    ]
    assert {x.player for x in lines[:3]} == {"ann", "bob", "cat"}
    second, total = await board.page("today", noon(D0), 3, 1)
    assert second == [lines[3]] and total == 5
    assert await board.page("today", noon(D0), 10, 5) == ([], 5)
    assert await board.position("today", noon(D0), "eve") == next(
        x for x in lines if x.player == "eve"
    )
    assert await board.position("today", noon(D0), "nobody") is None
    # The next day, the same board is yesterday's; today's is empty.
    assert (await board.page("yesterday", noon(D0, 1), 0, 10))[0] == lines
    assert await board.page("today", noon(D0, 1), 0, 10) == ([], 0)


async def test_one_player_one_line(board: DailyBoard) -> None:
    await play(board, 0, "ann", [10, 20, 30, 40])
    assert await board.page("today", noon(D0), 0, 20) == (
        [BoardLine(position=1, player="ann", percent=50.0, points=100)],
        1,
    )


async def test_week_and_all_time_list_from_three_days(board: DailyBoard) -> None:
    for plus in range(3):
        await play(board, plus, "ann", [100 - plus])
        await play(board, plus, "bob", [0])
    await play(board, 0, "cat", [200])
    await play(board, 1, "cat", [200])  # two days only: not listed
    for plus in range(3, 10):
        await play(board, plus, "dan", [5])  # alone every day: 50% each
    # At noon on day 2, only days 0 and 1 are closed: nobody has three days.
    assert await board.page("all", noon(D0, 2), 0, 10) == ([], 0)
    at = noon(D0, 10)
    lines, total = await board.page("all", at, 0, 10)
    assert total == 3
    # ann: 50% on day 0 (cat better, bob worse), 50% day 1, 100% day 2.
    assert [(x.player, x.days, x.percent) for x in lines] == [
        ("ann", 3, 66.67),
        ("dan", 7, 50.0),
        ("bob", 3, 0.0),
    ]
    # The week ending yesterday (days 3 to 9): dan only.
    week, total = await board.page("week", at, 0, 10)
    assert [(x.position, x.player, x.days) for x in week] == [(1, "dan", 7)] and total == 1
    assert await board.position("all", at, "bob") == lines[2]
    assert lines[2].position == 3
    assert await board.position("all", at, "cat") is None


async def test_many_players_same_answers(redis_server: RedisServer) -> None:
    rng = random.Random(7)
    memory = MemoryBoard()
    store = await RedisStore.connect(redis_server.url)
    redis = RedisBoard(store, refresh_s=0.0)
    try:
        for plus in range(5):
            for i in range(60):
                if rng.random() < 0.8:
                    scores = [rng.randrange(-3, 4) * 20 for _ in range(4)]
                    for b in (memory, redis):
                        await play(b, plus, f"p{i:02}", scores)
        at = noon(D0, 5)
        for period in PERIODS:
            for start in (0, 20, 40):
                assert await memory.page(period, at, start, 20) == await redis.page(
                    period, at, start, 20
                ), period
            for player in ("p00", "p13", "p59"):
                assert await memory.position(period, at, player) == await redis.position(
                    period, at, player
                )
    finally:
        await store.close()


async def test_boards_survive_a_server_restart(redis_server: RedisServer) -> None:
    store = await RedisStore.connect(redis_server.url)
    board = RedisBoard(store, refresh_s=0.0)
    for plus in range(4):
        for i, name in enumerate(("ann", "bob", "cat")):
            await play(board, plus, name, [i * 10, plus])
    at = noon(D0, 4)
    before = {p: await board.page(p, at, 0, 10) for p in PERIODS}
    await store.close()
    store = await RedisStore.connect(redis_server.url)
    try:
        again = RedisBoard(store, refresh_s=0.0)
        assert {p: await again.page(p, at, 0, 10) for p in PERIODS} == before
        assert before["all"][1] == 3
        assert await again.claim(iso(3), "ann", "other") == "t-ann-3"
    finally:
        await store.close()


async def test_a_result_is_on_the_board_when_record_returns(redis_server: RedisServer) -> None:
    # Reads rebuild the board at most once an hour here: what a read right
    # after ``record`` sees was built by ``record`` itself, for every one of
    # many results recorded at once (many tables finishing together).
    store = await RedisStore.connect(redis_server.url)
    board = RedisBoard(store, refresh_s=3600.0)
    now = noon(D0)
    assert await board.page("today", now, 0, 20) == ([], 0)
    players = [f"p{i:02d}" for i in range(30)]

    async def finish(player: str) -> None:
        await play(board, 0, player, [i * 10 for i in range(len(player))])
        line = await board.position("today", now, player)
        assert line is not None and line.player == player

    await asyncio.gather(*(finish(p) for p in players))
    lines, total = await board.page("today", now, 0, 40)
    assert total == 30 and {x.player for x in lines} == set(players)
    await store.close()


async def test_changes_at_once_share_a_run_that_began_after_each() -> None:
    runs: list[int] = []
    changed = 0

    async def run(key: str) -> None:
        runs.append(changed)  # what this run covers: the changes made before it began
        await asyncio.sleep(0)  # a turn of the loop: every other change comes meanwhile

    coalesce = Coalesce(run)

    async def change() -> None:
        nonlocal changed
        changed += 1
        mine = changed
        await coalesce.after_change("day")
        assert any(covered >= mine for covered in runs)  # a run began after this change

    await asyncio.gather(*(change() for _ in range(20)))
    assert len(runs) == 2  # the first change's run, then one for the 19 made meanwhile
    await change()
    assert len(runs) == 3

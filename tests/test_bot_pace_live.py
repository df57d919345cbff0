"""A bot's move goes out when its think time ends, however long it took to
decide (issue 24: no timing may tell who the hidden partner is).

A real server on a manual clock; the table's bots decide through a bot that
takes a chosen time *on the table's clock* (it waits, in its search thread,
for the test to move the clock on). The bot starts deciding as soon as its
turn comes, so a decision quicker than ``bot_think`` is held until the
think time ends; only a slower one goes out when it is ready.
"""

from __future__ import annotations

import threading
import time

import pytest

from clients.session import Session
from protocol.messages import CreateTable, GameCommand, Seated, StartGame
from protocol.views import TableView
from server.bots import Bot, RandomBot
from tests.support.clock import ManualClock
from tests.support.servers import running, url
from tests.support.waits import eventually

THINK = 0.6
STEP = 0.05


class TimedBot:
    """A random bot whose decision takes ``took`` seconds of ``clock``'s time."""

    def __init__(self, seed: str, clock: ManualClock, took: float, over: threading.Event) -> None:
        self.bot = RandomBot(seed)
        self.clock, self.took, self.over = clock, took, over
        self.started: float | None = None
        self.done = threading.Event()

    def decide(self, view: TableView) -> GameCommand:
        self.started = self.clock.time()
        # (``over``: the test is done and the clock stops; decide at once.)
        while self.clock.time() < self.started + self.took and not self.over.is_set():
            time.sleep(0.001)  # a search thread, working until its time is up
        self.done.set()
        return self.bot.decide(view)


@pytest.mark.parametrize("took", [0.1, 0.4, 1.0])
async def test_a_bot_move_goes_out_when_its_think_time_ends(took: float) -> None:
    clock = ManualClock()
    async with running(bot_think=THINK, grace=100.0, clock=clock) as server:
        s = await Session.open(url(server), "Host")
        # "strong": decided in a thread, as a search is (the bot below waits there).
        await s.send(CreateTable(seed="think", bot_level="strong"))
        seated = await s.wait_for(Seated)
        assert isinstance(seated, Seated) and seated.table_id is not None
        table = server.lobby.tables[seated.table_id]
        bots: list[TimedBot] = []
        over = threading.Event()

        def timed(level: str, seed: str, *, budget_s: float | None) -> Bot:
            bots.append(TimedBot(seed, clock, 0.0 if bots else took, over))  # the first one times
            return bots[-1]

        table.bots = timed
        await s.send(StartGame())
        core = table.core
        await eventually(lambda: core.state.status == "playing" and bots)
        asked = clock.time()
        game = core.game
        assert game is not None and game.deal.turn != seated.seat  # a bot speaks first
        version = core.state.version
        # It started deciding at once, not when its think time ended.
        assert bots[0].started == asked
        seat = game.deal.turn
        moved_at = None
        for k in range(1, 25):  # 1.2 s of table time, a step at a time
            clock.advance(asked + k * STEP + 1e-6 - clock.time())
            if k * STEP >= took - 1e-9:  # its time is up: the decision reaches the table
                await eventually(bots[0].done.is_set)
                await eventually(lambda: core.held is not None or core.state.version > version)
            if k * STEP >= THINK - 1e-9:  # the think time is over: the timer fired
                await eventually(
                    lambda: core.due == (seat, version) or core.state.version > version
                )
            if core.state.version > version:
                moved_at = k * STEP
                break
        over.set()  # the bots after the first wait no more
        assert moved_at == pytest.approx(max(THINK, took))
        # The player heard of the move (the bid) once it was carried out.
        await s.wait_view(lambda v: v.deal is not None and bool(v.deal.bids))

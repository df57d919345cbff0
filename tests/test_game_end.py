"""A game's end is told one way, whatever the table's mode (server/table/ending.py).

A mode the server has never heard of is two small things of its own: its
rules (a ``TableMode``, registered by name) and what hears its games' end
(a ``GameEnds``). Given to a real lobby, a real table actor plays it to its
end on a manual clock: the end comes after the final save, and what the
mode answers reaches the player at the table. The daily game and the
tournaments are the same two things (``DailyService``/``TournamentService``
are typed as ``GameEnds`` where the server gives them to its lobby).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import msgspec

from protocol.messages import Left, StartGame
from protocol.views import TableStatus
from server.base.config import Settings
from server.game import Game
from server.lobby.lobby import Lobby
from server.store.memory import MemoryStore
from server.table import Act, Join, TableState, new_state
from server.table.ending import FREE_TABLES, GameOver, Told
from server.table.mode import NORMAL, Refusal
from server.table.modes import assign, register
from server.table.state import decode_state
from tests.support.clock import ManualClock
from tests.support.members import Wire
from tests.support.waits import eventually

OVER = "the sprint is over: one deal, and the fastest wins"


class Sprint(msgspec.Struct, frozen=True):
    """A mode the server has never heard of (registered by this test): a game
    is ``deals`` deals dealt, whatever the table was made for."""

    deals: int

    name: ClassVar[str] = "test-sprint"
    every_deal_counts: ClassVar[bool] = True
    hints: ClassVar[bool] = False

    @property
    def terms(self) -> Sprint:
        return self

    @classmethod
    def restore(cls, terms: object) -> Sprint:
        return msgspec.convert(terms, cls)

    def join_refusal(
        self, status: TableStatus, player: str | None, watching: bool
    ) -> Refusal | None:
        return None

    def held_seat(self, player: str | None) -> int | None:
        return None

    def kept_seat(self, status: TableStatus, seat: int) -> str | None:
        return None

    def again_refusal(self) -> Refusal | None:
        return "wrong_phase", "a sprint is run once"

    def deal_seed(self, seed: str | None, games_played: int) -> str | None:
        return seed

    def game_over(self, game: Game) -> bool:
        return len(game.results) >= self.deals

    def may_close(self, status: TableStatus, now: float) -> bool:
        return True


register(Sprint.name, Sprint.restore)


class SprintEnds:
    """What hears a sprint's end: keeps it, and tells the player at seat 0."""

    def __init__(self) -> None:
        self.heard: list[GameOver] = []

    async def game_over(self, over: GameOver, log: Any) -> list[Told]:
        self.heard.append(over)
        first = over.seats[0]
        return [] if first is None else [(first, Left(table_id=over.table_id, reason=OVER))]


def sprint_table(table_id: str, code: str, now: float) -> TableState:
    state = new_state(
        table_id,
        code,
        "sprint",
        now=now,
        private=True,
        deals=3,  # the mode ends it after one
        bot_level="random",
        turn_timer=2.0,  # Ann's turns run out and a bot plays them: she stays seated
        seed="sprint",
        result_wait=1.0,
    )
    assign(state, Sprint(deals=1))
    return state


async def test_a_new_mode_needs_only_its_rules_and_what_hears_its_end() -> None:
    clock = ManualClock()
    store = MemoryStore()
    ends = SprintEnds()
    settings = Settings(bot_think=0.5, grace=10.0, deal_pause=1.0)
    lobby = Lobby(store, settings, clock, ends={Sprint.name: ends})
    try:
        table = await lobby.tables.open_new(sprint_table, "sprint1")
        ann = Wire("Ann")
        assert await lobby.tables.ask(table, Join(ann, 0, 1, creator=True)) is None
        table.inbox.put_nowait(Act(ann, StartGame(rid=2)))

        async def a_second_later(poll: float) -> None:
            clock.advance(1.0)  # the turn timers and the bots' think time run out
            await asyncio.sleep(poll)

        await eventually(lambda: ends.heard, what="the sprint's end", pause=a_second_later)
        (over,) = ends.heard
        game = table.core.game
        assert game is not None and len(game.results) == 1 and not game.finished
        assert over.table_id == table.id and over.mode == Sprint(deals=1)
        assert over.scores == (tuple(game.results[0].scores),)
        assert over.seats[0] is ann and over.seats[1:] == (None, None, None)
        # Told after the final save: the stored table says the same.
        stored = await store.load(table.id)
        assert stored is not None and decode_state(stored[1]).status == "finished"
        # What the mode answered reached the player, after the final view.
        told = await ann.wait_for(lambda e: isinstance(e, Left) and e.reason == OVER)
        assert told.table_id == table.id
    finally:
        await lobby.stop()


async def test_a_free_table_s_end_is_heard_too_and_asks_nothing() -> None:
    lobby = Lobby(MemoryStore(), Settings(), ManualClock())
    # A lobby given no service hears free tables' ends all the same.
    assert lobby.tables.game_ends(NORMAL.name) is FREE_TABLES
    assert lobby.tables.game_ends(Sprint.name) is None
    over = GameOver("t1", NORMAL, ((10, -10, 0, 0),), (None,) * 4)
    assert await FREE_TABLES.game_over(over, None) == []

"""Driving ``TableCore`` with no socket, store, loop or clock: a table made at
``T0``, peers, and the effects it answers picked by kind."""

from __future__ import annotations

from typing import TypeVar

from server.base.config import Settings
from server.bots import RandomBot
from server.table import BotMove, TableCore, Wake, new_state
from server.table.effects import Arm, Effect, Send

SETTINGS = Settings(bot_think=0.5, grace=10.0, deal_pause=4.0, idle_close=900.0, chat_rate=1.0)
T0 = 1_000_000.0
E = TypeVar("E")


class Peer:
    def __init__(self, name: str) -> None:
        self.id = f"p-{name}"
        self.name = name


def make(
    turn_timer: float = 0.0, deals: int = 1, seed: str = "core", result_wait: float = 60.0
) -> TableCore:
    state = new_state(
        "t1",
        "CODE42",
        "core table",
        now=T0,
        private=False,
        deals=deals,
        bot_level="random",
        turn_timer=turn_timer,
        seed=seed,
        result_wait=result_wait,
    )
    core = TableCore(state, SETTINGS)
    core.start(T0)
    return core


def of(effects: list[Effect], kind: type[E]) -> list[E]:
    return [e for e in effects if isinstance(e, kind)]


def sent(effects: list[Effect], peer: Peer) -> list[object]:
    return [e.message for e in of(effects, Send) if peer in e.to]


def arm(effects: list[Effect]) -> Arm:
    arms = of(effects, Arm)
    assert arms, "no timer decision in these effects"
    last: Arm = arms[-1]
    return last


def bot_plays(core: TableCore, now: float) -> list[Effect]:
    """The turn's timer fires at ``now`` and a random bot's decision for the
    seat comes (a bot's, asked when its timer was armed; or a run-out
    human's, asked by the timer): the effects of the move carried out."""
    game = core.game
    assert game is not None and game.deal.turn is not None
    seat, version = game.deal.turn, core.state.version
    core.handle(Wake("auto", version, seat), now)
    view = core.view_for(seat)
    return core.handle(BotMove(seat, version, RandomBot(seat).decide(view), view), now)


__all__ = ["SETTINGS", "T0", "Peer", "arm", "bot_plays", "make", "of", "sent"]

"""Which timer a table arms now, as pure functions of its state.

A table has at most one timer: the next deal (between deals), a bot's think
time, or a human's turn timer and, while that human is away, the grace
after which a bot plays for it. The deadline of a human's decision is kept
in the state (``deadline``, ``deadline_for``), so a restart, a drop or a
resume keeps it running. The core (``TableCore``) arms what these return.
"""

from __future__ import annotations

from collections.abc import Callable

from server.base.config import Settings
from server.game import Game
from server.table.effects import Arm
from server.table.gather import gathering
from server.table.inbox import Wake
from server.table.state import TableState
from server.table.think import think_time


def schedule(
    st: TableState,
    game: Game | None,
    settings: Settings,
    away: Callable[[TableState, int], bool],
    now: float,
) -> Arm:
    """The one timer the table needs now (``away``: whether a seat is a
    human's with no connection, asked only when a human's turn needs it)."""
    status = st.status
    if status == "playing" and game is not None:  # (no gathering while playing)
        # Most calls: after each move of a deal.
        seat = game.deal.turn
        if seat is None:
            return NO_TIMER
        if st.seats[seat].kind == "bot":
            return _bot_turn(st, game, settings, seat, now)
        if st.turn_timer <= 0 and not away(st, seat):
            st.deadline = None  # a human's turn with no timer, and the human is here
            return NO_TIMER
        return _human_turn(st, game, settings, away(st, seat), seat, now)
    if gathering(st):
        st.deadline = None
        return Arm(st.gather_until, Wake("gather", st.version))
    if status == "between_deals" and st.next_deal_at is not None:
        st.deadline = None
        return Arm(st.next_deal_at, Wake("deal", st.version))
    st.deadline = None
    return NO_TIMER


NO_TIMER = Arm(None)
"""No timer (an ``Arm`` is frozen: one for every table)."""


def _bot_turn(st: TableState, game: Game, settings: Settings, seat: int, now: float) -> Arm:
    """The think time of a bot's decision."""
    st.deadline = None
    # A bot waits as a person would over this decision (``think``): a
    # function of the decision's kind and shape only, never of its camp,
    # so the pace tells nobody who the hidden partner is. The core asks
    # for the bot's decision as it arms this timer and holds the move
    # until it fires, so the time the bot took to decide does not show
    # either (only a decision slower than its pause goes out late).
    pause = think_time(settings.bot_think, game.deal, seat)
    return Arm(now + pause, Wake("auto", st.version, seat))


def _human_turn(
    st: TableState, game: Game, settings: Settings, away: bool, seat: int, now: float
) -> Arm:
    """The turn timer of a human's decision, and the grace if it is away."""
    at: float | None = None
    if st.turn_timer > 0:
        # One deadline per decision, set when the decision is first
        # awaited: a restart, a drop or a resume keeps it running.
        awaited = decision(st, game)
        if st.deadline is None or st.deadline_for != awaited:
            st.deadline, st.deadline_for = now + st.turn_timer, awaited
        at = st.deadline
    else:
        st.deadline = None
    if away:
        grace = now + settings.grace
        at = grace if at is None else min(at, grace)
    return Arm(at, Wake("auto", st.version, seat) if at is not None else None)


def decision(st: TableState, game: Game) -> str:
    """Names the decision awaited now: game, deal and commands so far."""
    return f"{st.games_played}/{game.attempt}/{len(game.deal.log)}"


def bot_seed(st: TableState, game: Game, seat: int) -> str:
    """A fresh seed per decision (table seed, game, deal, decision number)
    makes a bot's play a function of the state alone: a table restored
    after a crash plays on exactly as it would have without one."""
    return f"{st.seed or st.table_id}/{st.games_played}/{game.attempt}/{seat}/" + str(
        len(game.deal.log)
    )

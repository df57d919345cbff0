"""A quick-play table gathers people before it starts, and a waiting table's
host is someone who is there (server/table/gather.py), decided by the table
core alone: the time is chosen by the test (issue 33, items 2 and 3)."""

from __future__ import annotations

import pytest

from protocol.messages import Error, Leave, StartGame
from server.game.variant import variant_for
from server.table import Act, Gone, Join, TableCore, Wake, new_state
from server.table.effects import Arm
from tests.support.table_core import SETTINGS, T0, Peer, arm, sent

GATHER = 15.0


def quick(players: int = 4) -> TableCore:
    """A table as quick play opens it: waiting for people until T0 + 15 s."""
    state = new_state(
        "q1",
        "QUICK1",
        "Ann's table",
        now=T0,
        private=False,
        deals=1,
        bot_level="random",
        turn_timer=0.0,
        seed="gather",
        result_wait=60.0,
        variant=variant_for(players),
    )
    state.gather_until = T0 + GATHER
    core = TableCore(state, SETTINGS)
    core.start(T0)
    return core


def test_the_deadline_waits_for_someone_seated_then_bots_fill_the_seats() -> None:
    core = quick()
    # Opened, nobody seated yet: no timer (it would start a table of bots).
    assert arm(core.start(T0)).at is None
    ann = Peer("Ann")
    effects = core.handle(Join(ann, None, 1, creator=True), T0)
    armed = arm(effects)
    assert armed.at == T0 + GATHER and armed.wake == Wake("gather", core.state.version)
    view = core.view_for(0)
    assert view.status == "waiting" and view.gather_until == T0 + GATHER
    # A second person 5 s later sits at the same table; the deadline stays.
    effects = core.handle(Join(Peer("Bea"), None, 2), T0 + 5)
    assert arm(effects).at == T0 + GATHER
    # The time is up: bots take the two free seats and the game starts.
    core.handle(Wake("gather", core.state.version), T0 + GATHER)
    assert core.state.status == "playing"
    assert [s.kind for s in core.state.seats] == ["human", "human", "bot", "bot"]
    assert core.view_for(0).gather_until is None and core.state.gather_until is None


def test_a_stale_gather_timer_does_nothing() -> None:
    core = quick()
    core.handle(Join(Peer("Ann"), None, 1, creator=True), T0)
    old = core.state.version
    core.handle(Join(Peer("Bea"), None, 2), T0 + 1)
    assert core.handle(Wake("gather", old), T0 + GATHER) == []
    assert core.state.status == "waiting"


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_full_quick_table_starts_at_once(players: int) -> None:
    core = quick(players)
    for i in range(players):
        core.handle(Join(Peer(f"P{i}"), None, i + 1, creator=i == 0), T0 + i)
    assert core.state.status == "playing"
    assert all(s.kind == "human" for s in core.state.seats)


def test_anyone_seated_may_start_a_quick_table_but_only_the_host_another() -> None:
    core = quick()
    ann, bea = Peer("Ann"), Peer("Bea")
    core.handle(Join(ann, None, 1, creator=True), T0)
    core.handle(Join(bea, None, 2), T0 + 1)
    core.handle(Act(bea, StartGame(rid=3)), T0 + 2)
    assert core.state.status == "playing"
    assert [s.kind for s in core.state.seats] == ["human", "human", "bot", "bot"]

    other = quick()
    other.state.gather_until = None  # a table opened with "new table"
    other.handle(Join(ann, None, 1, creator=True), T0)
    other.handle(Join(bea, None, 2), T0 + 1)
    effects = other.handle(Act(bea, StartGame(rid=4)), T0 + 2)
    assert [m.code for m in sent(effects, bea) if isinstance(m, Error)] == ["not_creator"]
    assert other.state.status == "waiting"


def test_the_host_role_passes_to_a_human_who_is_there() -> None:
    core = quick()
    core.state.gather_until = None  # the host's own table: only the host starts it
    ann, bea, cid = Peer("Ann"), Peer("Bea"), Peer("Cid")
    core.handle(Join(ann, None, 1, creator=True), T0)
    core.handle(Join(bea, None, 2), T0 + 1)
    # The host drops (a closed browser tab): Bea is there, she hosts now.
    core.handle(Gone(ann), T0 + 2)
    assert core.view_for(1).creator == 1
    core.handle(Act(bea, StartGame(rid=3)), T0 + 3)
    assert core.state.status == "playing"

    # A table whose host left, and only an away player stays: the next one
    # to sit hosts it (no dead end without a Start button).
    core = quick()
    core.state.gather_until = None
    core.handle(Join(ann, None, 1, creator=True), T0)
    core.handle(Join(bea, None, 2), T0 + 1)
    core.handle(Gone(bea), T0 + 2)
    core.handle(Act(ann, Leave(rid=3)), T0 + 3)
    assert core.state.status == "waiting"
    core.handle(Join(cid, None, 4), T0 + 4)
    assert core.state.creator == core.seat_of[cid]


def test_a_quick_table_left_by_all_before_it_starts_closes() -> None:
    core = quick()
    ann = Peer("Ann")
    core.handle(Join(ann, None, 1, creator=True), T0)
    effects = core.handle(Act(ann, Leave(rid=2)), T0 + 1)
    assert core.closed and core.state.status == "closed"
    assert not any(isinstance(e, Arm) and e.at is not None for e in effects)

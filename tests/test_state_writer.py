"""The save's blob (server/table/state.py ``StateWriter``): the state's own
encoding byte for byte, whichever log it is given — the same deal's, a new
deal's, or the same deal's rebuilt by a restore (equal entries, other
objects) — and the state is left as it was (its results and log put back)."""

from __future__ import annotations

import random
from typing import Any

from protocol.messages import StartGame
from server.base.config import Settings
from server.game.variant import VARIANTS
from server.table import Act, Join, TableCore, Wake, new_state
from server.table.effects import Arm
from server.table.state import StateWriter, decode_state, encode_state
from tests.support.clients import choose

SETTINGS = Settings(bot_think=0.5, grace=10.0, deal_pause=4.0, idle_close=900.0)
T0 = 1_000_000.0


class Peer:
    def __init__(self, name: str) -> None:
        self.id = f"p-{name}"
        self.name = name


def _table() -> tuple[TableCore, list[Peer]]:
    state = new_state(
        "t1", "CODE42", "writer", now=T0, private=True, deals=3, bot_level="random",
        turn_timer=0.0, seed="writer", result_wait=0.0, variant=VARIANTS[4],
    )  # fmt: skip
    core = TableCore(state, SETTINGS)
    peers = [Peer(f"s{i}") for i in range(4)]
    core.start(T0)
    for i, p in enumerate(peers):
        core.handle(Join(p, i, 1, token=f"tok{i}"), T0)
    core.handle(Act(peers[0], StartGame(rid=2)), T0)
    return core, peers


def _step(core: TableCore, peers: list[Peer], rng: random.Random, now: float) -> bool:
    """One move (a seat's command, or the next deal's timer); False when the game is over."""
    game = core.game
    if core.state.status == "playing" and game is not None and game.deal.turn is not None:
        seat = game.deal.turn
        core.handle(Act(peers[seat], choose(core.view_for(seat), rng)), now)
        return True
    wakes = [e for e in core.start(now) if type(e) is Arm and isinstance(e.wake, Wake)]
    if not wakes:
        return False
    wake = wakes[0].wake
    assert wake is not None
    core.handle(wake, max(now, wakes[0].at or now))
    return True


def test_the_blob_is_the_encoding_across_deals_and_a_restore() -> None:
    core, peers = _table()
    writer = StateWriter()  # one writer over the table and, midway, its restored copy
    rng = random.Random(7)
    now, checked, deals = T0, 0, set()
    restored = False
    while _step(core, peers, rng, now) and checked < 400:
        now += 1.0
        st = core.state
        if not restored and st.game is not None and len(st.game.log) == 30:
            # A restart: the same deal rebuilt from the store (equal log
            # entries, none of them the objects the writer kept).
            restored = True
            core = TableCore(decode_state(encode_state(st)), SETTINGS)
            core.seat_of = {p: i for i, p in enumerate(peers)}
            st = core.state
            st.game = core.game.state() if core.game is not None else None
        assert writer.encode(st) == encode_state(st)
        checked += 1
        if st.game is not None:
            deals.add(st.game.attempt)
    assert restored and len(deals) >= 2  # a new deal's log came too


def test_the_state_is_left_as_it_was() -> None:
    core, peers = _table()
    rng = random.Random(3)
    for k in range(12):
        _step(core, peers, rng, T0 + k)
    st = core.state
    game = st.game
    assert game is not None
    results, log = game.results, game.log
    before: Any = encode_state(st)
    StateWriter().encode(st)
    assert game.results is results and game.log is log  # put back, the very lists
    assert type(game.log) is list and encode_state(st) == before

"""Results that wait for the players: the core between deals, on a manual clock.

Each test picks ``now`` and drives ``TableCore.handle`` directly: a deal's
result waits until every human seated has sent ``ready`` (bots always are),
or until the table's ``result_wait`` runs out; ``deal_pause`` is the least
pause; an away human holds the table no longer than the wait; a restart
arms the same timer from the absolute times in the state.
"""

from __future__ import annotations

from protocol.messages import Chat, Error, Leave, Ready, Seated, StartGame
from server.bots import RandomBot
from server.table import Act, Gone, Join, Reclaim, TableCore, Wake
from server.table.effects import Answer, Save
from server.table.state import decode_state, encode_state
from tests.support.table_core import SETTINGS, T0, Peer, arm, bot_plays, make, of, sent

WAIT = 60.0


def sit(core: TableCore, peer: Peer, token: str, now: float = T0) -> int:
    effects = core.handle(Join(peer, None, 1, token=token), now)
    assert of(effects, Answer)[0].error is None
    (seated,) = [m for m in sent(effects, peer) if isinstance(m, Seated)]
    assert seated.seat is not None
    return seated.seat


def play_deal(core: TableCore, now: float, humans: dict[int, Peer]) -> float:
    """Every seat plays (humans by their command, bots on their timer) until the deal ends."""
    for _ in range(400):
        game = core.game
        if core.state.status != "playing" or game is None:
            return now
        turn = game.deal.turn
        assert turn is not None
        if turn in humans and turn not in core.fan.away_seats(core.state):
            cmd = RandomBot(turn).decide(core.view_for(turn))
            assert not [
                m
                for m in sent(core.handle(Act(humans[turn], cmd), now), humans[turn])
                if isinstance(m, Error)
            ]
        else:
            bot_plays(core, now)
        now += 1.0
    raise AssertionError("the deal did not end")


def two_humans(deals: int = 2) -> tuple[TableCore, Peer, Peer, float]:
    """Alice (seat 0) and Bob (seat 1) with two bots, the first deal just over."""
    core = make(deals=deals, seed="pace", result_wait=WAIT)
    alice, bob = Peer("Alice"), Peer("Bob")
    assert sit(core, alice, "a") == 0 and sit(core, bob, "b") == 1
    core.handle(Act(alice, StartGame()), T0)
    ended = play_deal(core, T0, {0: alice, 1: bob})
    assert core.state.status == "between_deals"
    return core, alice, bob, ended


def test_the_result_waits_for_every_human_then_the_next_deal_comes_at_once() -> None:
    core, alice, bob, _ = two_humans()
    ended = core.state.deal_ended_at
    assert ended is not None
    view = core.view_for(0)
    assert view.ready == [2, 3] and view.result_wait == WAIT  # bots are always ready
    assert view.next_deal_at == ended + WAIT
    assert view.deal is not None and view.deal.number == 1 and view.deal.result is not None
    effects = core.handle(Act(alice, Ready()), ended + 10)
    assert arm(effects).at == ended + WAIT
    assert of(effects, Save) and core.view_for(1).ready == [0, 2, 3]
    # Pressing again changes nothing: no save, no message.
    assert core.handle(Act(alice, Ready()), ended + 11) == []
    effects = core.handle(Act(bob, Ready()), ended + 12)
    assert core.state.next_deal_at == ended + 12  # all ready, past the pause: at once
    timer = arm(effects)
    assert timer.at == ended + 12 and timer.wake is not None and timer.wake.kind == "deal"
    core.handle(timer.wake, ended + 12)
    assert core.state.status == "playing"
    view = core.view_for(0)
    assert view.deal is not None and view.deal.number == 2
    assert view.ready == [] and view.next_deal_at is None


def test_all_ready_at_once_still_see_the_result_for_the_deal_pause() -> None:
    core, alice, bob, _ = two_humans()
    ended = core.state.deal_ended_at
    assert ended is not None
    core.handle(Act(alice, Ready()), ended)
    effects = core.handle(Act(bob, Ready()), ended + 0.5)
    assert arm(effects).at == core.state.next_deal_at == ended + SETTINGS.deal_pause
    # A chat line (a new version, a new timer) does not push the deal back.
    effects = core.handle(Act(alice, Chat(text="gg")), ended + 1)
    assert arm(effects).at == ended + SETTINGS.deal_pause


def test_the_wait_runs_out_for_a_human_who_does_not_press() -> None:
    core, alice, _, _ = two_humans()
    ended = core.state.deal_ended_at
    assert ended is not None
    effects = core.handle(Act(alice, Ready()), ended + 1)
    timer = arm(effects)
    assert timer.at == ended + WAIT and timer.wake is not None
    assert core.handle(Wake("deal", core.state.version - 1), ended + WAIT) == []  # stale
    effects = core.handle(timer.wake, ended + WAIT)
    assert of(effects, Save) and core.state.status == "playing"


def test_a_human_who_leaves_is_ready_one_who_drops_holds_only_until_the_wait() -> None:
    core, alice, bob, _ = two_humans()
    ended = core.state.deal_ended_at
    assert ended is not None
    core.handle(Act(alice, Ready()), ended + 1)
    # Bob's connection drops: he is away, not ready; the table waits the wait out.
    effects = core.handle(Gone(bob), ended + 2)
    assert arm(effects).at == ended + WAIT
    assert core.view_for(0).ready == [0, 2, 3]
    # Bob comes back and leaves for good: a bot takes his seat, and bots are ready.
    bob2 = Peer("Bob")
    assert of(core.handle(Reclaim(bob2, "t1.b", -1, 4), ended + 3), Answer)[0].error is None
    effects = core.handle(Act(bob2, Leave()), ended + 5)
    assert core.state.seats[1].kind == "bot"
    assert core.view_for(0).ready == [0, 1, 2, 3]
    assert arm(effects).at == core.state.next_deal_at == ended + 5


def test_a_newcomer_in_a_bots_seat_has_not_read_the_result() -> None:
    core, alice, bob, _ = two_humans()
    ended = core.state.deal_ended_at
    assert ended is not None
    core.handle(Act(alice, Ready()), ended + 1)
    core.handle(Act(bob, Leave()), ended + 2)  # bob's seat: a bot's now, ready
    carol = Peer("Carol")
    assert sit(core, carol, "c", ended + 2.5) == 1  # carol takes it over
    assert core.view_for(0).ready == [0, 2, 3]
    assert core.state.next_deal_at == ended + WAIT


def test_a_restart_restores_the_wait_from_absolute_times() -> None:
    core, alice, _, _ = two_humans()
    ended = core.state.deal_ended_at
    assert ended is not None
    core.handle(Act(alice, Ready()), ended + 1)
    restored = TableCore(decode_state(encode_state(core.state)), SETTINGS)
    timer = arm(restored.start(ended + 30))
    assert timer.at == ended + WAIT and timer.wake is not None and timer.wake.kind == "deal"
    assert restored.view_for(None).ready == [0, 2, 3]
    # Bob comes back to the restored table and reads on: the next deal comes at once.
    bob = Peer("Bob")
    assert of(restored.handle(Reclaim(bob, "t1.b", -1, 1), ended + 31), Answer)[0].error is None
    effects = restored.handle(Act(bob, Ready()), ended + 32)
    assert arm(effects).at == ended + 32


def test_ready_is_refused_outside_the_wait_and_for_a_spectator() -> None:
    core = make(deals=1, seed="pace", result_wait=WAIT)
    alice, eve = Peer("Alice"), Peer("Eve")
    sit(core, alice, "a")
    core.handle(Join(eve, None, 2, spectator=True), T0)
    (error,) = sent(core.handle(Act(alice, Ready(rid=5)), T0), alice)
    assert isinstance(error, Error) and error.code == "not_between_deals" and error.rid == 5
    (error,) = sent(core.handle(Act(eve, Ready(rid=6)), T0), eve)
    assert isinstance(error, Error) and error.code == "spectator"


def test_at_game_over_nothing_waits_and_the_last_result_stays() -> None:
    core = make(deals=1, seed="pace", result_wait=WAIT)
    alice = Peer("Alice")
    sit(core, alice, "a")
    core.handle(Act(alice, StartGame()), T0)
    now = T0
    while core.state.status != "finished":
        now = play_deal(core, now, {0: alice})
        if core.state.status == "between_deals":  # an annulled deal: dealt again
            timer = arm(core.handle(Act(alice, Ready()), now))
            assert timer.wake is not None
            core.handle(timer.wake, now + SETTINGS.deal_pause)
            now += SETTINGS.deal_pause
    view = core.view_for(0)
    assert view.status == "finished" and view.ready == [] and view.next_deal_at is None
    assert view.deal is not None and view.deal.result is not None and view.ranking
    (error,) = sent(core.handle(Act(alice, Ready()), now), alice)
    assert isinstance(error, Error) and error.code == "not_between_deals"


def test_a_resumed_seat_takes_the_name_it_connects_with() -> None:
    core = make()
    sit(core, Peer("Alice"), "a")
    effects = core.handle(Reclaim(Peer("Alicia"), "t1.a", -1, 2), T0 + 1)
    assert of(effects, Answer)[0].error is None
    assert core.state.seats[0].name == "Alicia"
    assert core.view_for(None).seats[0].name == "Alicia"

"""The table's decisions with no socket, store, event loop or clock.

``TableCore.handle(message, now)`` is driven here directly: each test picks
``now``, feeds messages and checks the effects it gets back (what is sent to
whom, what is saved, which timer is armed), including every timer path.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import msgspec
import pytest

from protocol.messages import (
    Bid,
    Chat,
    Error,
    Leave,
    Left,
    Play,
    PlayAgain,
    Seated,
    StartGame,
    TablePatch,
    TableSnapshot,
)
from protocol.views import TableView
from server.bots import RandomBot
from server.daily.deals import DailyTag
from server.daily.mode import DailyMode
from server.game import Game
from server.table import Act, BotMove, Gone, Join, Reclaim, Sweep, TableCore, Wake, new_state
from server.table.effects import (
    Answer,
    Arm,
    Effect,
    Listing,
    Record,
    Route,
    Save,
    Send,
    Think,
)
from server.table.ending import GameOver
from server.table.mode import Refusal
from server.table.modes import assign, register
from server.table.state import decode_state, encode_state
from tests.support.table_core import SETTINGS, T0, Peer, arm, bot_plays, make, of, sent


def seat(core: TableCore, peer: Peer, now: float = T0) -> list[Effect]:
    effects = core.handle(Join(peer, None, 1, token="secret"), now)
    assert of(effects, Answer)[0].error is None
    return effects


def bot_turns(core: TableCore, now: float, until_seat: int | None = None) -> float:
    """Let the armed timers fire and bots play until ``until_seat`` must decide."""
    for _ in range(400):
        game = core.game
        if game is None or core.state.status != "playing":
            return now
        if game.deal.turn == until_seat:
            return now
        bot_plays(core, now)
        now += SETTINGS.bot_think
    raise AssertionError("the bots did not get there")


def test_joining_saves_before_telling_and_routes_the_connection() -> None:
    core = make()
    alice = Peer("Alice")
    effects = seat(core, alice)
    kinds = [type(e) for e in effects]
    save = kinds.index(Save)
    snapshot = next(
        i
        for i, e in enumerate(effects)
        if isinstance(e, Send) and isinstance(e.message, TableSnapshot)
    )
    assert save < snapshot  # nobody hears of the seat before it is stored
    assert Route(alice, here=True) in effects
    seated = sent(effects, alice)[0]
    assert isinstance(seated, Seated) and seated.seat == 0 and seated.token == "t1.secret"
    assert core.state.seats[0].kind == "human" and core.state.creator == 0
    assert core.state.seats[0].token_digest != "t1.secret"  # only a digest is kept
    assert of(effects, Save)[0].version == core.state.version == 1


def test_an_illegal_command_changes_nothing() -> None:
    core = make()
    alice = Peer("Alice")
    seat(core, alice)
    core.handle(Act(alice, StartGame()), T0)
    now = bot_turns(core, T0, until_seat=0)
    before = encode_state(core.state)
    stream = core.fan.streams[0]
    assert stream is not None
    seq = stream.seq
    effects = core.handle(Act(alice, Play(card="KS", rid=7)), now)  # no card in the bidding
    (error,) = sent(effects, alice)
    assert isinstance(error, Error) and error.code == "wrong_phase" and error.rid == 7
    assert not of(effects, Save) and not of(effects, Arm)
    assert encode_state(core.state) == before and stream.seq == seq
    effects = core.handle(Act(alice, Bid(bid="garde_sans_chien", rid=8)), now)
    assert [type(m) for m in sent(effects, alice)] == [Error]
    assert encode_state(core.state) == before


def test_a_command_from_a_stranger_is_refused() -> None:
    core = make()
    seat(core, Peer("Alice"))
    version = core.state.version
    mallory = Peer("Mallory")
    effects = core.handle(Act(mallory, StartGame(rid=3)), T0)
    (error,) = sent(effects, mallory)
    assert isinstance(error, Error) and error.code == "not_at_table" and error.rid == 3
    assert core.state.version == version and core.state.status == "waiting"


def bot_first(seed: str = "think") -> tuple[TableCore, Peer, int, list[Effect]]:
    """Alice and three bots, the game just started, a bot speaking first."""
    core = make(seed=seed)
    alice = Peer("Alice")
    seat(core, alice)
    effects = core.handle(Act(alice, StartGame()), T0)
    game = core.game
    assert game is not None and core.state.status == "playing"
    turn = game.deal.turn
    assert turn is not None and turn != 0 and core.state.version == 2
    return core, alice, turn, effects


def test_a_bot_decides_during_its_think_time_and_moves_when_it_ends() -> None:
    core, alice, turn, effects = bot_first()
    timer = arm(effects)
    assert timer.at == T0 + SETTINGS.bot_think and timer.wake == Wake("auto", 2, turn)
    # The decision is asked for at once, with the timer: the bot thinks
    # during its bot_think, not after it.
    (think,) = of(effects, Think)
    assert (think.seat, think.version, think.level) == (turn, 2, "random")
    assert think.view.you == turn
    # The timer armed again at the same version (Alice drops) asks nothing again.
    assert not of(core.handle(Gone(alice), T0 + 0.05), Think)
    # Decided early (whatever it took): held, nothing saved, nobody told.
    cmd = RandomBot(turn).decide(think.view)
    assert core.handle(BotMove(turn, 2, cmd, think.view), T0 + 0.1) == []
    assert core.state.version == 2
    assert core.handle(Wake("auto", 1, turn), T0 + 0.2) == []  # armed before the last change
    # The move goes out when the think time ends, and only then.
    effects = core.handle(Wake("auto", 2, turn), T0 + SETTINGS.bot_think)
    assert core.state.version == 3 and of(effects, Save)
    # A second answer to the same question is too late: nothing happens.
    assert core.handle(BotMove(turn, 2, Bid(bid="pass"), think.view), T0 + 1) == []


def test_a_bot_slower_than_its_think_time_moves_when_it_has_decided() -> None:
    core, _, turn, effects = bot_first()
    (think,) = of(effects, Think)
    # The timer fires first: nothing to do yet, and nothing asked again.
    assert core.handle(Wake("auto", 2, turn), T0 + SETTINGS.bot_think) == []
    cmd = RandomBot(turn).decide(think.view)
    effects = core.handle(BotMove(turn, 2, cmd, think.view), T0 + 2)
    assert core.state.version == 3 and of(effects, Save)


def test_a_change_during_a_bot_turn_asks_again_and_drops_the_old_decision() -> None:
    core, alice, turn, effects = bot_first()
    (old,) = of(effects, Think)
    cmd = RandomBot(turn).decide(old.view)
    assert core.handle(BotMove(turn, 2, cmd, old.view), T0 + 0.1) == []  # held
    effects = core.handle(Act(alice, Chat(text="hi")), T0 + 0.2)  # the table moves on
    (think,) = of(effects, Think)
    assert think.version == 3 and arm(effects).at == T0 + 0.2 + SETTINGS.bot_think
    # The held decision was for version 2: the new timer does not play it.
    assert core.handle(Wake("auto", 3, turn), T0 + 0.7) == []
    assert core.state.version == 3
    effects = core.handle(BotMove(turn, 3, cmd, think.view), T0 + 0.8)
    assert core.state.version == 4 and of(effects, Save)


def test_a_table_restored_mid_think_asks_the_bot_again() -> None:
    core, _, turn, _ = bot_first()
    restored = TableCore(decode_state(encode_state(core.state)), SETTINGS)
    effects = restored.start(T0 + 5)
    (think,) = of(effects, Think)
    assert (think.seat, think.version) == (turn, 2)
    assert arm(effects).at == T0 + 5 + SETTINGS.bot_think
    cmd = RandomBot(turn).decide(think.view)
    assert restored.handle(BotMove(turn, 2, cmd, think.view), T0 + 5.1) == []
    effects = restored.handle(Wake("auto", 2, turn), T0 + 5 + SETTINGS.bot_think)
    assert restored.state.version == 3 and of(effects, Save)


def test_a_broken_bot_move_falls_back_to_a_legal_one() -> None:
    core = make(seed="fallback")
    alice = Peer("Alice")
    seat(core, alice)
    core.handle(Act(alice, StartGame()), T0)
    game = core.game
    assert game is not None
    if game.deal.turn == 0:
        core.handle(Act(alice, Bid(bid="pass")), T0)
    turn = game.deal.turn
    assert turn is not None and turn != 0
    view = core.view_for(turn)
    core.handle(Wake("auto", core.state.version, turn), T0)  # its think time is over
    effects = core.handle(BotMove(turn, core.state.version, Play(card="EX"), view), T0)
    assert of(effects, Save) and game.deal.turn != turn  # it moved on all the same


def test_turn_timer_deadline_is_kept_per_decision_and_fires_for_the_seat() -> None:
    core = make(turn_timer=30.0, seed="timer")
    alice = Peer("Alice")
    seat(core, alice)
    core.handle(Act(alice, StartGame()), T0)
    now = bot_turns(core, T0, until_seat=0)
    assert core.game is not None and core.game.deal.turn == 0
    deadline = core.state.deadline
    assert deadline is not None and deadline == pytest.approx(now + 30.0)
    # Taking the seat back from another connection keeps the deadline.
    effects = core.handle(Reclaim(Peer("Alice"), "t1.secret", -1, 2), now + 6)
    assert of(effects, Answer)[0].error is None
    assert arm(effects).at == deadline and core.state.deadline == deadline
    # Restored after a restart, nobody is connected yet: the seat is away,
    # and its turn goes to a bot after grace.
    restored = TableCore(decode_state(encode_state(core.state)), SETTINGS)
    assert arm(restored.start(now + 7)).at == now + 7 + SETTINGS.grace
    # Away, then back: the decision keeps its deadline (a quit-and-resume
    # does not buy a fresh turn timer); while away, the grace comes first.
    effects = core.handle(Gone(next(iter(core.seat_of))), now + 8)
    assert arm(effects).at == now + 8 + SETTINGS.grace
    assert core.state.deadline == deadline  # still shown, still running
    effects = core.handle(Reclaim(alice, "t1.secret", -1, 3), now + 9)
    assert arm(effects).at == core.state.deadline == deadline
    # It runs out: a bot decides for the seat.
    wake = arm(effects).wake
    assert wake is not None
    effects = core.handle(wake, deadline)
    (think,) = of(effects, Think)
    assert think.seat == 0 and think.view.you == 0 and think.view.hand


def test_an_away_human_holds_the_next_deal_until_the_wait_runs_out() -> None:
    core = make(deals=2, seed="pause")
    alice = Peer("Alice")
    seat(core, alice)
    core.handle(Act(alice, StartGame()), T0)
    core.handle(Gone(alice), T0)  # let bots (after grace) play alice's seat too
    now = T0
    for _ in range(400):
        if core.state.status != "playing":
            break
        game = core.game
        assert game is not None and game.deal.turn is not None
        last = bot_plays(core, now)
        now += 1.0
    assert core.state.status == "between_deals"
    assert of(last, Record)  # the finished deal's record, kept before the save
    assert last.index(of(last, Record)[0]) < last.index(of(last, Save)[0])
    # Alice is away: not ready, and she holds the table for the wait only.
    assert core.view_for(None).ready == [1, 2, 3]
    assert core.state.next_deal_at == now - 1.0 + 60.0
    timer = arm(last)
    assert timer.at is not None and timer.at == core.state.next_deal_at
    assert timer.wake is not None and timer.wake.kind == "deal"
    effects = core.handle(timer.wake, timer.at)
    status: str = core.state.status  # (mypy narrowed it above; the wake changed it)
    assert status == "playing" and core.state.next_deal_at is None
    assert of(effects, Save)


def test_sweep_notes_humans_and_closes_an_idle_table() -> None:
    core = make()
    alice, bob = Peer("Alice"), Peer("Bob")
    seat(core, alice)
    core.handle(Join(bob, None, 2, spectator=True), T0)
    assert core.handle(Sweep(), T0 + 500) == [] and core.state.last_human_at == T0 + 500
    core.handle(Gone(alice), T0 + 600)
    assert core.handle(Sweep(), T0 + 1000) == []  # 500 s without a human: not yet
    effects = core.handle(Sweep(), T0 + 500 + SETTINGS.idle_close)
    assert core.closed and core.state.status == "closed"
    assert of(effects, Save)[0].open_ is False  # out of the store's open index
    assert Route(bob, here=False, to_lobby=True) in effects
    listing = of(effects, Listing)[-1]
    assert listing.closed and listing.code == "CODE42"
    effects = core.handle(Join(Peer("Late"), None, 3), T0 + 2000)
    assert of(effects, Answer)[0].error == "table_closed"


def test_a_table_closes_when_its_last_player_leaves_before_it_starts() -> None:
    core = make()
    alice, bob, cat = Peer("Alice"), Peer("Bob"), Peer("Cat")
    seat(core, alice)
    core.handle(Join(bob, None, 2, token="bobs"), T0)
    core.handle(Join(cat, None, 3, spectator=True), T0)
    # A dropped connection is not leaving: the seat stays held, the table open.
    core.handle(Gone(bob), T0 + 1)
    effects = core.handle(Act(alice, Leave(rid=4)), T0 + 2)
    assert not core.closed and core.state.creator == 1  # bob, away, holds his seat
    assert of(effects, Save)[0].open_ is True
    bob_again = Peer("Bob")
    assert of(core.handle(Reclaim(bob_again, "t1.bobs", -1, 5), T0 + 3), Answer)[0].error is None
    effects = core.handle(Act(bob_again, Leave(rid=6)), T0 + 4)
    assert core.closed and core.state.status == "closed"
    assert of(effects, Save)[-1].open_ is False  # out of the store's open index
    listing = of(effects, Listing)[-1]
    assert listing.closed and listing.code == "CODE42"
    assert Left(table_id="t1", reason="you left the table") in sent(effects, bob_again)
    assert Left(table_id="t1", reason="the table closed") in sent(effects, cat)
    assert Route(cat, here=False, to_lobby=True) in effects
    effects = core.handle(Join(Peer("Late"), None, 7), T0 + 5)
    assert of(effects, Answer)[0].error == "table_closed"


def test_a_game_its_last_player_leaves_closes_and_bots_do_not_play_it_on() -> None:
    core = make(deals=2)
    alice, bob = Peer("Alice"), Peer("Bob")
    seat(core, alice)
    seat(core, bob)
    core.handle(Act(alice, StartGame(rid=2)), T0)
    core.handle(Act(alice, Leave(rid=3)), T0 + 1)
    # Someone is still playing: a bot takes the seat and the game goes on.
    assert not core.closed and core.state.status == "playing"
    assert core.state.seats[0].kind == "bot"
    core.handle(Act(bob, Leave(rid=4)), T0 + 2)
    assert core.closed  # a game of bots for nobody is not played on


def test_chat_rate_follows_the_given_time() -> None:
    core = make()
    alice = Peer("Alice")
    seat(core, alice)
    assert of(core.handle(Act(alice, Chat(text="salut")), T0), Save)
    effects = core.handle(Act(alice, Chat(text="encore")), T0 + 0.5)
    assert [m.code for m in sent(effects, alice) if isinstance(m, Error)] == ["rate_limited"]
    assert of(core.handle(Act(alice, Chat(text="encore")), T0 + 1.0), Save)
    assert [line.at for line in core.state.chat] == [T0, T0 + 1.0]


def test_resume_with_last_seq_sends_only_the_missing_patches() -> None:
    core = make()
    alice = Peer("Alice")
    seat(core, alice)
    core.handle(Act(alice, StartGame()), T0)
    stream = core.fan.streams[0]
    assert stream is not None
    kept = stream.seq
    core.handle(Gone(alice), T0)
    bot_turns(core, T0, until_seat=0)
    again = Peer("Alice")
    effects = core.handle(Reclaim(again, "t1.secret", kept, 9), T0 + 20)
    patches = [m for m in sent(effects, again) if isinstance(m, TablePatch)]
    assert [p.seq for p in patches] == list(range(kept + 1, stream.seq + 1))
    assert not [m for m in sent(effects, again) if isinstance(m, TableSnapshot)]
    assert msgspec.convert(core.view_for(0), TableView) == stream.view


# -- a daily table: the rules its state's ``daily`` tag calls for -------------------

OWNER = "player-eve"
DAY = "1970-01-12"  # the UTC day of T0


def make_daily(deals: int = 1, ranked: bool = True) -> TableCore:
    state = new_state(
        "d1",
        "DAILY1",
        f"Daily {DAY}",
        now=T0,
        private=True,
        deals=deals,
        bot_level="normal",
        turn_timer=0.0,
        seed="daily-seed",
        result_wait=60.0,
    )
    assign(state, DailyMode(DailyTag(day=DAY, player=OWNER, seat=2, deals=deals, ranked=ranked)))
    core = TableCore(state, SETTINGS)
    core.start(T0)
    return core


def start_daily(core: TableCore, eve: Peer) -> None:
    effects = core.handle(Join(eve, 2, 1, creator=True, token="first", player=OWNER), T0)
    assert of(effects, Answer)[0].error is None
    core.handle(Act(eve, StartGame()), T0)
    assert core.state.status == "playing"


def play_out(core: TableCore, now: float) -> list[Effect]:
    """Every seat played by bots (the owner is away) until the game stops; the last effects."""
    last: list[Effect] = []
    for _ in range(2000):
        game = core.game
        if core.state.status != "playing" or game is None or game.deal.turn is None:
            return last
        last = bot_plays(core, now)
        now += 1.0
    raise AssertionError("the game did not end")


def test_daily_only_its_player_sits_at_its_seat_and_others_are_refused() -> None:
    core = make_daily()
    eve = Peer("Eve")
    effects = core.handle(Join(eve, None, 1, creator=True, token="first", player=OWNER), T0)
    assert of(effects, Answer)[0].error is None
    assert core.state.seats[2].kind == "human" and core.seat_of[eve] == 2  # the day's seat
    version = core.state.version
    for join in (
        Join(Peer("Mallory"), None, 5, player="player-mallory"),
        Join(Peer("Guest"), 3, 6),
        Join(Peer("Watcher"), None, 7, spectator=True, player="player-w"),
    ):
        effects = core.handle(join, T0)
        assert of(effects, Answer)[0].error == "daily_private"
        (error,) = sent(effects, join.peer)
        assert isinstance(error, Error) and error.code == "daily_private"
        assert error.rid == join.rid
        assert not of(effects, Save) and join.peer not in core.seat_of
    assert core.state.version == version and not core.fan.spectators


def test_daily_again_is_refused() -> None:
    core = make_daily()
    eve = Peer("Eve")
    start_daily(core, eve)
    core.handle(Gone(eve), T0)
    play_out(core, T0)
    assert core.state.status == "finished"
    core.handle(Reclaim(eve, "d1.first", -1, 2), T0 + 5000)
    version = core.state.version
    effects = core.handle(Act(eve, PlayAgain(rid=4)), T0 + 5000)
    (error,) = sent(effects, eve)
    assert isinstance(error, Error) and error.code == "daily_again" and error.rid == 4
    assert not of(effects, Save) and core.state.version == version
    assert core.state.status == "finished" and core.state.games_played == 0


def test_daily_leave_keeps_the_seat_and_the_player_takes_it_back_without_a_token() -> None:
    core = make_daily()
    eve = Peer("Eve")
    start_daily(core, eve)
    kept = core.state.seats[2].token_digest
    effects = core.handle(Act(eve, Leave(rid=3)), T0 + 1)
    (left,) = sent(effects, eve)
    assert isinstance(left, Left) and "waits for you" in left.reason
    assert Route(eve, here=False, to_lobby=True) in effects
    assert eve not in core.seat_of and not of(effects, Save)
    seat2 = core.state.seats[2]
    assert seat2.kind == "human" and seat2.token_digest == kept  # the attempt stays
    assert 2 in core.fan.away_seats(core.state)
    # Back from another machine: no token, the seat all the same, a new token.
    again = Peer("Eve")
    effects = core.handle(Join(again, None, 8, token="second", player=OWNER), T0 + 2)
    assert of(effects, Answer)[0].error is None and core.seat_of[again] == 2
    (seated, snapshot, *_) = sent(effects, again)
    assert isinstance(seated, Seated) and seated.seat == 2 and seated.token == "d1.second"
    assert isinstance(snapshot, TableSnapshot)
    assert of(effects, Save)  # the new token's digest is stored before anyone hears
    effects = core.handle(Reclaim(Peer("Eve"), "d1.first", -1, 9), T0 + 3)
    assert of(effects, Answer)[0].error == "bad_token"  # the old token stopped working


def test_daily_game_ends_after_its_deals_and_asks_for_the_result_after_the_save() -> None:
    core = make_daily(deals=1)
    eve = Peer("Eve")
    start_daily(core, eve)
    core.handle(Gone(eve), T0)
    last = play_out(core, T0)
    game = core.game
    assert game is not None and core.state.status == "finished"
    assert core.state.next_deal_at is None
    (done,) = of(last, GameOver)
    assert done.mode == core.mode and done.seats[2] is None  # eve is away
    assert done.table_id == "d1" and list(done.scores) == [tuple(r.scores) for r in game.results]
    assert len(done.scores) == 1
    # After the save and the views: nobody hears of the result before it is stored.
    assert last.index(of(last, Save)[0]) < last.index(done)
    assert all(last.index(s) < last.index(done) for s in of(last, Send))
    # Once finished, the table opens: another player may watch it.
    effects = core.handle(Join(Peer("Bob"), None, 4, spectator=True, player="p-bob"), T0 + 9999)
    assert of(effects, Answer)[0].error is None
    # Restored after a restart, the rules come back with the state.
    restored = TableCore(decode_state(encode_state(core.state)), SETTINGS)
    assert restored.mode == core.mode


def test_daily_result_goes_to_the_connected_player() -> None:
    core = make_daily(deals=1)
    eve = Peer("Eve")
    start_daily(core, eve)
    # Eve stays connected (the test has a bot decide her turns, too).
    last = play_out(core, T0)
    (done,) = of(last, GameOver)
    assert done.seats[2] is eve


def test_an_unfinished_daily_attempt_is_not_swept_before_its_day_closes() -> None:
    core = make_daily()
    eve = Peer("Eve")
    start_daily(core, eve)
    core.handle(Gone(eve), T0)
    assert core.handle(Sweep(), T0 + SETTINGS.idle_close + 1) == []
    assert not core.closed and core.state.status == "playing"
    week = 7 * 86400.0  # its day is long closed by then
    effects = core.handle(Sweep(), T0 + week)
    assert core.closed and of(effects, Save)[0].open_ is False


# -- table modes: the core asks the table's mode, whatever it is -----------------------

DATA = Path(__file__).resolve().parent / "data"


class Club(msgspec.Struct, frozen=True):
    """A mode the core has never heard of (registered by this test): only its
    members sit or watch, and a game is one deal."""

    members: tuple[str, ...]

    name: ClassVar[str] = "test-club"
    every_deal_counts: ClassVar[bool] = False

    @property
    def terms(self) -> Club:
        return self

    @classmethod
    def restore(cls, terms: object) -> Club:
        return msgspec.convert(terms, cls)

    def join_refusal(self, status: str, player: str | None, watching: bool) -> Refusal | None:
        return None if player in self.members else ("table_full", "members only")

    def held_seat(self, player: str | None) -> int | None:
        return None

    def kept_seat(self, status: str, seat: int) -> str | None:
        return None

    def again_refusal(self) -> Refusal | None:
        return None

    def deal_seed(self, seed: str | None, games_played: int) -> str | None:
        return seed

    def game_over(self, game: Game) -> bool:
        return len(game.results) >= 1

    def may_close(self, status: str, now: float) -> bool:
        return True


register(Club.name, Club.restore)


def test_a_registered_mode_decides_who_sits_and_what_the_game_end_asks_for() -> None:
    state = new_state(
        "c1",
        "CLUB01",
        "club table",
        now=T0,
        private=False,
        deals=3,
        bot_level="random",
        turn_timer=0.0,
        seed="club",
        result_wait=60.0,
    )
    assign(state, Club(("player-ann",)))
    core = TableCore(state, SETTINGS)
    core.start(T0)
    for join in (
        Join(Peer("Bob"), None, 5, player="player-bob"),
        Join(Peer("Watcher"), None, 6, spectator=True),
    ):
        effects = core.handle(join, T0)
        assert of(effects, Answer)[0].error == "table_full"
        (error,) = sent(effects, join.peer)
        assert isinstance(error, Error) and error.message == "members only"
        assert not of(effects, Save) and join.peer not in core.seat_of
    ann = Peer("Ann")
    effects = core.handle(Join(ann, None, 1, creator=True, token="t", player="player-ann"), T0)
    assert of(effects, Answer)[0].error is None
    core.handle(Act(ann, StartGame()), T0)
    core.handle(Gone(ann), T0)
    last = play_out(core, T0)
    game = core.game
    assert game is not None and core.state.status == "finished"
    assert len(game.results) == 1 and not game.finished  # the mode ended it, not the engine
    (done,) = of(last, GameOver)  # its end is told like any table's, to its own GameEnds
    assert done.mode == Club(("player-ann",)) and done.scores == (tuple(game.results[0].scores),)
    assert last.index(of(last, Save)[0]) < last.index(done)  # after the final save
    # The mode comes back with the state: restored, the table is still the club's.
    restored = TableCore(decode_state(encode_state(core.state)), SETTINGS)
    assert restored.mode == Club(("player-ann",))
    assert of(restored.handle(Join(Peer("Bob"), None, 7, player="p-b"), T0), Answer)[0].error


def test_a_daily_table_saved_before_modes_comes_back_as_a_daily_table() -> None:
    # Saved by the server of the commit before table modes (a daily table whose
    # state had the tag under ``daily`` and no ``mode``), after its player sat
    # down and started the game.
    state = decode_state((DATA / "daily-state-before-modes.msgpack").read_bytes())
    tag = DailyTag(day="2025-06-15", player="player-eve", seat=2, deals=2, ranked=True)
    assert state.mode == "daily" and state.status == "playing"
    now = 1_749_945_700.0
    core = TableCore(state, SETTINGS)
    core.start(now)
    assert core.mode == DailyMode(tag)
    effects = core.handle(Join(Peer("Mallory"), None, 5, player="player-mallory"), now)
    assert of(effects, Answer)[0].error == "daily_private"
    eve = Peer("Eve")  # back without her token: the daily seat is hers all the same
    effects = core.handle(Join(eve, None, 6, token="second", player="player-eve"), now)
    assert of(effects, Answer)[0].error is None and core.seat_of[eve] == 2
    core.handle(Gone(eve), now)
    last = play_out(core, now)
    while core.state.status == "between_deals":  # Eve is away: the wait runs out
        at = core.state.next_deal_at
        assert at is not None
        core.handle(Wake("deal", core.state.version), at)
        last = play_out(core, at)
    (done,) = of(last, GameOver)  # the game ends after the tag's two deals dealt
    assert done.mode == DailyMode(tag) and len(done.scores) == 2


class Before(msgspec.Struct):
    """The part of a table's state a process of the version before modes
    reads to tell a daily table (during a rolling upgrade)."""

    daily: DailyTag | None = None


def test_a_daily_table_saved_now_is_daily_for_a_process_of_the_version_before() -> None:
    core = make_daily()
    tag = DailyTag(day=DAY, player=OWNER, seat=2, deals=1, ranked=True)
    blob = encode_state(core.state)
    assert msgspec.msgpack.decode(blob, type=Before).daily == tag
    assert msgspec.msgpack.decode(encode_state(make().state), type=Before).daily is None

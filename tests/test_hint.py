"""A hint on request (issue 36): what the strong bot would do in your seat,
with a one-line reason, at casual tables only.

The core: a seated player's ``hint`` on its turn becomes an ``Advise`` with
exactly its own view; off its turn it is refused ``not_your_turn``, for a
spectator ``spectator``, and at daily and tournament tables always
``no_hints``. The reasons: every answer names a documented reason and a
legal choice. End to end: a real server over a real WebSocket answers a
player's ``hint`` at a casual table with a ``hint`` event for its rid.
"""

from __future__ import annotations

import random

from clients.session import Session
from protocol.messages import CreateTable, Error, Hint, HintAnswer, Seated, StartGame
from protocol.views import TableView
from server.bots import make_bot
from server.bots.advice import REASONS, advise, explain
from server.daily.deals import DailyTag
from server.daily.mode import DailyMode
from server.game import Game
from server.game.variant import variant_for
from server.table import Act, Join, TableCore, new_state
from server.table.effects import Advise, Answer
from server.table.modes import assign
from server.tournament.mode import TournamentMode, TournamentTag
from tests.support.bots import play_deal
from tests.support.clients import autoplay
from tests.support.servers import running, url
from tests.support.table_core import SETTINGS, T0, Peer, bot_plays, make, of, sent


def refusal(effects: list[object], peer: Peer) -> str:
    (error,) = [m for m in sent(effects, peer) if isinstance(m, Error)]  # type: ignore[arg-type]
    return error.code


def seated_core(core: TableCore, alice: Peer, player: str | None = None) -> None:
    effects = core.handle(Join(alice, 0, 1, creator=True, token="t", player=player), T0)
    assert of(effects, Answer)[0].error is None
    core.handle(Act(alice, StartGame()), T0)
    assert core.state.status == "playing"


def test_a_hint_on_your_turn_asks_the_strong_bot_with_your_own_view() -> None:
    core = make(seed="hint")
    alice, bob = Peer("Alice"), Peer("Bob")
    seated_core(core, alice)
    core.handle(Join(bob, None, 2, spectator=True), T0)
    game = core.game
    assert game is not None
    now = T0
    if game.deal.turn != 0:
        # Not yet her decision: refused, and nothing is searched.
        effects = core.handle(Act(alice, Hint(rid=7)), now)
        assert refusal(effects, alice) == "not_your_turn" and not of(effects, Advise)
    while game.deal.turn != 0:
        now += 1.0
        bot_plays(core, now)
    version = core.state.version
    effects = core.handle(Act(alice, Hint(rid=8)), now)
    (advice,) = of(effects, Advise)
    assert advice.peer is alice and advice.rid == 8
    assert advice.view == core.view_for(0)  # her own view: nothing she cannot see
    assert core.state.version == version  # nothing at the table changed
    assert refusal(core.handle(Act(bob, Hint(rid=9)), now), bob) == "spectator"


def test_no_hints_at_a_daily_or_a_tournament_table() -> None:
    for mode in (
        DailyMode(DailyTag(day="1970-01-12", player="p-eve", seat=0, deals=1, ranked=True)),
        TournamentMode(
            TournamentTag(code="TOUR", round=1, number=1, seats=("p-eve",) + (None,) * 3, deals=1)
        ),
    ):
        state = new_state(
            "d1",
            "HINT01",
            "ranked",
            now=T0,
            private=True,
            deals=1,
            bot_level="normal",
            turn_timer=0.0,
            seed="hint-seed",
            result_wait=60.0,
        )
        assign(state, mode)
        core = TableCore(state, SETTINGS)
        core.start(T0)
        eve = Peer("Eve")
        effects = core.handle(Join(eve, 0, 1, creator=True, token="t", player="p-eve"), T0)
        assert of(effects, Answer)[0].error is None
        core.handle(Act(eve, StartGame()), T0)
        game = core.game
        assert game is not None
        now = T0
        while game.deal.turn != 0:  # even on her own turn
            now += 1.0
            bot_plays(core, now)
        effects = core.handle(Act(eve, Hint(rid=3)), now)
        assert refusal(effects, eve) == "no_hints" and not of(effects, Advise), mode.name


def test_every_decision_gets_a_documented_reason_and_a_legal_choice() -> None:
    seen: set[str] = set()
    for players in (3, 4, 5):
        variant = variant_for(players)
        for d in range(6):
            game = Game(deals=1, seed=f"hint/{players}/{d}", variant=variant)
            if game.deal.phase == "annulled":
                continue

            def check(seat: int, view: TableView, command: object) -> None:
                answer = explain(view, command)  # type: ignore[arg-type]
                assert answer.reason in REASONS
                assert answer.suit in ("", "S", "H", "D", "C")
                legal = view.legal
                if answer.command == "play":
                    assert answer.choice[0] in legal.cards
                elif answer.command == "bid":
                    assert answer.choice[0] in legal.bids
                seen.add(answer.reason)

            play_deal(game, [make_bot("normal", s) for s in variant.seats], observe=check)
    # The reasons a deal's decisions meet most.
    assert {"weak_hand", "only_card", "win_trick", "cheap_card"} <= seen


def test_the_strong_bot_answers_a_legal_play_within_its_budget() -> None:
    game = Game(deals=1, seed="hint/strong", variant=variant_for(4))
    answers: list[tuple[TableView, HintAnswer]] = []

    def ask(seat: int, view: TableView, command: object) -> None:
        if seat == 0 and len(answers) < 3 and len(view.legal.cards) > 1:
            answers.append((view, advise(view, "hint/test", 0.05)))

    play_deal(game, [make_bot("normal", s) for s in range(4)], observe=ask)
    assert answers
    for view, answer in answers:
        assert answer.command == "play" and answer.choice[0] in view.legal.cards
        assert answer.reason in REASONS


async def test_a_player_asks_for_a_hint_over_the_wire() -> None:
    async with running() as server:
        s = await Session.open(url(server), "Hinter")
        await s.send(CreateTable(seed="hint-live", bot_level="normal"))
        seated = await s.wait_for(Seated)
        assert isinstance(seated, Seated) and seated.seat is not None
        await s.send(StartGame())
        asked: list[HintAnswer] = []

        async def on_view(view: TableView) -> None:
            if asked or (not view.legal.cards and not view.legal.bids):
                return
            rid = await s.send(Hint())
            answer = await s.wait_for(HintAnswer, Error)
            assert isinstance(answer, HintAnswer), answer
            assert answer.rid == rid and answer.reason in REASONS
            legal = view.legal.cards or view.legal.bids
            assert answer.choice[0] in legal
            asked.append(answer)

        await autoplay(s, random.Random(1), lambda v: bool(asked), on_view=on_view)
        await s.close()
    assert asked

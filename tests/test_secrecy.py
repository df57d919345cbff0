"""The hidden partner (five players): before the called card is played,
nothing the server sends lets anyone but the partner tell who it is.

Two worlds: a seeded five-player deal, and the same deal with the called
King swapped, between two defenders' hands (A and B), with another card of
its suit. The swap keeps each hand's suit lengths, so both worlds take the
same scripted moves (no seat plays the two swapped cards while it has a
choice). In world 1 A is the partner, in world 2 B. The table's pure core
(``TableCore``) plays both, with humans and bots at the table and a
spectator, on the same clock; every message it sends to every recipient but
A and B is encoded with both wire codecs and compared byte for byte, as are
the timers it arms (the pace of play), the bots it asks to think (the view a
bot gets, for the seats compared; for A and B, when and at which version)
and the lobby listings, until the first of the two swapped cards is played.
Then each world plays on to the end: the partner is public to all, and the
scores follow.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from protocol.cards import CARD_OF, CODES, SUIT_OF
from protocol.codec import Codec, codec_for
from protocol.messages import (
    Bid,
    Call,
    Chelem,
    Ecart,
    Event,
    GameCommand,
    Play,
    StartGame,
)
from protocol.views import TableView
from server.base.config import Settings
from server.game import Deal, Game
from server.game import game as game_module
from server.game.variant import FIVE, Variant
from server.table import Act, BotMove, Join, TableCore, Wake, new_state
from server.table.effects import Arm, Effect, Listing, Send, Think

SETTINGS = Settings(bot_think=0.5, grace=10.0, deal_pause=4.0, idle_close=900.0)
T0 = 1_000_000.0
# Every message is compared as every subprotocol writes it: protocol
# version 2 (positional, card numbers) must hide just what version 1 hides.
CODECS = [
    codec_for(sub, Event)
    for sub in ("atout.v1.json", "atout.v1.msgpack", "atout.v2.json", "atout.v2.msgpack")
]
V2 = codec_for("atout.v2.msgpack", Event)


class Peer:
    def __init__(self, name: str, codec: Codec | None = None) -> None:
        self.id = f"p-{name}"
        self.name = name
        if codec is not None:
            self.codec = codec  # the table makes its patches for this version


@dataclass
class Setup:
    """A seeded deal and the roles the script gives its seats."""

    seed: str
    dealer: int
    hands: list[list[int]]
    chien: list[int]
    taker: int
    called: int
    """The called King, in A's hand (world 1)."""
    swapped: int
    """Another card of its suit, in B's hand (world 1)."""
    a: int
    b: int

    def swapped_hands(self) -> list[list[int]]:
        hands = [list(h) for h in self.hands]
        hands[self.a] = [self.swapped if c == self.called else c for c in hands[self.a]]
        hands[self.b] = [self.called if c == self.swapped else c for c in hands[self.b]]
        return hands


def _setups() -> Iterator[Setup]:
    """Seeded five-player deals where the taker (the seat after the dealer)
    may call a King held by a defender A while another defender B holds a
    card of its suit (no petit sec)."""
    for n in range(200):
        seed = f"secrecy/{n}"
        game = Game(deals=1, seed=seed, variant=FIVE)
        deal = game.deal
        if deal.phase != "bidding":
            continue
        taker = FIVE.after(deal.dealer, 1 + n % FIVE.players)
        for king in ("KH", "KD", "KC", "KS"):
            card = CARD_OF[king]
            holders = [s for s in FIVE.seats if card in deal.dealt[s]]
            if not holders or holders[0] == taker:
                continue  # in the chien, or the taker's own
            a = holders[0]
            for b in FIVE.seats:
                if b in (a, taker):
                    continue
                same = [c for c in deal.dealt[b] if SUIT_OF[c] == SUIT_OF[card]]
                if same:
                    yield Setup(
                        seed, deal.dealer, deal.dealt, deal.chien, taker, card, same[0], a, b
                    )
                    break
            else:
                continue
            break


SETUPS = [s for s, _ in zip(_setups(), range(4), strict=False)]


def _command(view: TableView, setup: Setup) -> GameCommand:
    """The script: the same move for the same view in both worlds."""
    legal = view.legal
    seat = view.you
    if legal.bids:
        return Bid(bid="garde" if seat == setup.taker else "pass")
    if legal.calls:
        return Call(card=CODES[setup.called])
    if legal.ecart:
        suits = [c for c in legal.ecart if not c.startswith("T")]
        trumps = [c for c in legal.ecart if c.startswith("T")]
        if legal.ecart_trumps:
            return Ecart(cards=suits + trumps[: legal.ecart_trumps])
        return Ecart(cards=suits[: legal.ecart_size])
    if legal.chelem:
        return Chelem(declare=False)
    # Never the two swapped cards while there is a choice, and the called
    # suit last: the worlds stay comparable as long as can be.
    secret = {CODES[setup.called], CODES[setup.swapped]}
    suit = SUIT_OF[setup.called]
    order = sorted(legal.cards, key=lambda c: (c in secret, SUIT_OF[CARD_OF[c]] == suit))
    return Play(card=order[0])


@dataclass
class World:
    """One table of five playing ``setup``'s deal (``swapped``: world 2)."""

    setup: Setup
    swapped: bool
    monkeypatch: pytest.MonkeyPatch
    peers: dict[int, Peer] = field(default_factory=dict)
    spectator: Peer = field(default_factory=lambda: Peer("watcher", V2))
    now: float = T0
    wake: Wake | None = None
    wake_at: float = 0.0
    log: list[Effect] = field(default_factory=list)

    def __post_init__(self) -> None:
        state = new_state(
            "t5",
            "CODE55",
            "five",
            now=T0,
            private=False,
            deals=1,
            bot_level="random",
            turn_timer=0.0,
            seed=self.setup.seed,
            result_wait=0.0,
            variant=FIVE,
        )
        self.core = TableCore(state, SETTINGS)
        self.take(self.core.start(T0))
        s = self.setup
        # Humans at the taker's, A's and one other seat; bots at B's and the last.
        others = [x for x in FIVE.seats if x not in (s.taker, s.a, s.b)]
        for seat in (s.taker, s.a, others[0]):
            # The taker and A read version 2 (their hands lose cards by
            # "remove" ops), the third human version 1.
            peer = self.peers[seat] = Peer(f"seat{seat}", V2 if seat != others[0] else None)
            self.take(self.core.handle(Join(peer, seat, 1, token=f"tok{seat}"), self.now))
        self.take(
            self.core.handle(Join(self.spectator, None, 1, spectator=True, token="w"), self.now)
        )
        hands = s.swapped_hands() if self.swapped else s.hands

        def dealt(rng: random.Random, dealer: int, variant: Variant) -> Deal:
            # The deck of this world: the seeded one, or with the swap.
            assert dealer == s.dealer
            return Deal(dealer, hands, s.chien, variant)

        with self.monkeypatch.context() as m:
            m.setattr(game_module, "dealing", dealt)
            creator = self.peers[s.taker]
            assert self.core.state.creator == s.taker
            self.take(self.core.handle(Act(creator, StartGame(rid=2)), self.now))
        assert self.core.game is not None and self.core.game.deal.dealt == hands

    def take(self, effects: list[Effect]) -> list[Effect]:
        self.log.extend(effects)
        arms = [e for e in effects if isinstance(e, Arm)]
        if arms:
            self.wake, self.wake_at = arms[-1].wake, arms[-1].at or 0.0
        return effects

    @property
    def deal(self) -> Deal:
        assert self.core.game is not None
        return self.core.game.deal

    def next_move(self) -> tuple[int, GameCommand, TableView] | None:
        """Who acts next, what the script does, and the view it decided on:
        a human's turn is played at once; a bot's after its timer, from the
        view the core gives the bot."""
        seat = self.deal.turn
        if seat is None or self.core.state.status != "playing":
            return None
        if seat in self.peers:
            view = self.core.view_for(seat)
            return seat, _command(view, self.setup), view
        assert self.wake is not None and self.wake.seat == seat
        # The bot was asked when its timer was armed; its move waits for the timer.
        version = self.core.state.version
        thinks = [e for e in self.log if isinstance(e, Think)]
        assert thinks and (thinks[-1].seat, thinks[-1].version) == (seat, version)
        self.now = self.wake_at
        assert self.take(self.core.handle(self.wake, self.now)) == []
        return seat, _command(thinks[-1].view, self.setup), thinks[-1].view

    def move(self, seat: int, command: GameCommand, view: TableView) -> None:
        version = self.core.state.version
        if seat in self.peers:
            self.take(self.core.handle(Act(self.peers[seat], command), self.now))
        else:
            self.take(self.core.handle(BotMove(seat, version, command, view), self.now))
        assert self.core.state.version == version + 1, f"{command} was refused"

    def transcript(self, hidden: set[int]) -> list[tuple[str, Any]]:
        """Everything the table did that anyone outside ``hidden`` (A and B)
        can see or time: messages, encoded; timers; bots asked to think."""
        out: list[tuple[str, Any]] = []
        watchers = {p: s for s, p in self.peers.items() if s not in hidden}
        watchers[self.spectator] = -1
        for e in self.log:
            match e:
                case Send(to=to, message=message):
                    for peer in to:
                        if peer in watchers:
                            out.append((peer.id, [c.encode(message) for c in CODECS]))
                case Arm(at=at, wake=wake):
                    out.append(("arm", (at, wake)))
                case Think(seat=seat, version=version, view=view, level=level, seed=seed):
                    shown = None if seat in hidden else [c.encode(view) for c in CODECS]
                    out.append(("think", (seat, version, level, seed, shown)))
                case Listing():
                    out.append(("listing", e))
        return out


def _views(world: World) -> list[TableView]:
    core = world.core
    return [core.view_for(s) for s in FIVE.seats] + [core.view_for(None)]


def _tricks(world: World) -> int:
    return len(world.deal.tricks)


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: s.seed)
def test_nobody_but_the_partner_can_tell_who_it_is_before_the_called_card_is_played(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = World(setup, False, monkeypatch), World(setup, True, monkeypatch)
    hidden = {setup.a, setup.b}
    secret = {CODES[setup.called], CODES[setup.swapped]}
    moves = 0
    while True:
        first, second = one.next_move(), two.next_move()
        assert first is not None and second is not None
        (seat, command, view), (seat2, command2, _) = first, second
        assert seat == seat2
        if isinstance(command, Play) and (command.card in secret or command2.card in secret):
            break  # the called card (or its stand-in) is played: the secret ends here
        assert command == command2, f"the script diverged at seat {seat}"
        one.move(seat, command, view)
        two.move(seat2, command2, second[2])
        moves += 1
        for world in (one, two):
            views = _views(world)
            assert all(v.deal is None or v.deal.partner is None for v in views)
            if world.deal.phase == "call":
                # The taker calls before the chien is shown (VARIANTS.md).
                assert all(v.deal is not None and v.deal.chien == [] for v in views)
            elif world.deal.phase in ("ecart", "chelem", "play"):
                assert all(
                    v.deal is not None and len(v.deal.chien) == FIVE.chien_size for v in views
                )
    # The comparison covered the call and real play, not just the bidding.
    assert one.deal.called == two.deal.called == CODES[setup.called]
    assert _tricks(one) >= 2, f"only {_tricks(one)} tricks before the reveal ({moves} moves)"
    assert (one.deal.partner, two.deal.partner) == (setup.a, setup.b)  # the engine knows
    left, right = one.transcript(hidden), two.transcript(hidden)
    assert len(left) > 100
    differs = next((i for i, (x, y) in enumerate(zip(left, right, strict=False)) if x != y), None)
    assert differs is None, f"item {differs} differs: {left[differs]!r} / {right[differs]!r}"
    assert len(left) == len(right)
    # A snapshot now (a resume, a newcomer) says no more either.
    for seat in [*(s for s in FIVE.seats if s not in hidden), None]:
        assert [c.encode(one.core.view_for(seat)) for c in CODECS] == [
            c.encode(two.core.view_for(seat)) for c in CODECS
        ]
    # Then each world plays on: the called card's play reveals the partner
    # to every seat and the spectator, in the same patch.
    for world, partner in ((one, setup.a), (two, setup.b)):
        revealed = False
        while (step := world.next_move()) is not None:
            world.move(*step)
            views = _views(world)
            known = {v.deal.partner for v in views if v.deal is not None}
            played = (
                any(
                    CODES[setup.called] in t.cards
                    for t in (*views[0].deal.tricks, views[0].deal.trick)
                    if t is not None
                )
                if views[0].deal
                else False
            )
            if not revealed and played:
                assert known == {partner}
                revealed = True
            elif not revealed:
                assert known == {None}
        assert revealed and world.core.state.status == "finished"
        view = world.core.view_for(None)
        assert view.deal is not None and view.deal.result is not None
        result = view.deal.result
        assert result["partner"] == partner
        scores = result["scores"]
        assert sum(scores) == 0 and len(scores) == FIVE.players
        base = -scores[next(s for s in FIVE.seats if s not in (setup.taker, partner))]
        assert scores[setup.taker] == 2 * base and scores[partner] == base
        assert view.sheet[-1].partner == partner

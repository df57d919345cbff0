"""The fan-out's patches made from the move, a card played
(``Fanout._played``) or another move of a deal (``deal_moves``: a bid, the
call, the écart, the chelem, a poignée), are the very patches the full build
would give: every message of whole random games at 3, 4 and 5 seats, seats
on any of the four subprotocols and a spectator,
with and without a turn timer, chat, spectators joining and a seat leaving
and coming back mid-trick, is checked against the diff of views built anew; and every
save's blob against the state's encoding (``StateWriter``)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import SUBPROTOCOLS, codec_for
from protocol.diff import diff
from protocol.messages import (
    Chat,
    Chelem,
    Event,
    Play,
    Seated,
    StartGame,
    TablePatch,
    TableSnapshot,
)
from protocol.views import Legal, TableView
from server.base.config import Settings
from server.game.variant import VARIANTS
from server.table import Act, Gone, Join, Reclaim, TableCore, Wake, new_state
from server.table.effects import Arm, Effect, Send
from server.table.fanout import OWN_FIELDS, PUBLIC_FIELDS, encode_patch
from server.table.last import GAME_FIELDS, TABLE_FIELDS
from server.table.state import StateWriter, TableState, encode_state
from server.table.stream import Stream
from tests.support.clients import choose

SETTINGS = Settings(bot_think=0.5, grace=10.0, deal_pause=4.0, idle_close=900.0, chat_rate=100.0)
T0 = 1_000_000.0


class Peer:
    def __init__(self, name: str, subprotocol: str) -> None:
        self.id = f"p-{name}"
        self.name = name
        self.codec = codec_for(subprotocol, Event)


def test_every_view_field_is_public_table_public_game_or_own() -> None:
    # A field added to TableView must be placed: the quick patch of a card
    # played reuses every field it does not know to change (TABLE_FIELDS are
    # compared, GAME_FIELDS rebuilt from the deal).
    fields = set(TableView.__struct_fields__)
    assert set(TABLE_FIELDS) | set(GAME_FIELDS) | set(OWN_FIELDS) == fields
    assert set(TABLE_FIELDS) | set(GAME_FIELDS) == set(PUBLIC_FIELDS)
    # The legal moves' ops after a card (own_ops.legal_ops) name these: a
    # field added to Legal must be looked at there too.
    assert Legal.__struct_fields__ == (
        "bids", "cards", "ecart", "ecart_size", "ecart_trumps", "chelem", "calls",
        "poignee_sizes", "poignee_cards",
    )  # fmt: skip


class _CheckedWriter(StateWriter):
    """The save's blob, from the results and log kept encoded, is the
    state's encoding byte for byte, at every save."""

    def __init__(self) -> None:
        super().__init__()
        self.saves = 0

    def encode(self, st: TableState) -> bytes:
        blob = super().encode(st)
        assert blob == encode_state(st)
        self.saves += 1
        return blob


def _expected(old: TableView, new: TableView, removes: bool) -> list[Any]:
    return diff(old, new, only=PUBLIC_FIELDS) + diff(old, new, only=OWN_FIELDS, removes=removes)


def _same_bytes(message: TablePatch, stream: Stream | None, expected: list[Any]) -> None:
    """A patch made from the move (``MadePatch``, its encodings joined from
    its ops') is encoded in every format as the ops of the full build's diff
    (``expected``: the same values, the same keys in the same order), and
    kept for resumes as ``encode_patch`` would keep them."""
    plain = TablePatch(seq=message.seq, patch=expected)
    for sub in SUBPROTOCOLS:
        codec = codec_for(sub, Event)
        assert codec.encode(message) == codec.encode(plain), sub
    if stream is not None and stream.patches and stream.seq == message.seq:
        assert stream.patches[-1] == encode_patch(plain.patch)


def _play(
    players: int, seed: int, timer: float, subprotocols: list[str], moves: int
) -> tuple[int, int, int, int]:
    """Plays, checking every message; (cards sent from the move, cards
    played, other moves of a deal sent from the move, other moves made)."""
    state = new_state(
        "t1", "CODE42", "fan", now=T0, private=True, deals=2, bot_level="random",
        turn_timer=timer, seed=f"fan/{seed}", result_wait=0.0, variant=VARIANTS[players],
    )  # fmt: skip
    core = TableCore(state, SETTINGS)
    peers = [Peer(f"s{i}", subprotocols[i]) for i in range(players)]
    versions = [2 if sub.startswith("atout.v2.") else 1 for sub in subprotocols]
    watcher = Peer("w", "atout.v2.json")
    tokens = [f"tok{i}" for i in range(players)]
    arm: list[Arm] = []
    # What each recipient was last shown, built anew, by peer.
    shown: dict[Any, TableView] = {}
    recipients: dict[Any, int | None] = {p: i for i, p in enumerate(peers)}
    recipients[watcher] = None  # (None: a spectator)
    core.writer = writer = _CheckedWriter()

    def take(effects: list[Effect]) -> None:
        got: dict[Any, list[object]] = {}
        for e in effects:
            if isinstance(e, Send):
                for p in e.to:
                    got.setdefault(p, []).append(e.message)
                    who = recipients[p]
                    if isinstance(e.message, Seated) and e.message.token and who is not None:
                        tokens[who] = e.message.token
            elif isinstance(e, Arm):
                arm[:] = [e] if e.wake is not None else []
        for peer, messages in got.items():
            who = recipients[peer]
            now_view = core.view_for(who)
            table = [m for m in messages if isinstance(m, TablePatch | TableSnapshot)]
            for k, message in enumerate(table):
                if isinstance(message, TableSnapshot):
                    # A spectator joining gets the spectators' last view,
                    # then the patch of its joining: only the last is now.
                    if k == len(table) - 1:
                        assert message.view == now_view
                    shown[peer] = message.view
                    continue
                assert k == len(table) - 1  # one patch a change, last
                v2 = who is not None and versions[who] >= 2
                expected = _expected(shown[peer], now_view, removes=v2)
                assert message.patch == expected, (who, message.patch, expected)
                _same_bytes(message, core.fan.streams[who] if who is not None else None, expected)
                shown[peer] = now_view

    now = T0
    take(core.start(now))
    for i, p in enumerate(peers):
        take(core.handle(Join(p, i, 1, token=tokens[i]), now))
    take(core.handle(Join(watcher, None, 1, spectator=True), now))
    take(core.handle(Act(peers[0], StartGame(rid=2)), now))
    rng = random.Random(seed)
    away: int | None = None
    cards = others = 0
    for _ in range(moves):
        now += 1.0
        game = core.game
        roll = rng.random()
        if roll < 0.03:
            take(core.handle(Act(peers[rng.randrange(players)], Chat(text="hi")), now))
            continue
        if roll < 0.05 and away is None:
            away = rng.randrange(players)
            take(core.handle(Gone(peers[away]), now))
            continue
        seat = game.deal.turn if game is not None and core.state.status == "playing" else None
        if 0.05 <= roll < 0.06 and len(recipients) < players + 3:
            # Another spectator, mid-trick as often as not (the quick path
            # must go on for the others, from the view they were shown).
            joining = Peer(f"w{len(recipients)}", "atout.v1.msgpack")
            recipients[joining] = None
            take(core.handle(Join(joining, None, 1, spectator=True), now))
            continue
        if away is not None and (roll < 0.08 or seat == away):
            peers[away] = Peer(f"s{away}b", peers[away].codec.subprotocol)
            recipients[peers[away]] = away
            take(core.handle(Reclaim(peers[away], tokens[away], -1, 3), now))
            away = None
            continue
        if seat is not None:
            command = choose(core.view_for(seat), rng)
            if isinstance(command, Chelem):
                command = Chelem(declare=rng.random() < 0.3)  # (choose never declares)
            cards += isinstance(command, Play)
            others += not isinstance(command, Play)
            take(core.handle(Act(peers[seat], command), now))
        elif arm and isinstance(wake := arm[0].wake, Wake):
            now = max(now, arm.pop().at or now)
            take(core.handle(wake, now))
        else:
            break
    assert writer.saves > cards
    fan = core.fan
    return fan.quick - fan.quick_other, cards, fan.quick_other, others


@settings(max_examples=12, deadline=None)
@given(
    players=st.sampled_from([3, 4, 5]),
    seed=st.integers(min_value=0, max_value=2**32),
    timer=st.sampled_from([0.0, 30.0]),
    subprotocols=st.lists(st.sampled_from(SUBPROTOCOLS), min_size=5, max_size=5),
)
def test_a_move_is_patched_as_the_full_build_would(
    players: int, seed: int, timer: float, subprotocols: list[str]
) -> None:
    quick, cards, other_quick, others = _play(players, seed, timer, subprotocols, moves=260)
    # The paths from the move were taken, not only the full build.
    assert quick > cards // 3
    assert other_quick > others // 3


def test_most_moves_take_a_path_from_the_move() -> None:
    # All but the last card of a deal, unless a chat line or a seat leaving
    # came meanwhile; and the bids, the call, the écart, the chelem and the
    # poignées (the last bid too: it changes only the deal and the taker's
    # hand), but not the timer's next deal.
    for players in (3, 4, 5):
        subs = [
            "atout.v2.msgpack",
            "atout.v1.msgpack",
            "atout.v2.json",
            "atout.v1.json",
            "atout.v2.msgpack",
        ]
        quick, cards, other_quick, others = _play(players, 7, 0.0, subs, moves=400)
        assert quick > cards * 0.9
        assert other_quick > others * 0.7, (players, other_quick, others)

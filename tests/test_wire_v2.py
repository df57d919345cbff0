"""Protocol version 2 (protocol/positional.py, docs/PROTOCOL.md §13): whole
games read the same as in version 1, in a fraction of the bytes; the format
follows the view structs wherever a field is added; what does not parse
asks for a snapshot; a seat back on version 1 gets no op it cannot read."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from clients.sync import Sync
from protocol.codec import Codec, codec_for, new_codec
from protocol.diff import Op, Patch, PatchError, apply, diff
from protocol.messages import Event, Seated, StartGame, TablePatch, TableSnapshot, Welcome
from protocol.positional import TableReader, TableWire, schema_of
from protocol.views import CardCode, SeatView, TableView
from server.base.config import Settings
from server.table import Act, Join, Reclaim, TableCore, Wake, new_state
from server.table.effects import Arm, Effect, Send
from tests.support.clients import choose

SETTINGS = Settings(bot_think=0.5, grace=10.0, deal_pause=4.0, idle_close=900.0)
T0 = 1_000_000.0
SUBPROTOCOLS = ("atout.v2.msgpack", "atout.v2.json")


class Peer:
    def __init__(self, name: str, codec: Codec) -> None:
        self.id = f"p-{name}"
        self.name = name
        self.codec = codec


class Client:
    """One recipient: a version 2 codec of its own (it read the welcome), a
    typed view through the version 1 machinery, and the positional document."""

    def __init__(self, subprotocol: str) -> None:
        self.server_codec = codec_for(subprotocol, Event)
        self.codec = new_codec(subprotocol, Event)
        welcome = self.server_codec.encode(Welcome(version=2, session="s"))
        assert isinstance(self.codec.decode(welcome), Welcome)
        self.reader = TableReader(msgspec.json.decode(msgspec.json.encode(schema_of())))
        self.sync: Sync[TableView, Any, Patch] = Sync(apply, apply)
        self.doc: Any = None
        self.bytes = 0
        self.token = ""

    def take(self, message: object) -> int:
        data = self.server_codec.encode(message)
        size = len(data)
        self.bytes += size
        got = self.codec.decode(data)
        raw = msgspec.json.decode(data) if isinstance(data, str) else msgspec.msgpack.decode(data)
        if isinstance(got, Seated) and got.token:
            self.token = got.token
        if isinstance(got, TableSnapshot):
            self.sync.on_table(got.seq, got.view, got.view.you)
            self.doc = raw["view"]
        elif isinstance(got, TablePatch):
            assert not self.sync.on_tpatch(got.seq, got.patch), "a patch did not fit"
            seq, ops = self.reader.ops(raw)
            assert seq == got.seq
            self.doc = self.reader.apply(self.doc, ops)
        return size


def _play(seed: str, subprotocol: str, moves: int) -> tuple[list[Client], TableCore, list[int]]:
    state = new_state(
        "t1", "CODE42", "v2", now=T0, private=True, deals=3, bot_level="random",
        turn_timer=0.0, seed=seed, result_wait=0.0,
    )  # fmt: skip
    core = TableCore(state, SETTINGS)
    clients = [Client(subprotocol) for _ in range(4)]
    peers = [Peer(f"s{i}", clients[i].server_codec) for i in range(4)]
    by_peer = dict(zip(peers, clients, strict=True))
    card_bytes: list[int] = []  # what a card played cost the four seats
    arm: list[Arm] = []

    def take(effects: list[Effect], card: bool = False) -> None:
        total = 0
        for e in effects:
            if isinstance(e, Send):
                for p in e.to:
                    total += by_peer[p].take(e.message)  # type: ignore[index]
            elif isinstance(e, Arm) and e.wake is not None:
                arm[:] = [e]
        if card:
            card_bytes.append(total)

    now = T0
    take(core.start(now))
    for i, p in enumerate(peers):
        take(core.handle(Join(p, i, 1, token=f"tok{i}"), now))
    take(core.handle(Act(peers[0], StartGame(rid=2)), now))
    rng = random.Random(seed)
    for _ in range(moves):
        now += 1.0
        for i, p in enumerate(peers):
            view = core.view_for(i)
            deal = view.deal
            if view.status == "playing" and deal is not None and deal.turn == i:
                command = choose(view, rng)
                if command is not None:
                    take(core.handle(Act(p, command), now), card=deal.phase == "play")
                    break
        else:
            if arm and isinstance(arm[0].wake, Wake):
                wake, at = arm.pop().wake, arm[0].at if arm else None
                now = max(now, at or now)
                take(core.handle(wake, now))  # type: ignore[arg-type]
        for i, c in enumerate(clients):
            view = core.view_for(i)
            assert c.sync.table.view == view  # the version 1 form, through names
            assert c.reader.view(c.doc) == msgspec.to_builtins(view)  # the arrays
    return clients, core, card_bytes


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("seed", ["w1", "w2"])
def test_whole_games_read_the_same_as_version_1_in_a_few_bytes(seed: str, subprotocol: str) -> None:
    _clients, _core, card_bytes = _play(seed, subprotocol, 400)
    assert len(card_bytes) > 100  # many cards played, over deals
    per_card = sum(card_bytes) / len(card_bytes)
    # Colyseus sends 108 bytes to the four clients per card (docs/LOAD.md):
    # version 2 in MessagePack must not send more, JSON at most twice that.
    assert per_card <= (108 if subprotocol.endswith("msgpack") else 216), per_card


def test_a_card_played_is_twelve_bytes_for_a_seat_that_only_watches_it() -> None:
    wire = TableWire()
    ops = [
        Op(("seats", 2, "cards"), "set", 11),
        Op(("deal", "turn"), "set", 3),
        Op(("deal", "trick", "cards"), "append", ["T14"]),
    ]
    data = wire.patch(812, ops, True)
    assert len(data) == 12  # 3 of them the seq
    reader = TableReader(wire.schema)
    seq, raw = reader.ops(msgspec.msgpack.decode(data))
    assert (seq, reader.patch(raw)) == (812, ops)


class Inner(msgspec.Struct, kw_only=True):
    seat: int
    card: CardCode | None = None
    cards: list[CardCode] = msgspec.field(default_factory=list)


class Root(msgspec.Struct, kw_only=True):
    name: str
    inner: Inner | None = None
    added: int = 0  # "a field someone added in between"
    items: list[Inner] = msgspec.field(default_factory=list)
    result: dict[str, Any] | None = None
    hand: list[CardCode] = msgspec.field(default_factory=list)


ROOTS = [
    Root(name="a"),
    Root(name="a", inner=Inner(seat=1, card="KS"), hand=["1S", "T21", "EX"]),
    Root(name="b", inner=Inner(seat=2, cards=["T1"]), added=3, hand=["1S", "EX"]),
    Root(name="b", items=[Inner(seat=0), Inner(seat=1, cards=["QH"])], result={"x": [1]}),
    Root(name="b", items=[Inner(seat=0), Inner(seat=1, cards=["QH", "CD"])], result={"x": [1, 2]}),
    Root(name="b", items=[Inner(seat=3)], result={"y": {"z": 1}}),
]


@pytest.mark.parametrize("binary", [True, False])
def test_any_struct_of_views_goes_through_and_back_whatever_its_fields(binary: bool) -> None:
    wire = TableWire(Root)
    # The schema travels as JSON or msgpack: the reader knows nothing else.
    reader = TableReader(msgspec.json.decode(msgspec.json.encode(wire.schema)))
    for old in ROOTS:
        for new in ROOTS:
            patch = diff(old, new, removes=True)
            data = wire.patch(7, patch, binary)
            raw = msgspec.msgpack.decode(data) if binary else msgspec.json.decode(data)
            seq, ops = reader.ops(raw)
            assert seq == 7
            assert apply(old, reader.patch(ops)) == new
            doc = wire.view(msgspec.to_builtins(old))
            assert reader.view(reader.apply(doc, ops)) == msgspec.to_builtins(new)


@pytest.mark.parametrize(
    "frame",
    [
        b"\x92\xcd\x03\x2c\xcd\x10\x00",  # [812, 4096]: no such template
        b"\x92\xcd\x03\x2c\x04",  # [812, 4]: template 0 wants a seat and a value
        b"\x93\xcd\x03\x2c\x04\xa1x",  # a string where an index goes
    ],
)
def test_a_patch_that_does_not_parse_asks_for_a_snapshot(frame: bytes) -> None:
    codec = new_codec("atout.v2.msgpack", Event)
    got = codec.decode(frame)
    assert isinstance(got, TablePatch) and got.seq == 812
    sync: Sync[TableView, Any, Patch] = Sync(apply, apply)
    sync.on_table(811, TableView(table_id="t", name="n"), None)
    assert sync.on_tpatch(got.seq, got.patch) == [{"t": "snapshot"}]
    with pytest.raises(PatchError):
        TableReader(schema_of()).ops([*msgspec.msgpack.decode(frame)[:1], 4096])


def test_a_seat_back_on_version_1_after_a_remove_gets_a_snapshot() -> None:
    clients, core, _ = _play("w3", "atout.v2.msgpack", 40)
    seat = next(i for i in range(4) if len(core.view_for(i).hand) < 18)
    last = clients[seat].sync.table.seq - 6  # the cards played since among them
    # On version 2 the seat gets just the patches it missed.
    v2 = Peer("back", codec_for("atout.v2.msgpack", Event))
    effects = core.handle(Reclaim(v2, clients[seat].token, last, 9), T0 + 1000)
    sent = [e.message for e in effects if isinstance(e, Send) and v2 in e.to]
    assert not any(isinstance(m, TableSnapshot) for m in sent)
    missed = [op.op for m in sent if isinstance(m, TablePatch) for op in m.patch]
    assert "remove" in missed
    # On version 1 it cannot read them: a snapshot instead.
    v1 = Peer("again", codec_for("atout.v1.msgpack", Event))
    effects = core.handle(Reclaim(v1, clients[seat].token, last, 10), T0 + 1001)
    sent = [e.message for e in effects if isinstance(e, Send) and v1 in e.to]
    assert any(isinstance(m, TableSnapshot) for m in sent)
    assert not any(isinstance(m, TablePatch) for m in sent)


def test_a_negative_index_is_refused_not_read_from_the_end() -> None:
    reader = TableReader(schema_of())
    doc = reader_doc()
    for op in ([4, -1, 3], [0, [9, -1, 6], 3], [0, [9, 0, 6], 3]):
        _, ops = reader.ops([5, *op])
        if op[-2] == [9, 0, 6]:
            assert reader.apply(doc, ops)[9][0][6] == 3  # the same op with 0 fits
        else:
            with pytest.raises(PatchError):
                reader.apply(doc, ops)


def reader_doc() -> Any:
    wire = TableWire()
    view = TableView(table_id="t", name="n", seats=[SeatView(seat=0, cards=18)])
    return wire.view(msgspec.to_builtins(view))

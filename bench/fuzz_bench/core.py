"""The core campaign: the tables campaign's episodes against ``TableCore``
alone, with a driver standing in for the front and the actor."""

from __future__ import annotations

import itertools
import json
import random
import sys
import time
from typing import Any, cast

import msgspec

from bench.fuzz_bench.players import Player
from bench.fuzz_bench.settings import table_settings
from bench.fuzz_bench.tables import Episode
from bench.fuzz_bench.tally import Tally
from bench.fuzz_bench.wire import Wire, plain, subprotocol_for
from protocol.codec import DecodeError, codec_for
from protocol.messages import Command, Error, History, JoinTable, Ping, Pong, Resume, Watch
from server.table import Act, Gone, Join, Message, Reclaim, TableCore, Wake, new_state
from server.table.effects import Close, Effect, Log, Record, Save, Send, SendHistory, Think


class CorePeer:
    """A connection as the core sees it (``server.table.inbox.Peer``)."""

    __slots__ = ("codec", "id", "name")

    def __init__(self, id: str, name: str, kind: str) -> None:
        self.id = id
        self.name = name
        # The core makes a seat's patches for its peer's protocol version.
        self.codec = codec_for(subprotocol_for(kind), Command)


class CorePlayer(Player):
    """A ``Player`` whose wire is a ``CoreEpisode``: what it sends is encoded
    and decoded by the server's codec and handed to the core; what the core
    sends it is encoded and decoded back to plain data, as a client gets it."""

    def __init__(self, name: str, kind: str, seat: int | None, ep: CoreEpisode) -> None:
        super().__init__(name, kind, seat)
        self.ep = ep
        self.peer: CorePeer | None = None

    async def connect(self, port: int) -> None:
        self.peer = CorePeer(f"k{next(self.ep.ids)}", self.name, self.kind)
        self.ep.by_peer[self.peer] = self

    async def transmit(self, doc: dict[str, Any], at_once: bool = False) -> None:
        self.ep.queue.append((self, doc))
        if at_once:
            self.ep.flush()

    async def drop(self) -> None:
        if self.peer is not None:
            self.ep.flush()
            self.ep.gone(self.peer)
        self.peer = None


class CoreEpisode(Episode):
    """An ``Episode`` (same steps, same checks) against ``TableCore.handle``
    with no server, socket or event loop work in between: the driver plays
    the front (decoding, ``already_seated`` for a resume or watch from a
    connection at the table) and the actor (carrying out the effects: sends,
    records, history), with a clock that moves a random fraction of a second
    a step. What it does not cover is what the ``tables`` campaign adds: the
    front's own code, the actor, the inbox and real sockets."""

    def __init__(self, rng: random.Random, tally: Tally, label: str) -> None:
        super().__init__(None, rng, tally, label)
        self.ids = itertools.count(1)
        self.by_peer: dict[CorePeer, CorePlayer] = {}
        self.queue: list[tuple[CorePlayer, dict[str, Any]]] = []
        self.records: list[bytes] = []
        self.record_keys: set[str] = set()
        self.saved_version = -1
        self.now = 1_000_000.0
        self.settings = table_settings()
        kinds = [p.kind for p in self.players]
        self.players = [CorePlayer(f"P{i}", kinds[i], i, self) for i in range(4)]
        self.spectators = [
            CorePlayer("S0", "v2.msgpack", None, self),
            CorePlayer("S1", "json", None, self),
        ]

    @property
    def core(self) -> TableCore:
        assert isinstance(self.table, TableCore)
        return self.table

    @property
    def port(self) -> int:
        return 0

    async def setup(self) -> None:
        rng = self.rng
        state = new_state(
            rng.randbytes(4).hex(),
            "FUZZED",
            "fuzz",
            now=self.now,
            private=True,
            deals=rng.choice([1, 2, 3]),
            bot_level="random",
            turn_timer=0.0,
            seed=f"fuzz-{self.label}",
            result_wait=self.settings.result_wait,
        )
        self.table = TableCore(state, self.settings)
        self.run(self.table.start(self.now))
        for p in self.everyone:
            await p.connect(0)
        for p in self.players:
            seated = await p.ask({"t": "join", "table_id": self.table.id, "seat": p.seat})
            assert seated["t"] == "seated", seated
            p.token = seated["token"]
        for s in self.spectators:
            seated = await s.ask({"t": "watch", "table_id": self.table.id})
            assert seated["t"] == "seated", seated
        await self.players[0].send({"t": "start"})
        await self.sync(self.players[0])

    async def close(self) -> None:
        self.queue.clear()

    async def sync(self, via: Player) -> None:
        # Nothing is in flight: each input is carried out when it is handed
        # over. The history request stays: it is a table command of the mix.
        self.flush()
        await via.ask({"t": "history"})

    async def deal_timer(self) -> None:
        self.handle(Wake("deal", self.core.state.version))

    async def step(self) -> None:
        self.now += self.rng.random() * 0.5
        await super().step()

    # -- the front and the actor, as far as the core needs them -------------------

    def flush(self) -> None:
        while self.queue:
            p, doc = self.queue.pop(0)
            if p.peer is not None:
                self.command_in(p, p.peer, doc)

    def command_in(self, p: CorePlayer, peer: CorePeer, doc: dict[str, Any]) -> None:
        codec = codec_for(subprotocol_for(p.kind), Command)
        try:
            cmd = codec.decode(Wire.encode(cast(Wire, p), doc))
        except DecodeError as e:
            self.deliver(peer, Error(code=e.code, message=e.message))
            return
        rid = getattr(cmd, "rid", 0)
        at_table = peer in self.core.seat_of
        match cmd:
            case Ping():
                self.deliver(peer, Pong(rid=rid))
            case Resume() | Watch() | JoinTable() if at_table:
                self.deliver(peer, Error(code="already_seated", message="leave first", rid=rid))
            case Resume():
                self.handle(Reclaim(peer, cmd.token, cmd.last_seq, rid))
            case Watch():
                self.handle(Join(peer, None, rid, spectator=True))
            case JoinTable():
                self.handle(Join(peer, cmd.seat, rid, creator=p is self.players[0]))
            case _:
                self.handle(Act(peer, cast(Any, cmd)))

    def handle(self, msg: Message) -> None:
        self.run(self.core.handle(msg, self.now))

    def gone(self, peer: CorePeer) -> None:
        self.by_peer.pop(peer, None)
        self.handle(Gone(peer))

    def deliver(self, peer: Any, message: Any) -> None:
        p = self.by_peer.get(peer)
        if p is None:
            return  # a connection that is gone
        data = codec_for(subprotocol_for(p.kind), Command).encode(message)
        p.take(plain(data, p.events))

    def run(self, effects: list[Effect]) -> None:
        closing = []
        for e in effects:
            match e:
                case Send(to=to, message=message):
                    for peer in to:
                        self.deliver(peer, message)
                case Save(version=version):
                    if version <= self.saved_version:
                        self.fail("a save did not move the version on", version=version)
                    self.saved_version = version
                case Record(blob=blob, key=key):
                    if key not in self.record_keys:  # as TableStore.append_record
                        self.record_keys.add(key)
                        self.records.append(blob)
                case SendHistory(peer=peer, rid=rid):
                    records = [msgspec.json.decode(r) for r in self.records]
                    self.deliver(peer, History(records=records, rid=rid))
                case Close(peer=peer):
                    closing.append(peer)
                case Log(level="error") | Think():
                    self.fail("the core asked for what it must not here", effect=repr(e)[:300])
                case _:
                    pass  # Arm, Listing, Route, Answer, Refused, Log: the actor's business
        for peer in closing:
            if peer in self.by_peer:
                self.gone(peer)


async def run_core(
    runs: int, seed: int, steps: int, max_time: float, stop_on_failure: bool
) -> Tally:
    """The tables campaign's episodes against ``TableCore`` alone (no server)."""
    tally = Tally()
    deadline = time.monotonic() + max_time
    episode_no = 0
    while tally.inputs < runs and time.monotonic() < deadline:
        episode_no += 1
        ep = CoreEpisode(random.Random(f"core/{seed}/{episode_no}"), tally, f"{seed}-{episode_no}")
        await ep.setup()
        for _ in range(min(steps, runs - tally.inputs)):
            await ep.step()
            if stop_on_failure and tally.outcomes["FAILURE"]:
                return tally
        await ep.close()
        if tally.inputs // 50_000 != (tally.inputs - steps) // 50_000:
            print(json.dumps(tally.report()), file=sys.stderr, flush=True)
    return tally

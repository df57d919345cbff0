"""The two stand-ins that let a connection on one process sit at a table on another.

``RemotePeer`` is what a table owned here sees of a connection held by
another process (its "origin"): a ``Conn`` look-alike whose sends, closes and
routes go into the ``Outbox``, flushed as one ``Batch`` publish per origin per
loop turn, in order (the bytes are the ones ``send_to_all`` already encoded
once per codec).

``RemoteTable`` is what the front and the lobby here see of a table owned by
another process: something with an ``inbox``, like a ``Table``. Each message
put on it becomes a bus message to the owner. It also remembers how each of
its connections sits (the token, or watching), so that when the owner
changes (a takeover after a crash, or a drain) it re-attaches them to the
new owner: the client gets ``seated`` and a snapshot again, and stays
connected. Messages meanwhile wait (``held``) and follow the re-attach.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import msgspec

from protocol.codec import Codec
from protocol.messages import Command, Error
from server.base import metrics
from server.cluster.bus import Away, Batch, Do, Item, Message, Out, Routed, Shut, Sit
from server.table.inbox import Act, Gone, InboxItem, Join, Reclaim

if TYPE_CHECKING:
    from server.base.players import Player
    from server.link.conn import Conn

HELD_MAX = 1024
"""Most messages a moving table keeps for its new owner (beyond: dropped)."""
HELD_PER_CONN = 16
"""Most commands it keeps per connection: a connection that floods a moving
table (20 frames a second for the seconds a takeover takes) loses its own
extra commands, never another player's move."""

encode_command = msgspec.msgpack.Encoder().encode


class Outbox:
    """What a process sends to other processes' connections, per origin, per loop turn."""

    def __init__(self, publish: Callable[[str, Message], None]) -> None:
        self._publish = publish
        self._items: dict[str, list[Item]] = {}
        self._scheduled = False

    def add(self, origin: str, item: Item) -> None:
        items = self._items.get(origin)
        if items is None:
            items = self._items[origin] = []
        items.append(item)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._scheduled = False
        out, self._items = self._items, {}
        for origin, items in out.items():
            self._publish(origin, Batch(items))


class RemotePeer:
    """A connection held by process ``origin``, as a table owned here sees it."""

    __slots__ = ("closed", "codec", "conn", "id", "name", "origin", "outbox", "player", "table")

    def __init__(
        self, origin: str, conn: str, name: str, codec: Codec, table: str, outbox: Outbox
    ) -> None:
        self.origin = origin
        self.conn = conn
        self.id = f"{origin}/{conn}"
        self.name = name
        self.codec = codec
        self.table = table
        self.outbox = outbox
        self.closed = False
        self.player: Player | None = None

    def send(self, msg: Any) -> None:
        self.send_raw(self.codec.encode(msg))

    def send_raw(self, data: bytes | str) -> None:
        if self.closed:
            return
        if isinstance(data, str):
            self.outbox.add(self.origin, Out(self.conn, data.encode(), text=True))
        else:
            self.outbox.add(self.origin, Out(self.conn, data))

    def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.outbox.add(self.origin, Shut(self.conn, code, reason))

    def route(self, here: bool, to_lobby: bool) -> None:
        self.outbox.add(self.origin, Routed(self.conn, self.table, here, to_lobby))


@dataclass(slots=True)
class Sitting:
    """How a connection sits at a remote table, to re-attach it elsewhere."""

    token: str | None
    """The seat's whole resume token; None: watching."""
    recent: deque[bytes | str]
    """The last frames it was sent (to find the last ``seq`` it saw)."""
    unanswered: Command | None = None
    """Its last command, while nothing came back from the owner since it was
    sent: an owner that dies may have taken it off the bus and never played
    it, so a re-attach sends it again (a command played already is refused,
    changing nothing)."""


class RemoteTable:
    """A table owned by process ``owner`` (None: being looked for), seen from here."""

    def __init__(self, table_id: str, owner: str | None, node: RemoteHome) -> None:
        self.id = table_id
        self.owner = owner
        self.node = node
        self.closed = False
        self.sitting: dict[Conn, Sitting] = {}
        self.pending: dict[Conn, Join | Reclaim] = {}
        """Joins and reclaims sent, waiting for the owner's answer."""
        self.held: list[InboxItem] = []
        self.forward: Any = None
        """The table here that took over (messages go to its inbox from then on)."""

    @property
    def inbox(self) -> RemoteTable:
        return self

    def put_nowait(self, msg: InboxItem) -> None:
        if self.forward is not None:
            self.forward.inbox.put_nowait(msg)
            return
        if self.owner is None:
            self._hold(msg)
            return
        match msg:
            case Join() | Reclaim():
                self._sit(msg)
            case Act(peer=peer, command=command):
                how = self.sitting.get(cast("Conn", peer))
                if how is not None:
                    how.unanswered = command
                self._send(Do(self.id, self.node.proc, peer.id, encode_command(command)))
            case Gone(peer=peer):
                conn = cast("Conn", peer)
                self.sitting.pop(conn, None)
                self.pending.pop(conn, None)
                self._send(Away(self.id, self.node.proc, peer.id))
                self.node.forget(conn, self)
            case _:
                pass  # timers and sweeps are the owner's

    def _hold(self, msg: InboxItem) -> None:
        """Keep ``msg`` for the owner being looked for."""
        if isinstance(msg, Gone):
            # Settled here, never dropped: the new owner re-attaches only the
            # connections still sitting, so one that left is simply not among
            # them (and what it said meanwhile goes nowhere).
            conn = cast("Conn", msg.peer)
            self.sitting.pop(conn, None)
            said = [m for m in self.held if getattr(m, "peer", None) is msg.peer]
            self.held = [m for m in self.held if getattr(m, "peer", None) is not msg.peer]
            for joining in [self.pending.pop(conn, None), *said]:
                if isinstance(joining, Join | Reclaim):
                    _answer(joining)  # nobody left to tell; its handler must not wait
            self.node.forget(conn, self)
            return
        if isinstance(msg, Join | Reclaim):
            if len(self.held) < HELD_MAX:
                self.held.append(msg)
            else:
                # Never dropped: its connection's handler waits for the answer.
                unavailable(msg, "the table is moving to another server; try again")
            return
        if isinstance(msg, Act):
            mine = sum(1 for m in self.held if isinstance(m, Act) and m.peer is msg.peer)
            if mine >= HELD_PER_CONN or len(self.held) >= HELD_MAX:
                return  # the sender's own excess (its client is flooding)
        self.held.append(msg)

    def _send(self, msg: Message) -> None:
        assert self.owner is not None
        self.node.publish(self.owner, msg)

    def _sit(self, msg: Join | Reclaim) -> None:
        conn = cast("Conn", msg.peer)  # the front's connection, held here
        self.node.register(conn)
        self.pending[conn] = msg
        player = conn.player.id if conn.player is not None else None
        # Who sits, from where, and the answer's id: the same for a join and a reclaim.
        who = (
            self.id, self.node.proc, conn.id, conn.name, conn.codec.subprotocol, msg.rid, msg.token
        )  # fmt: skip
        if isinstance(msg, Join):
            sit = Sit(
                *who,
                seat=msg.seat,
                spectator=msg.spectator,
                creator=msg.creator,
                quiet=msg.quiet,
                player=msg.player if msg.player is not None else player,
            )
        else:
            sit = Sit(
                *who,
                reclaim=True,
                last_seq=msg.last_seq,
                player=player,
            )
        self._send(sit)
        loop = asyncio.get_running_loop()
        loop.call_later(self.node.answer_within, self._unanswered, conn, msg)

    def _unanswered(self, conn: Conn, msg: Join | Reclaim) -> None:
        if self.pending.get(conn) is not msg:
            return
        del self.pending[conn]
        unavailable(msg, "the table's server did not answer; try again")

    def answered(self, conn: Conn, error: str | None) -> None:
        msg = self.pending.pop(conn, None)
        if msg is None:
            return
        if error is None:
            if isinstance(msg, Reclaim):
                token: str | None = msg.token
            else:
                token = None if msg.spectator else f"{self.id}.{msg.token}"
            self.sitting[conn] = Sitting(token, deque(maxlen=4))
        if msg.done is not None and not msg.done.done():
            msg.done.set_result(error)  # type: ignore[arg-type]  # a code the owner sent

    def take_over(self) -> tuple[dict[Conn, Sitting], list[Join | Reclaim], list[InboxItem]]:
        """Everything to hand to the new owner; the table is empty again."""
        out = (self.sitting, list(self.pending.values()), self.held)
        self.sitting, self.pending, self.held = {}, {}, []
        return out


def _answer(msg: Join | Reclaim) -> None:
    """End the wait of a join or resume whose connection is gone."""
    if msg.done is not None and not msg.done.done():
        msg.done.set_result("unavailable")


def unavailable(msg: Join | Reclaim, why: str) -> None:
    """Answer a join or resume nobody else will: ``unavailable``, with ``why``
    for the person (a quick play's tries say nothing: it goes on to the next)."""
    if msg.done is None or msg.done.done():
        return
    if not (isinstance(msg, Join) and msg.quiet):
        cast("Conn", msg.peer).send(Error(code="unavailable", message=why, rid=msg.rid))
    metrics.ERRORS.labels("store").inc()
    msg.done.set_result("unavailable")


class RemoteHome(Protocol):
    """What a ``RemoteTable`` needs of its node (``server.cluster.node.Node``)."""

    @property
    def proc(self) -> str: ...

    @property
    def answer_within(self) -> float: ...

    def register(self, conn: Conn) -> None: ...

    def unregister(self, conn: Conn) -> None: ...

    def forget(self, conn: Conn | None, remote: RemoteTable) -> None: ...

    def publish(self, proc: str, msg: Message) -> None: ...

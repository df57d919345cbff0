"""The process's pub/sub: typed messages between the processes of a service.

Channels: one per process, ``atout:bus:{proc}`` (what is sent to that
process: commands for the tables it owns, updates for the connections it
holds), and ``atout:lobby`` for everyone (listings, claims, heartbeats);
their names carry the service (``Keys``, server/store/redis_keys.py), as
every database of a Redis shares its channels.

Each message is a msgspec Struct of a tagged union, encoded with msgpack.
One connection publishes, in the order ``publish`` was called (Redis keeps
the order per publisher, and every subscriber gets a channel's messages in
that order); another one subscribes. In order, but with gaps: what is
published while a subscriber reconnects never reaches it, so
``on_resubscribed`` says when it is back (time to catch up). A publish that
reached nobody (the process behind the channel is dead, or its subscriber
is reconnecting) is reported to ``on_unreached``, saying whether it was a
heartbeat probe (an empty ``Batch``: nothing was lost) or a real message.
"""

from __future__ import annotations

import asyncio
import contextlib
import typing
from collections.abc import Callable

import msgspec
import structlog

from protocol.views import TableSummary
from server.base import metrics
from server.store.asyncio_redis_fixes import REDIS_ERRORS, RedisClient, Subscription
from server.store.redis import parse_url
from server.store.redis_keys import Keys

log = structlog.get_logger()

# Besides the channels, the bus's processes keep two hashes (``Keys``):
# ``listings``, table id -> msgpack ``Listed`` (the lobby a starting process
# loads), and ``codes``, invite code -> table id, written before the table's
# creator is seated, so a friend who types the code at once finds the table
# from any process (the listing may not have reached that process yet).


QUEUE_MAX = 50_000
"""Most messages waiting to be published (one connection, pipelined); beyond,
Redis is not answering, and what is published is dropped (and counted)."""


class _Msg(msgspec.Struct, tag_field="k", array_like=True, omit_defaults=True):
    pass


# -- to a table's owner ----------------------------------------------------------------


class Sit(_Msg, tag="sit"):
    """A connection held by ``origin`` joins, watches or (``reclaim``) resumes."""

    table: str
    origin: str
    conn: str
    name: str
    subprotocol: str | None
    rid: int
    token: str
    """Join: the secret half the seat's token gets; reclaim: the whole token."""
    reclaim: bool = False
    last_seq: int = -1
    seat: int | None = None
    spectator: bool = False
    creator: bool = False
    quiet: bool = False
    player: str | None = None


class Do(_Msg, tag="do"):
    """A command of a connection held by ``origin`` (msgpack of the protocol's ``Command``)."""

    table: str
    origin: str
    conn: str
    command: bytes


class Away(_Msg, tag="away"):
    """A connection held by ``origin`` dropped (or left for another table's process)."""

    table: str
    origin: str
    conn: str


# -- to the process holding the connections (in one ``Batch`` per loop turn) -------------


class Out(_Msg, tag="out"):
    """Bytes for a connection, as the owner encoded them (``text``: a str frame)."""

    conn: str
    data: bytes
    text: bool = False


class Routed(_Msg, tag="route"):
    """The connection's commands go to ``table`` (``here``), or no longer do."""

    conn: str
    table: str
    here: bool
    to_lobby: bool = False


class Shut(_Msg, tag="shut"):
    """Close the connection with ``code`` (after what was sent before)."""

    conn: str
    code: int
    reason: str


class Answered(_Msg, tag="answer"):
    """The owner's answer to a ``Sit``: ``None`` seated, else the error code."""

    conn: str
    table: str
    error: str | None = None


class Moved(_Msg, tag="moved"):
    """The table is not served by the process asked (``by``): find its owner
    again, and send it ``conn``'s ``command`` that came here (if any)."""

    table: str
    by: str = ""
    conn: str = ""
    command: bytes = b""


class Reattach(_Msg, tag="reattach"):
    """The owner does not know ``conn`` at ``table`` (a ``Sit`` or ``Gone`` lost on
    the way, or it took the table over since): sit it again with its token, then
    send ``command`` (the one that met nobody) again."""

    table: str
    conn: str
    command: bytes = b""


Item = Out | Routed | Shut | Answered | Moved | Reattach


class Batch(_Msg, tag="batch"):
    items: list[Item]


# -- to everyone (``atout:lobby``) -------------------------------------------------------


class Listed(_Msg, tag="listed"):
    """A table's lobby listing, by its owner (``closed``: it is gone)."""

    table: str
    owner: str
    summary: TableSummary
    private: bool
    code: str
    closed: bool = False
    epoch: int = 0
    """The owner's epoch: a listing from an older owner (stale) is ignored."""


class Claimed(_Msg, tag="claimed"):
    """``owner`` serves ``table`` from now on (a takeover), with owner ``epoch``."""

    table: str
    owner: str
    epoch: int = 0


class Released(_Msg, tag="released"):
    """``table``'s owner gave it up (drain): claim it now."""

    table: str
    owner: str


class Beat(_Msg, tag="beat"):
    """A process is alive, with ``online`` players connected to it."""

    proc: str
    online: int
    leaving: bool = False


class Reaped(_Msg, tag="reaped"):
    """Process ``proc`` is dead for sure: its supervisor saw it exit. Said by
    the worker started in its place (``by``), after freeing its leases and
    claiming its tables: the others drop its connections at once, as when
    its heartbeat stops, instead of a lease after a message met nobody."""

    proc: str
    by: str


Message = Sit | Do | Away | Batch | Listed | Claimed | Released | Beat | Reaped

encode = msgspec.msgpack.Encoder().encode
decode = msgspec.msgpack.Decoder(Message).decode
decode_listed = msgspec.msgpack.Decoder(Listed).decode

KINDS = frozenset(kind.__struct_config__.tag for kind in typing.get_args(Message))
"""The message kinds this process knows: a newer one (a rolling upgrade) may
send more, which this one leaves alone."""


def unknown_kind(data: bytes) -> str | None:
    """The kind of a message this process does not know (sent by a newer
    version of the server), or None if ``data`` is not such a message."""
    try:
        raw = msgspec.msgpack.decode(data)
    except msgspec.DecodeError:
        return None
    if isinstance(raw, list) and raw and isinstance(raw[0], str) and raw[0] not in KINDS:
        return raw[0]
    return None


PROBE = Batch([])
"""What the missed-heartbeat check sends: an empty ``Batch``, nothing to lose."""
_PROBE_BYTES = encode(PROBE)


class Bus:
    """Publish and receive ``Message``s; open with ``await Bus.open(...)``."""

    def __init__(
        self,
        proc: str,
        keys: Keys,
        publisher: RedisClient,
        subscriber: RedisClient,
        subscription: Subscription,
        on_message: Callable[[Message], None],
        on_unreached: Callable[[bytes, bool], None],
    ) -> None:
        self.proc = proc
        self.keys = keys
        self.channel = keys.bus(proc)
        self._publisher = publisher
        self._subscriber = subscriber
        self._subscription = subscription
        self._on_message = on_message
        self._on_unreached = on_unreached
        self._queue: list[tuple[bytes, bytes]] = []
        self._full = False
        self._sender: asyncio.Task[None] | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read(), name="bus-read")

    @classmethod
    async def open(
        cls,
        url: str,
        proc: str,
        keys: Keys,
        on_message: Callable[[Message], None],
        on_unreached: Callable[[bytes, bool], None],
        on_resubscribed: Callable[[], None] | None = None,
    ) -> Bus:
        """Process ``proc`` of the service ``keys`` names (on ``url``'s Redis);
        ``on_resubscribed``: called each time the subscriber is back after
        losing its connection (messages published meanwhile are lost)."""
        host, port, db, password = parse_url(url)
        publisher = await RedisClient.open(host, port, password=password, db=db, size=1)
        subscriber = await RedisClient.open(host, port, password=password, db=db, size=1)
        subscription = await subscriber.subscribe([keys.bus(proc), keys.lobby])
        subscription.on_resubscribed = on_resubscribed
        return cls(proc, keys, publisher, subscriber, subscription, on_message, on_unreached)

    @property
    def subscribed(self) -> bool:
        """Receiving (False while the subscriber reconnects: ``/healthz``)."""
        return self._subscription.subscribed

    @property
    def client(self) -> RedisClient:
        """The publishing connection (also fine for the odd non-pub/sub request)."""
        return self._publisher

    def publish(self, channel: bytes, msg: Message) -> None:
        """Send ``msg`` to ``channel``, after every message published before it
        (dropped if ``QUEUE_MAX`` wait already: Redis is not answering)."""
        if len(self._queue) >= QUEUE_MAX:
            if not self._full:
                self._full = True
                log.warning("bus_queue_full", waiting=len(self._queue))
            metrics.ERRORS.labels("store").inc()
            return
        self._full = False
        self._queue.append((channel, encode(msg)))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue:
            batch, self._queue = self._queue, []
            # Pipelined on the one connection: each request is written when
            # its task first runs, and tasks first run in creation order.
            tasks = [loop.create_task(self._publisher.publish(ch, data)) for ch, data in batch]
            results = await asyncio.gather(*tasks, return_exceptions=True)
            for (ch, data), result in zip(batch, results, strict=True):
                if isinstance(result, BaseException):
                    log.warning("bus_publish_failed", error=repr(result))
                elif result == 0 and ch != self.keys.lobby:
                    self._on_unreached(ch, data == _PROBE_BYTES)

    async def _read(self) -> None:
        unknown: set[str] = set()
        while True:
            try:
                _, data = await self._subscription.next()
            except asyncio.CancelledError:
                raise
            except REDIS_ERRORS as exc:
                log.warning("bus_bad_message", error=repr(exc))
                continue
            try:
                msg = decode(data)
            except msgspec.DecodeError as exc:
                kind = unknown_kind(data)
                if kind is None:
                    log.warning("bus_bad_message", error=repr(exc))
                elif kind not in unknown:  # said once per kind, not once per message
                    unknown.add(kind)
                    log.info("bus_unknown_message", kind=kind, why="from a newer server; ignored")
                continue
            try:
                self._on_message(msg)
            except Exception:
                log.exception("bus_message_error", message=type(msg).__name__)

    async def flushed(self) -> None:
        """Until everything published so far is sent."""
        while self._sender is not None and not self._sender.done():
            await asyncio.shield(self._sender)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2.0):
                await self.flushed()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        await self._publisher.aclose()
        await self._subscriber.aclose()

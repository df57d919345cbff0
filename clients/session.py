"""A client session over one WebSocket: hello, views kept in sync, commands.

Shared by the terminal client, the tests and the load benchmark. It keeps the
current ``TableView`` and ``LobbyView`` through ``clients.sync`` (patches in
sequence; on a gap or a patch that does not fit, a snapshot). Every message
received is also put on ``events`` (and logged in ``received`` when asked),
so a caller can wait for what it needs.

Errors by blame: the connection dropping (``ConnectionClosed``) ends the
session quietly (``closed`` is set, ``events`` gets ``None``); anything else
the reader meets is our bug, and it surfaces — ``wait_for``, ``wait_view``
and ``close`` raise it — rather than passing for a dropped link.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from ssl import SSLContext
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from clients import server_clock
from clients.sync import Sync
from protocol.codec import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOL_V2_JSON,
    SUBPROTOCOL_V2_MSGPACK,
    new_codec,
)
from protocol.diff import Patch, apply
from protocol.messages import (
    Error,
    Event,
    Hello,
    Left,
    LobbyPatch,
    LobbySnapshot,
    Resume,
    Seated,
    SnapshotRequest,
    TablePatch,
    TableSnapshot,
    Welcome,
)
from protocol.views import LobbyView, TableView


def _tls(url: str, context: SSLContext | None) -> dict[str, Any]:
    """``connect``'s ``ssl`` argument: only for ``wss://`` and only when given
    (websockets refuses ``ssl=None`` there, and makes the default context itself)."""
    return {"ssl": context} if context is not None and url.lower().startswith("wss:") else {}


class ServerError(Exception):
    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.code = error.code
        self.message = error.message


def _offers(subprotocol: str) -> list[str]:
    """What to offer for ``subprotocol``: it, then version 1 of the same
    encoding (a server that does not speak version 2 picks that)."""
    fallback = {SUBPROTOCOL_V2_MSGPACK: SUBPROTOCOL_MSGPACK, SUBPROTOCOL_V2_JSON: SUBPROTOCOL_JSON}
    return [subprotocol, fallback[subprotocol]] if subprotocol in fallback else [subprotocol]


class Session:
    """One connection to an Atout server."""

    def __init__(self, ws: ClientConnection, subprotocol: str, keep: bool = False) -> None:
        self.ws = ws
        # A codec of our own: a version 2 one keeps the server's schema.
        self.codec = new_codec(subprotocol, Event)
        self.sync: Sync[TableView, LobbyView, Patch] = Sync(apply, apply)
        self.events: asyncio.Queue[Any] = asyncio.Queue()
        self.received: list[tuple[Any, Any]] | None = [] if keep else None
        """(raw decoded message, table view after it) of every message, if kept."""
        self._rids = itertools.count(1)
        self._reader: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self.on_change: Callable[[Any], None] | None = None
        self.url = ""
        self.name = ""
        self.version = self.codec.version
        """The version our hello says (the subprotocol's, unless told otherwise)."""
        self.key: str | None = None
        """The player key sent in ``hello`` (``None``: a guest)."""
        self.register = False
        self.ssl: SSLContext | None = None
        self.player_id: str | None = None
        self.player_name = ""
        """The name the server says we play under (a player's registered name)."""

    @classmethod
    async def open(
        cls,
        url: str,
        name: str,
        *,
        subprotocol: str = SUBPROTOCOL_V2_MSGPACK,
        keep: bool = False,
        version: int | None = None,
        open_timeout: float = 5.0,
        key: str | None = None,
        register: bool = False,
        ssl: SSLContext | None = None,
    ) -> Session:
        """Connect and say hello. ``ssl``: the certificates a ``wss://`` server
        must be signed by (None: the system's, and ``SSL_CERT_FILE``'s)."""
        ws = await connect(
            url,
            subprotocols=[Subprotocol(s) for s in _offers(subprotocol)],
            max_size=2**22,
            open_timeout=open_timeout,
            compression=None,
            **_tls(url, ssl),
        )
        # A server older than version 2 picks the version 1 we offer too.
        session = cls(ws, ws.subprotocol or SUBPROTOCOL_MSGPACK, keep)
        session.url, session.name = url, name
        if version is not None:
            session.version = version
        session.key, session.register = key, register
        session.ssl = ssl
        await session._start()
        return session

    async def _start(self) -> None:
        self.closed.clear()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        hello = Hello(
            version=self.version,
            name=self.name,
            client="atout",
            key=self.key,
            register=self.register,
        )
        await self.send(hello)
        first = await self.wait_for(Welcome, Error)
        if isinstance(first, Error):
            raise ServerError(first)
        server_clock.learn(first.now)
        self.player_id = first.player_id
        self.player_name = first.name
        self.register = False  # registered now: the key is known from here on

    async def reconnect(self, open_timeout: float = 5.0) -> Any:
        """Open a new connection and take the seat back, keeping the view.

        The server sends only the patches missed since ``table_seq`` when it
        still has them, else a snapshot. Returns the ``Seated`` or ``Error``.
        """
        if self._reader is not None:
            self._reader.cancel()
        # Events of the old connection (its end among them) are moot now.
        self.events = asyncio.Queue()
        self.ws = await connect(
            self.url,
            subprotocols=[Subprotocol(s) for s in _offers(self.codec.subprotocol)],
            max_size=2**22,
            open_timeout=open_timeout,
            compression=None,
            **_tls(self.url, self.ssl),
        )
        agreed = self.ws.subprotocol or SUBPROTOCOL_MSGPACK
        if agreed != self.codec.subprotocol:  # another server, another version
            self.codec = new_codec(agreed, Event)
            self.version = self.codec.version
        await self._start()
        assert self.token is not None, "reconnect needs a seat token"
        return await self.resume(self.token, self.table_seq if self.table is not None else -1)

    def rid(self) -> int:
        return next(self._rids)

    async def send(self, msg: Any) -> int:
        """Send a command (its ``rid`` filled in when 0); returns the rid."""
        if getattr(msg, "rid", None) == 0:
            msg.rid = self.rid()
        await self.ws.send(self.codec.encode(msg))
        return int(getattr(msg, "rid", 0))

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                msg = self.codec.decode(data)
                await self._take(msg)
        except ConnectionClosed:
            pass  # the link dropped (a clean close ends the loop by itself)
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            await self.events.put(None)

    async def _take(self, msg: Any) -> None:
        commands: list[dict[str, Any]] = []
        match msg:
            case TableSnapshot(seq=seq, view=view):
                self.sync.on_table(seq, view, view.you)
            case TablePatch(seq=seq, patch=patch):
                commands = self.sync.on_tpatch(seq, patch)
            case LobbySnapshot(seq=seq, view=view):
                self.sync.on_lobby(seq, view)
            case LobbyPatch(seq=seq, patch=patch):
                commands = self.sync.on_lpatch(seq, patch)
            case Seated(table_id=table_id, seat=seat, token=token):
                self.sync.on_seated(table_id, seat, token)
            case Left():
                self.sync.on_left()
        for _command in commands:  # the synchroniser asks only for snapshots
            await self.send(SnapshotRequest())
        if self.received is not None:
            self.received.append((msg, self.table))
        if self.on_change is not None:
            self.on_change(msg)
        await self.events.put(msg)

    # The views and the seat, as the synchroniser keeps them. (The terminal
    # client's link puts back a view it kept across a reconnection.)

    @property
    def table(self) -> TableView | None:
        return self.sync.table.view

    @table.setter
    def table(self, view: TableView | None) -> None:
        self.sync.table.view = view

    @property
    def table_seq(self) -> int:
        return self.sync.table.seq

    @table_seq.setter
    def table_seq(self, seq: int) -> None:
        self.sync.table.seq = seq

    @property
    def awaiting_snapshot(self) -> bool:
        return self.sync.table.awaiting_snapshot

    @property
    def lobby(self) -> LobbyView | None:
        return self.sync.lobby.view

    @property
    def seat(self) -> int | None:
        return self.sync.seat

    @property
    def table_id(self) -> str | None:
        return self.sync.table_id

    @property
    def token(self) -> str | None:
        return self.sync.token

    @token.setter
    def token(self, token: str | None) -> None:
        self.sync.token = token

    @property
    def snapshots_asked(self) -> int:
        return self.sync.snapshots_asked

    async def wait_for(
        self, *kinds: type, timeout: float = 10.0, where: Callable[[Any], bool] | None = None
    ) -> Any:
        """The next event of one of ``kinds`` (and matching ``where``)."""

        async def loop() -> Any:
            while True:
                msg = await self.events.get()
                if msg is None:
                    raise self._ended()
                if isinstance(msg, kinds) and (where is None or where(msg)):
                    return msg

        return await asyncio.wait_for(loop(), timeout)

    async def wait_view(
        self, pred: Callable[[TableView], bool], timeout: float = 10.0
    ) -> TableView:
        """Wait until the table view satisfies ``pred``."""

        async def loop() -> TableView:
            while True:
                if self.table is not None and pred(self.table):
                    return self.table
                msg = await self.events.get()
                if msg is None:
                    raise self._ended()

        return await asyncio.wait_for(loop(), timeout)

    def _ended(self) -> BaseException:
        """Why the events stopped: the reader's own failure (our bug) if it
        failed, else the connection closed."""
        reader = self._reader
        if reader is not None and reader.done() and not reader.cancelled():
            failure = reader.exception()
            if failure is not None:
                return failure
        return ConnectionError(f"connection closed ({self.close_code})")

    async def resume(self, token: str, last_seq: int = -1) -> Any:
        await self.send(Resume(token=token, last_seq=last_seq))
        return await self.wait_for(Seated, Error)

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await self._reader

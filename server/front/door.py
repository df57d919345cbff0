"""The WebSocket front door: handshake, hello, limits, and routing of commands.

``net`` knows no rule of Tarot. It decodes each frame (a bad one gets an
``Error`` and the connection stays), enforces the per-connection limits, and
hands commands to the lobby or to the connection's table inbox. Plain HTTP
on the same port serves ``/healthz``, ``/metrics``, ``/leaderboard`` and the
browser client's files (``server/web``); an upgrade from a web page passes
the ``Origin`` check first (``server/web/origin.py``).

Errors by blame:
* the client sent something wrong (bad bytes, unknown message, illegal
  move): an ``Error`` with a stable code; the connection stays open;
* the client broke the protocol (no hello, flooding, wrong version): an
  ``Error`` or ``Bye`` and a close with a 4xxx code;
* our own bug: logged with its traceback, the client only sees ``internal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, get_args

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from protocol.codec import SUBPROTOCOLS, DecodeError, codec_for
from protocol.limits import NAME_MAX
from protocol.messages import (
    Command,
    CreateTable,
    Daily,
    Error,
    GetLeaderboard,
    Hello,
    JoinTable,
    LobbySnapshot,
    Ping,
    Pong,
    QuickPlay,
    Rename,
    Resume,
    SnapshotRequest,
    TournamentCommand,
    TournamentCreate,
    TournamentGet,
    TournamentJoin,
    Watch,
    Welcome,
    bye,
)
from server.base import metrics
from server.base.clock import Clock, timeout
from server.base.text import BOT_NAME_REFUSED, bot_like, clean_text
from server.daily.http import leaderboard_response
from server.front.rules_view import SIZE_RULES
from server.link.conn import (
    CLOSE_ABUSE,
    CLOSE_IDLE,
    CLOSE_INCOMPATIBLE,
    CLOSE_NO_HELLO,
    CLOSE_RESTART,
    Conn,
)
from server.link.guard import Guard
from server.link.keepalive import Keepalive, available
from server.link.reader import LeanConnection
from server.table import Act
from server.tournament.http import TOURNAMENTS_PATH, tournament_response
from server.web import origin
from server.web.answer import answer
from server.web.files import WebRoot, bundled_folder

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.daily.service import DailyService
    from server.lobby.lobby import Lobby
    from server.tournament.service import TournamentService


class Host(Protocol):
    """What the front needs of the server process (``server.process.app.Server``)."""

    settings: Settings
    clock: Clock
    lobby: Lobby
    daily: DailyService
    tournaments: TournamentService
    stopping: bool

    def health(self) -> dict[str, Any]: ...


log = structlog.get_logger()

ABUSE_LIMIT = 50  # refused-for-rate messages before we hang up
ORIGINS_LOGGED = 100  # refused origins logged by name, then no more (a log is no flood sink)
GOODBYE_WAIT_S = 0.2
"""At shutdown, how long the clients have to answer the restart close before
the server closes what is left (with its own code, 1001)."""


def select_subprotocol(connection: ServerConnection, offered: Any) -> Any:
    """Our subprotocol if the client offers one; none (msgpack) otherwise.

    A client offering only protocols we do not speak still gets in rather
    than a bare HTTP 400: it then speaks msgpack, and a hello in another
    encoding gets a ``malformed`` error before the connection closes (4004).
    """
    for sub in SUBPROTOCOLS:
        if sub in offered:
            return sub
    return None


def _drop_empty_subprotocol_offer(request: Request) -> None:
    """An empty ``Sec-WebSocket-Protocol`` header is an empty offer list (some
    client libraries send one): treat it as no offer, as docs/PROTOCOL.md
    §1.2 says, rather than let the handshake fail it with HTTP 400."""
    header = "Sec-WebSocket-Protocol"
    offers = request.headers.get_all(header)
    if offers and not any(o.strip(" \t,") for o in offers):
        del request.headers[header]


class Front:
    """Per-server handler state (the lobby, settings, counters).

    Its timers (the hello timeout, the idle sweep, the goodbye's wait) and the
    rate limits run on the server's clock, so a test moves them by hand.
    """

    def __init__(self, server: Host) -> None:
        self.server = server
        self.settings = server.settings
        self.clock = server.clock
        self.lobby = server.lobby
        self.conns: set[Conn] = set()
        self.guard = Guard(server.settings, server.clock.time)
        self.address_of: dict[Conn, str] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.allowed_origins = origin.parse_allowed(server.settings.allowed_origins)
        self._origins_refused: set[str] = set()
        self.web = _web_root(server.settings)
        # None: websockets' own keepalive runs (a websockets this one cannot hook).
        self.keepalive = Keepalive(server.clock) if available() else None

    # -- plain HTTP ---------------------------------------------------------------

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/leaderboard":  # async: the board may be rebuilt first
            return await leaderboard_response(self.server.daily, request.path)
        if path.startswith(TOURNAMENTS_PATH):
            return await tournament_response(self.server.tournaments, path)
        if path == "/healthz":
            body = self.server.health()
            status = HTTPStatus.OK if body["status"] != "down" else HTTPStatus.SERVICE_UNAVAILABLE
            return _response(status, json.dumps(body).encode(), "application/json")
        if path == "/metrics":
            return _response(
                HTTPStatus.OK, metrics.exposition(), "text/plain; version=0.0.4; charset=utf-8"
            )
        if request.headers.get("Upgrade", "").lower() != "websocket":
            if self.web is not None:
                return answer(self.web, request)
            return _response(
                HTTPStatus.NOT_FOUND,
                b"Atout: WebSocket on /, or GET /healthz, /metrics\n",
                "text/plain",
            )
        why = origin.refusal(
            request.headers.get("Origin"), request.headers.get("Host"), self.allowed_origins
        )
        if why is not None:
            metrics.ERRORS.labels("origin").inc()
            self._log_refused_origin(request)
            return _response(HTTPStatus.FORBIDDEN, f"Atout: {why}\n".encode(), "text/plain")
        if len(self.conns) >= self.settings.max_connections:
            return _response(HTTPStatus.SERVICE_UNAVAILABLE, b"server full\n", "text/plain")
        if self.server.stopping:
            return _response(HTTPStatus.SERVICE_UNAVAILABLE, b"restarting\n", "text/plain")
        refusal = self.guard.admit(self._address(connection))
        if refusal is not None:
            metrics.ERRORS.labels("address_limit").inc()
            return _response(HTTPStatus.TOO_MANY_REQUESTS, refusal.encode() + b"\n", "text/plain")
        _drop_empty_subprotocol_offer(request)
        return None

    def _log_refused_origin(self, request: Request) -> None:
        # Once per origin: an operator behind a proxy sees what to allow.
        seen = request.headers.get("Origin", "")[:200]
        if seen in self._origins_refused or len(self._origins_refused) >= ORIGINS_LOGGED:
            return
        self._origins_refused.add(seen)
        log.warning("origin_refused", origin=seen, host=request.headers.get("Host", "")[:200])

    def _address(self, connection: ServerConnection) -> str:
        remote = connection.remote_address
        peer = str(remote[0]) if remote else None
        request = connection.request
        forwarded = request.headers.get_all("X-Forwarded-For") if request is not None else []
        return self.guard.client_address(peer, forwarded)

    # -- WebSocket ------------------------------------------------------------------

    async def handler(self, ws: ServerConnection) -> None:
        codec = codec_for(ws.subprotocol, Command)
        s = self.settings
        conn = Conn(ws, codec, s.send_buffer, s.rate, s.burst, self.clock)
        self.conns.add(conn)
        address = self.address_of[conn] = self._address(ws)
        self.guard.opened(address)
        if self.keepalive is not None and isinstance(ws, LeanConnection):
            self.keepalive.watch(ws)
        if self._sweeper is None and s.lobby_idle > 0:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_idle())
        metrics.CONNECTIONS.set(len(self.conns))
        try:
            if await self._hello(conn):  # counted online there, before its first lobby
                try:
                    await self._serve(conn)
                finally:
                    self.lobby.online(-1)
        except ConnectionClosed:
            pass
        except Exception:
            # Our bug: logged with its traceback; the client sees a 1011 close.
            log.exception("connection_error", conn=conn.id)
            conn.close(1011, "internal error")
        finally:
            self.conns.discard(conn)
            self.guard.closed(self.address_of.pop(conn, address))
            metrics.CONNECTIONS.set(len(self.conns))
            self.lobby.leave(conn)
            self.lobby.gone(conn)
            self.server.tournaments.gone(conn)
            await conn.finish()

    async def _hello(self, conn: Conn) -> bool:
        try:
            async with timeout(self.clock, self.settings.hello_timeout):
                data = await conn.ws.recv()
        except TimeoutError:
            conn.send(bye("no_hello", "say hello first"))
            conn.close(CLOSE_NO_HELLO, "no hello")
            return False
        try:
            msg = conn.codec.decode(data)
        except DecodeError as e:
            conn.send(Error(code=e.code, message=e.message))
            conn.close(CLOSE_NO_HELLO, "the first message must be a hello")
            return False
        if not isinstance(msg, Hello):
            conn.send(
                Error(
                    code="hello_first",
                    message="the first message must be a hello",
                    rid=getattr(msg, "rid", None),
                )
            )
            conn.close(CLOSE_NO_HELLO, "the first message must be a hello")
            return False
        # The subprotocol names the version; the hello must say the same.
        version = conn.codec.version
        if msg.version != version:
            conn.send(
                Error(
                    code="incompatible_version",
                    message=f"this server speaks protocol version {version}, "
                    f"your client speaks {msg.version}: please update it",
                    rid=msg.rid,
                )
            )
            conn.close(CLOSE_INCOMPATIBLE, "incompatible protocol version")
            return False
        # A player key makes the connection a player (else a guest).
        identity = await self.server.daily.identify(msg)
        if isinstance(identity, Error):
            conn.send(identity)
            conn.close(CLOSE_NO_HELLO, identity.code)
            return False
        conn.player = identity
        name = identity.name if identity else clean_text(msg.name)[:NAME_MAX].strip()
        if not name or (identity is None and bot_like(name)):
            # "Bot ..." is how seats played by bots are named: not for people
            # (players' names meet the same rule in server.base.players.clean_name).
            why = BOT_NAME_REFUSED if name else "choose a display name"
            conn.send(Error(code="bad_name", message=why, rid=msg.rid))
            conn.close(CLOSE_NO_HELLO, "no name")
            return False
        conn.name = name
        conn.hello = True
        conn.log = conn.log.bind(name=name)
        conn.send(
            Welcome(
                version=version,
                session=secrets.token_hex(6),
                player_id=identity.id if identity else None,
                name=name,
                rules=SIZE_RULES,
                now=self.clock.time(),
            )
        )
        self.lobby.online(+1)
        self.lobby.enter(conn)
        conn.log.info("hello", subprotocol=conn.codec.subprotocol)
        return True

    async def _serve(self, conn: Conn) -> None:
        ws = conn.ws
        if isinstance(ws, LeanConnection):
            # A table's command in a small frame is read and carried out in
            # the connection's data_received (server/link/reader.py); the
            # rest comes here, in order.
            ws.sink = lambda data: self._take(conn, data)
        try:
            await self._serve_rest(conn)
        finally:
            if isinstance(ws, LeanConnection):
                ws.sink = None

    async def _serve_rest(self, conn: Conn) -> None:
        async for data in conn.ws:
            metrics.MESSAGES_IN.count += 1
            if not conn.heard():
                conn.refused += 1
                metrics.ERRORS.labels("rate").inc()
                if conn.refused > ABUSE_LIMIT:
                    conn.send(bye("flooding", "too many messages"))
                    conn.close(CLOSE_ABUSE, "too many messages")
                    await conn.drop_the_rest()
                    return
                conn.send(
                    Error(code="rate_limited", message="slow down: too many messages per second")
                )
                continue
            conn.refused = 0  # only a sustained flood is abuse
            try:
                msg = conn.codec.decode(data)
            except DecodeError as e:
                metrics.ERRORS.labels("decode").inc()
                conn.send(Error(code=e.code, message=e.message))
                continue
            # To the command's handler in ``COMMANDS``, else to the connection's
            # table: a move (most of what comes in) by a plain call, no
            # coroutine made and awaited per frame.
            handler = COMMANDS.get(type(msg))
            if handler is None:
                _to_table(self, conn, msg)
            else:
                await handler(self, conn, msg)

    def _take(self, conn: Conn, data: bytes | str) -> bool:
        """A message the lean reader read: a table's command that the rate
        limit lets in is counted and handed to the table here, as
        ``_serve_rest`` would; anything else (False: nothing done) goes on to
        ``_serve_rest`` through websockets, so a bad frame, a refusal or
        another command gets its answer there, in order."""
        try:
            now = conn.clock.time()
            bucket = conn.bucket
            if conn.closed or not bucket.ready(now):
                return False  # closing, or to be refused for rate: all as _serve_rest has it
            try:
                msg = conn.codec.decode(data)
            except DecodeError:
                return False
            if type(msg) in COMMANDS:
                return False
            metrics.MESSAGES_IN.count += 1
            # Let in, as ``conn.heard()`` would, at the time just read: the
            # bucket, refilled to then, has the token ``ready`` saw.
            conn.heard_at = now
            bucket.take(now)
            conn.refused = 0
            _to_table(self, conn, msg)
        except Exception:
            # Our bug, as in handler(): logged, and the client sees a 1011
            # close (raised in data_received, it would drop the connection).
            log.exception("connection_error", conn=conn.id)
            conn.close(1011, "internal error")
        return True

    def _may_guess(self, conn: Conn, address: str, rid: int) -> bool:
        if self.guard.may_guess(address):
            return True
        metrics.ERRORS.labels("guess_limit").inc()
        conn.send(
            Error(
                code="rate_limited",
                message="too many refused resumes, joins or watches from your address: wait",
                rid=rid,
            )
        )
        return False

    async def _sweep_idle(self) -> None:
        """Close connections that sit at no table and send nothing (``lobby_idle``)."""
        every = min(30.0, self.settings.lobby_idle / 4)
        while True:
            await self.clock.sleep(every)
            for conn in list(self.conns):
                if (
                    conn.hello
                    and self.lobby.table_of(conn) is None
                    and self.guard.idle(conn.heard_at)
                ):
                    conn.send(bye("idle", "closed after a long silence in the lobby"))
                    conn.close(CLOSE_IDLE, "idle")

    async def goodbye(self) -> None:
        """Tell every client the server is restarting and close with 1012."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self.keepalive is not None:
            self.keepalive.stop()  # every connection is closing: no more pings
        for conn in list(self.conns):
            conn.send(bye("restarting", "the server is restarting; reconnecting"))
            conn.close(CLOSE_RESTART, "server restarting")
        # Done as soon as every client answered (none connected: at once).
        closing = [c.closing for c in self.conns if c.closing is not None and not c.closing.done()]
        if closing:
            with contextlib.suppress(TimeoutError):
                async with timeout(self.clock, GOODBYE_WAIT_S):
                    await asyncio.wait(closing)

    def cut_off(self) -> None:
        """Drop every connection still open, without waiting for its client."""
        for conn in list(self.conns):
            conn.ws.transport.abort()


# The commands a connection sends after its hello, each to its handler.
# A new command: one line in COMMANDS and one small function. A command not
# listed (nor any of its classes) goes to the connection's table.


async def _ping(front: Front, conn: Conn, msg: Ping) -> None:
    conn.send(Pong(rid=msg.rid))


async def _snapshot(front: Front, conn: Conn, msg: SnapshotRequest) -> None:
    if front.lobby.table_of(conn) is not None:
        _to_table(front, conn, msg)  # the table's snapshot
        return
    front.lobby.enter(conn, snapshot=False)
    conn.send(LobbySnapshot(seq=front.lobby.seq, view=front.lobby.view))


async def _hello_again(front: Front, conn: Conn, msg: Hello) -> None:
    conn.send(Error(code="already_hello", message="you already said hello", rid=msg.rid))


async def _resume(front: Front, conn: Conn, msg: Resume) -> None:
    if front.lobby.table_of(conn) is not None:
        conn.send(Error(code="already_seated", message="leave your table first", rid=msg.rid))
        return
    address = front.address_of.get(conn, "?")
    if not front._may_guess(conn, address, msg.rid):
        return
    await front.lobby.resume(conn, msg.token, msg.last_seq, msg.rid)
    if front.lobby.table_of(conn) is None:
        front.guard.guess_failed(address)


async def _player(front: Front, conn: Conn, msg: Rename | GetLeaderboard) -> None:
    await front.server.daily.command(front.lobby, conn, msg)


async def _tournament_create(front: Front, conn: Conn, msg: TournamentCreate) -> None:
    if conn.player is not None and not front.guard.may_create(front.address_of.get(conn, "?")):
        # Limited as table creations are (they open tables too).
        message = "too many new tournaments from your address: wait"
        conn.send(Error(code="rate_limited", message=message, rid=msg.rid))
        return
    await front.server.tournaments.command(conn, msg)


async def _tournament_code(front: Front, conn: Conn, msg: TournamentJoin | TournamentGet) -> None:
    # A code: a guess, if no tournament has it (as a table's code).
    address = front.address_of.get(conn, "?")
    if not front._may_guess(conn, address, msg.rid):
        return
    if await front.server.tournaments.command(conn, msg) == "no_such_tournament":
        front.guard.guess_failed(address)


async def _tournament(front: Front, conn: Conn, msg: TournamentCommand) -> None:
    await front.server.tournaments.command(conn, msg)


def _seated(front: Front, conn: Conn, rid: int) -> bool:
    """Whether ``conn`` sits at a table already (then told to leave it first)."""
    if front.lobby.table_of(conn) is None:
        return False
    message = "you are at a table: leave it first"
    conn.send(Error(code="already_seated", message=message, rid=rid))
    return True


async def _create_table(front: Front, conn: Conn, msg: CreateTable) -> None:
    if _seated(front, conn, msg.rid):
        return
    if not front.guard.may_create(front.address_of.get(conn, "?")):
        message = "too many new tables from your address: wait"
        conn.send(Error(code="rate_limited", message=message, rid=msg.rid))
        return
    await front.lobby.create(conn, msg)


async def _join(front: Front, conn: Conn, msg: JoinTable | Watch) -> None:
    if _seated(front, conn, msg.rid):
        return
    # A table id or an invite code: a guess, if it is refused.
    address = front.address_of.get(conn, "?")
    if not front._may_guess(conn, address, msg.rid):
        return
    await front.lobby.join(conn, msg)
    if front.lobby.table_of(conn) is None:
        front.guard.guess_failed(address)


async def _quick_play(front: Front, conn: Conn, msg: QuickPlay) -> None:
    if not _seated(front, conn, msg.rid):
        await front.lobby.quick_play(conn, msg.rid, msg.players)


async def _daily(front: Front, conn: Conn, msg: Daily) -> None:
    if not _seated(front, conn, msg.rid):
        await front.server.daily.command(front.lobby, conn, msg)


def _to_table(front: Front, conn: Conn, msg: Any) -> None:
    table = front.lobby.table_of(conn)
    if table is None:
        message = "sit at a table (create, join or quick play) first"
        conn.send(Error(code="not_at_table", message=message, rid=getattr(msg, "rid", 0)))
        return
    table.inbox.put_nowait(Act(conn, msg))


# (``Final``: compiled, read per frame without a lookup by name.)
COMMANDS: Final[dict[type[Any], Callable[[Front, Conn, Any], Awaitable[None]]]] = {
    **dict.fromkeys(get_args(TournamentCommand), _tournament),  # but these three:
    TournamentCreate: _tournament_create,
    TournamentJoin: _tournament_code,
    TournamentGet: _tournament_code,
    Ping: _ping,
    SnapshotRequest: _snapshot,
    Hello: _hello_again,
    Resume: _resume,
    Rename: _player,
    GetLeaderboard: _player,
    CreateTable: _create_table,
    JoinTable: _join,
    Watch: _join,
    QuickPlay: _quick_play,
    Daily: _daily,
}
"""Command class → its handler."""


def _web_root(settings: Settings) -> WebRoot | None:
    """The browser client's folder, None when it is not served."""
    if not settings.web:
        return None
    folder = Path(settings.web_root) if settings.web_root else bundled_folder()
    if folder is None:
        log.warning("web_client_missing", hint="install the package with its data, or --no-web")
        return None
    return WebRoot(folder)


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)


__all__ = ["Front", "select_subprotocol"]

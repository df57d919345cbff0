"""The lobby: the registry of tables, invite codes, quick play, where each
connection's commands go, and the live list of open tables that every
connection outside a table watches.

The lobby creates tables and hands connections to them (through the table's
inbox); it never touches a game, and never reads a table's state: each table
tells it its listing (``Listing``) and who is at it (``route``). Its own view
(``LobbyView``) is rebuilt at most every ``LOBBY_DEBOUNCE`` seconds and sent
as one patch to everyone, the same bytes for all (``websockets.broadcast``-
style fan-out per codec).
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, cast, get_args

import structlog

from protocol.diff import diff
from protocol.errors import ErrorCode
from protocol.limits import (
    MAX_DEALS,
    MAX_RESULT_WAIT,
    MAX_TURN_TIMER,
    SEED_MAX,
    TABLE_NAME_MAX,
)
from protocol.messages import (
    CreateTable,
    Error,
    JoinTable,
    LobbyPatch,
    LobbySnapshot,
    Watch,
    bye,
)
from protocol.views import BotLevel, LobbyView
from server import metrics
from server.clock import WALL, Clock
from server.conn import CLOSE_RESTART, send_to_all
from server.store.base import StoreError, TableStore
from server.table import Gone, Join, Reclaim, Stop, Sweep, new_state
from server.table.actor import Table
from server.table.effects import Listing
from server.table.inbox import InboxItem
from server.text import clean_text

if TYPE_CHECKING:
    from server.cluster.node import Node
    from server.config import Settings
    from server.conn import Conn
    from server.daily.service import DailyService

log = structlog.get_logger()


class Inbox(Protocol):
    def put_nowait(self, item: InboxItem, /) -> None: ...


class Place(Protocol):
    """Where a connection's table commands go: a ``Table`` served here, or a
    ``RemoteTable`` (server/cluster/remote.py) owned by another process."""

    @property
    def id(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def inbox(self) -> Inbox: ...


LOBBY_DEBOUNCE = 0.1
ONLINE_SENDS_PER_S = 1000
PUBLISH_SLICE = 100
PUBLISH_GAP = 0.002
"""A lobby patch goes to ``PUBLISH_SLICE`` watchers, then the loop is free for
``PUBLISH_GAP`` seconds: 10,000 watchers sent one patch at once held the loop
~1 s, and every table's moves with it (docs/SECURITY.md)."""
"""A change of ``players_online`` alone waits until the patch it causes costs
at most about this many messages a second: 10,000 connections saying hello
at once made it 100,000 a second, and the hellos time out (docs/SECURITY.md)."""
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
SWEEP_EVERY = 5.0


class Lobby:
    def __init__(self, store: TableStore, settings: Settings, clock: Clock = WALL) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.tables: dict[str, Table] = {}
        self.listings: dict[str, Listing] = {}
        """What each table last told of itself."""
        self.codes: dict[str, str] = {}
        self.at: dict[Conn, Place] = {}
        """Where each connection's table commands go: the one routing map."""
        self.watchers: set[Conn] = set()
        self.seq = 0
        self.view = LobbyView()
        self._pending: asyncio.TimerHandle | None = None
        self._owed: dict[Conn, None] = {}
        """Watchers the last patch has not reached yet (sent a slice at a time)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.players_online = 0
        self.online_elsewhere = 0
        """Players connected to the service's other processes (their heartbeats)."""
        self.daily: DailyService | None = None
        """Players and the daily game (set by the server): records daily results."""
        self.node: Node | None = None
        """This process in a service of several on one Redis (set by the server);
        None: this process is the whole service (server/cluster/)."""

    # -- tables ------------------------------------------------------------------

    async def restore(self) -> int:
        """Serve again every open table the store holds (after a restart)."""
        if self.node is not None:
            # Only those no other process owns (and whose owner is not
            # dead too recently: the node's scan takes those later).
            restored = await self.node.restore()
            log.info("tables_restored", tables=restored)
            return restored
        restored = 0
        for table_id in await self.store.open_tables():
            stored = await self.store.load(table_id)
            if stored is None:
                continue
            # A daily table is restored like any other: its rules come with
            # its state (``TableState.daily``).
            table = Table.restore(stored[1], self.store, self.settings, self, self.clock)
            if table is None:
                continue
            self.add(table)
            restored += 1
        log.info("tables_restored", tables=restored)
        return restored

    async def open(self, table: Table, conn: Conn, rid: int) -> bool:
        """Serve a new table here (claimed first, in a service of several
        processes); False, with an error sent to ``conn``, if it cannot be."""
        if self.node is not None:
            # Owned before its first save (a fresh id: nobody else has it).
            try:
                table.epoch = await self.node.claim_new(table.id)
            except StoreError:
                table.epoch = 0
            if not table.epoch:
                message = "the store did not answer; try again"
                if self.node.draining:
                    message = "this server is restarting; try again"
                conn.send(Error(code="unavailable", message=message, rid=rid))
                return False
        self.add(table)
        return True

    def add(self, table: Table) -> None:
        self.tables[table.id] = table
        metrics.TABLES.set(len(self.tables))
        table.start()  # the table lists itself (``table_changed``)

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self, then: Callable[[Table], Awaitable[None]] | None = None) -> None:
        """Stop and save every table, all at once (each may wait up to 2 s for a
        bot's move, then its save); ``then``: what follows each one's save."""
        if self._sweeper:
            self._sweeper.cancel()
        await asyncio.gather(*(self._stop(t, then) for t in list(self.tables.values())))

    async def _stop(self, table: Table, then: Callable[[Table], Awaitable[None]] | None) -> None:
        table.inbox.put_nowait(Stop())
        if table.task:
            try:
                await asyncio.wait_for(table.task, 2.0)
            except (TimeoutError, asyncio.CancelledError):
                table.task.cancel()
        await table.flush()
        if then is not None:
            await then(table)

    async def _sweep(self) -> None:
        """Have every table note whether a human is there (idle ones close)."""
        while True:
            await self.clock.sleep(SWEEP_EVERY)
            try:
                self.sweep()
            except Exception:
                # Our bug: log it, and sweep again next time.
                log.exception("sweep_error")

    def sweep(self) -> None:
        for table in list(self.tables.values()):
            if table.closed:
                self._remove(table)
            else:
                table.inbox.put_nowait(Sweep())

    def _remove(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        listing = self.listings.pop(table.id, None)
        if listing is not None:
            self.codes.pop(listing.code, None)
        metrics.TABLES.set(len(self.tables))
        self._soon()

    async def _unique_code(self, table_id: str) -> str | None:
        """A fresh invite code for ``table_id``, unique in the whole service
        (None: Redis did not answer)."""
        while True:
            code = self._new_code()
            if self.node is None:
                return code
            try:
                if await self.node.reserve_code(code, table_id):
                    return code
            except StoreError:
                return None

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.codes:
                return code

    def find(self, table_id: str | None, code: str | None) -> Place | None:
        if code:
            table_id = self.codes.get(code.strip().upper())
        if not table_id:
            return None
        table: Place | None = self.tables.get(table_id)
        if table is None and self.node is not None:
            table = self.node.place(table_id)  # listed by another process
        return None if table is None or table.closed else table

    # -- where connections are ---------------------------------------------------

    def route(self, conn: Conn, table: Place, here: bool, to_lobby: bool) -> None:
        """A table says ``conn``'s commands go to it (``here``), or no longer do."""
        if self.node is not None and self.node.routes(conn, here, to_lobby):
            return  # a connection held by another process: told there
        if here:
            self.at[conn] = table
        elif self.at.get(conn) is table:
            del self.at[conn]
        if to_lobby:
            self.enter(conn)

    def table_of(self, conn: Conn) -> Place | None:
        return self.at.get(conn)

    def gone(self, conn: Conn) -> None:
        """``conn`` dropped: out of the lobby, and its table is told."""
        self.watchers.discard(conn)
        table = self.at.pop(conn, None)
        if table is not None:
            table.inbox.put_nowait(Gone(conn))
        if self.node is not None:
            self.node.unregister(conn)

    def stepped_down(self, table: Table) -> None:
        """Another process owns ``table`` now: forget it here. Its connections
        here are closed as on a restart (1012): they reconnect and resume with
        their tokens wherever they land, and reach the new owner."""
        if self.tables.get(table.id) is table:
            self.tables.pop(table.id)
            listing = self.listings.pop(table.id, None)
            if listing is not None and self.codes.get(listing.code) == table.id:
                del self.codes[listing.code]
            metrics.TABLES.set(len(self.tables))
            self._soon()
        if self.node is not None:
            self.node.stepped_down(table)
        for conn, at in list(self.at.items()):
            if at is table:
                del self.at[conn]
                conn.send(bye("restarting", "your table moved; reconnecting"))
                conn.close(CLOSE_RESTART, "table moved")

    def unsaved_tables(self) -> int:
        return sum(1 for t in self.tables.values() if t.unsaved)

    # -- commands from connections ---------------------------------------------

    async def create(self, conn: Conn, cmd: CreateTable) -> None:
        problem = _check_create(cmd)
        if problem:
            conn.send(Error(code="bad_table", message=problem, rid=cmd.rid))
            return
        if len(self.tables) >= self.settings.max_tables:
            conn.send(
                Error(
                    code="too_many_tables",
                    message="the server hosts as many tables as it can; try later",
                    rid=cmd.rid,
                )
            )
            return
        table_id = secrets.token_hex(4)
        code = await self._unique_code(table_id)
        if code is None:
            message = "the store did not answer; try again"
            conn.send(Error(code="unavailable", message=message, rid=cmd.rid))
            return
        name = clean_text(cmd.name) or f"{conn.name}'s table"
        state = new_state(
            table_id,
            code,
            name,
            now=self.clock.time(),
            private=cmd.private,
            deals=cmd.deals,
            bot_level=cmd.bot_level,
            turn_timer=cmd.turn_timer,
            seed=cmd.seed,
            result_wait=self.settings.result_wait if cmd.result_wait is None else cmd.result_wait,
        )
        table = Table(state, self.store, self.settings, self, self.clock)
        if not await self.open(table, conn, cmd.rid):
            return
        log.info("table_created", table=table_id, by=conn.id, private=cmd.private)
        await self._sit(conn, table, Join(conn, None, cmd.rid, creator=True))

    async def join(self, conn: Conn, cmd: JoinTable | Watch) -> None:
        """Sit at a table (``JoinTable``) or watch it (``Watch``), by id or invite code."""
        table = self.find(cmd.table_id, cmd.code)
        if table is None and self.node is not None:
            # Not listed here (yet: a table created a moment ago on another
            # process): ask Redis which table the code opens and who serves it.
            try:
                table_id = cmd.table_id
                if cmd.code:
                    table_id = await self.node.table_of_code(cmd.code.strip().upper())
                if table_id:
                    table = await self.node.find(table_id)
            except StoreError:
                table = None
        if table is None:
            conn.send(
                Error(
                    code="no_such_table", message="no open table has that id or code", rid=cmd.rid
                )
            )
            return
        who = conn.player.id if conn.player is not None else None  # a daily table checks it
        if isinstance(cmd, Watch):
            await self._sit(conn, table, Join(conn, None, cmd.rid, spectator=True, player=who))
        else:
            await self._sit(conn, table, Join(conn, cmd.seat, cmd.rid, player=who))

    async def quick_play(self, conn: Conn, rid: int) -> None:
        """Sit at the public waiting table with the most players; else take a
        bot's seat at a public table between deals (the seat rules let a
        human take a bot's seat then); else open a table."""
        public = [
            listing.summary
            for listing in self.listings.values()
            if not listing.private and not listing.closed
        ]
        waiting = [s for s in public if s.status == "waiting" and s.free > 0]
        taking_over = [s for s in public if s.status == "between_deals" and s.bots > 0]
        candidates = sorted(waiting, key=lambda s: -s.humans) + sorted(
            taking_over, key=lambda s: -s.humans
        )
        for summary in candidates:
            table = self.find(summary.table_id, None)
            if table is None:
                continue
            join = Join(conn, None, rid, quiet=True)
            if await self._ask(table, join) is None:
                self.watchers.discard(conn)
                return
        level = _bot_level(self.settings.default_bot_level)
        await self.create(conn, CreateTable(rid=rid, name="", bot_level=level))

    async def resume(self, conn: Conn, token: str, last_seq: int, rid: int) -> None:
        table_id = token.split(".", 1)[0]
        table: Place | None = self.tables.get(table_id)
        if table is None and self.node is not None and table_id:
            try:
                table = await self.node.find(table_id)
            except StoreError:
                table = None
        if table is None or table.closed:
            conn.send(Error(code="bad_token", message="that table is gone", rid=rid))
            return
        await self._sit(conn, table, Reclaim(conn, token, last_seq, rid))

    async def _ask(self, table: Place, msg: Join | Reclaim) -> ErrorCode | None:
        """Put ``msg`` on the table's inbox; its answer (None: seated, else an error code)."""
        done: asyncio.Future[ErrorCode | None] = asyncio.get_running_loop().create_future()
        msg.done = done
        table.inbox.put_nowait(msg)
        if isinstance(table, Table) and table.task is not None:
            # A table that stops first (stepped down to another process,
            # drained) never answers what was left on its inbox.
            await asyncio.wait((done, table.task), return_when=asyncio.FIRST_COMPLETED)
            if not done.done():
                if not (isinstance(msg, Join) and msg.quiet):
                    message = "the table moved to another server; try again"
                    conn = cast("Conn", msg.peer)
                    conn.send(Error(code="unavailable", message=message, rid=msg.rid))
                done.set_result("unavailable")
        return await done

    async def _sit(self, conn: Conn, table: Place, msg: Join | Reclaim) -> None:
        self.watchers.discard(conn)
        if await self._ask(table, msg) is not None:
            # Not seated: back to the lobby, with a fresh list (updates sent
            # while the table was answering did not reach this connection).
            self.enter(conn)

    # -- the lobby view ------------------------------------------------------------

    def enter(self, conn: Conn, snapshot: bool = True) -> None:
        """``conn`` is in the lobby: it gets the list and its updates."""
        if conn in self.watchers:
            return
        self.watchers.add(conn)
        self._owed.pop(conn, None)  # the view below is newer than any patch owed
        if snapshot:
            conn.send(LobbySnapshot(seq=self.seq, view=self.view))

    def leave(self, conn: Conn) -> None:
        self.watchers.discard(conn)

    def table_changed(self, table: Table, listing: Listing) -> None:
        """A table tells how it lists now."""
        if table.id not in self.tables:
            return  # already removed
        self.listings[table.id] = listing
        self.codes[listing.code] = table.id
        if self.node is not None:
            self.node.listed(table.id, listing, table.epoch)  # every process's lobby shows it
        if listing.closed or table.closed:
            self._remove(table)
        self._soon()

    def listed_elsewhere(self, table_id: str, listing: Listing | None) -> None:
        """Another process's table lists itself so (None: gone)."""
        if table_id in self.tables:
            return
        old = self.listings.pop(table_id, None)
        if old is not None and self.codes.get(old.code) == table_id:
            del self.codes[old.code]
        if listing is not None and not listing.closed:
            self.listings[table_id] = listing
            self.codes[listing.code] = table_id
        self._soon()

    def others_online(self, count: int) -> None:
        if count != self.online_elsewhere:
            self.online_elsewhere = count
            self._soon()

    def _soon(self) -> None:
        self._soon_by(LOBBY_DEBOUNCE)

    def _soon_by(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        if self._pending is not None:
            if self._pending.when() <= due:
                return
            self._pending.cancel()
        self._pending = loop.call_at(due, self._publish)

    def _build(self) -> LobbyView:
        tables = [
            listing.summary
            for listing in self.listings.values()
            if not listing.private and not listing.closed and listing.summary.status != "closed"
        ]
        tables.sort(key=lambda s: (s.status != "waiting", -s.humans, s.name))
        online = self.players_online + self.online_elsewhere
        return LobbyView(tables=tables, players_online=online)

    def _publish(self) -> None:
        self._pending = None
        if self._owed:
            self._soon()  # the last patch is still going out: this one after it
            return
        view = self._build()
        patch = diff(self.view, view)
        if not patch:
            return
        self.seq += 1
        self.view = view
        self._owed = dict.fromkeys(self.watchers)
        self._send_slice(LobbyPatch(seq=self.seq, patch=patch))

    def _send_slice(self, msg: LobbyPatch) -> None:
        batch = list(itertools.islice(self._owed, PUBLISH_SLICE))
        for conn in batch:
            del self._owed[conn]
        send_to_all([c for c in batch if c in self.watchers], msg)
        if self._owed:
            asyncio.get_running_loop().call_later(PUBLISH_GAP, self._send_slice, msg)

    def online(self, delta: int) -> None:
        self.players_online += delta
        self._soon_by(max(LOBBY_DEBOUNCE, len(self.watchers) / ONLINE_SENDS_PER_S))


def _bot_level(name: str) -> BotLevel:
    """A settings' bot level as the protocol's type (settings are checked at startup)."""
    for level in get_args(BotLevel):
        if level == name:
            return cast(BotLevel, level)
    raise ValueError(f"unknown bot level {name!r}")


def _check_create(cmd: CreateTable) -> str | None:
    if not 1 <= cmd.deals <= MAX_DEALS:
        return f"a game has 1 to {MAX_DEALS} deals"
    if not 0 <= cmd.turn_timer <= MAX_TURN_TIMER:
        return f"the turn timer is 0 (off) to {MAX_TURN_TIMER:.0f} seconds"
    if cmd.result_wait is not None and not 0 <= cmd.result_wait <= MAX_RESULT_WAIT:
        return f"the wait for results is 0 (none) to {MAX_RESULT_WAIT:.0f} seconds"
    if cmd.seed is not None and len(cmd.seed) > SEED_MAX:
        return f"a seed is at most {SEED_MAX} characters"
    if len(cmd.name) > TABLE_NAME_MAX:
        return f"a table name is at most {TABLE_NAME_MAX} characters"
    return None


__all__ = ["Lobby", "StoreError"]

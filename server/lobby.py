"""The lobby: the registry of tables, invite codes, quick play, and the live
list of open tables that every connection outside a table watches.

The lobby creates tables and hands connections to them (through the table's
inbox); it never touches a game. Its own view (``LobbyView``) is rebuilt at
most every ``LOBBY_DEBOUNCE`` seconds and sent as one patch to everyone, the
same bytes for all (``websockets.broadcast``-style fan-out per codec).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Any

import structlog

from protocol.diff import diff
from protocol.messages import CreateTable, Error, JoinTable, LobbyPatch, LobbySnapshot, Watch
from protocol.views import LobbyView
from server import metrics
from server.guard import clean_text
from server.store.base import StoreError, TableStore
from server.table import Join, Resume, Stop, Table, Tick, new_state

if TYPE_CHECKING:
    from server.config import Settings
    from server.conn import Conn

log = structlog.get_logger()

LOBBY_DEBOUNCE = 0.1
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
SWEEP_EVERY = 5.0
MAX_DEALS = 40
MAX_TIMER = 600.0
NAME_MAX = 40


class Lobby:
    def __init__(self, store: TableStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.tables: dict[str, Table] = {}
        self.codes: dict[str, str] = {}
        self.watchers: set[Conn] = set()
        self.seq = 0
        self.view = LobbyView()
        self._pending: asyncio.TimerHandle | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.players_online = 0

    # -- tables ------------------------------------------------------------------

    async def restore(self) -> int:
        """Serve again every open table the store holds (after a restart)."""
        restored = 0
        for table_id in await self.store.open_tables():
            stored = await self.store.load(table_id)
            if stored is None:
                continue
            table = Table.restore(stored[1], self.store, self.settings, self)
            if table.state.status == "closed":
                continue
            self._add(table)
            restored += 1
        log.info("tables_restored", tables=restored)
        return restored

    def _add(self, table: Table) -> None:
        self.tables[table.id] = table
        self.codes[table.state.code] = table.id
        metrics.TABLES.set(len(self.tables))
        table.start()
        self.table_changed(table)

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self) -> None:
        if self._sweeper:
            self._sweeper.cancel()
        for table in list(self.tables.values()):
            table.inbox.put_nowait(Stop())
            if table.task:
                try:
                    await asyncio.wait_for(table.task, 2.0)
                except (TimeoutError, asyncio.CancelledError):
                    table.task.cancel()
            await table.flush()

    async def _sweep(self) -> None:
        """Close tables no human has been at for ``idle_close`` seconds."""
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            for table in list(self.tables.values()):
                if table.closed:
                    self._remove(table)
                    continue
                table.note_humans()
                if time.time() - table.state.last_human_at >= self.settings.idle_close:
                    table.inbox.put_nowait(Tick("idle", table.state.version))

    def _remove(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        self.codes.pop(table.state.code, None)
        metrics.TABLES.set(len(self.tables))
        self.table_changed(table)

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.codes:
                return code

    def find(self, table_id: str | None, code: str | None) -> Table | None:
        if code:
            table_id = self.codes.get(code.strip().upper())
        table = self.tables.get(table_id) if table_id else None
        return None if table is None or table.closed else table

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
        name = clean_text(cmd.name) or f"{conn.name}'s table"
        state = new_state(
            table_id,
            self._new_code(),
            name,
            private=cmd.private,
            deals=cmd.deals,
            bot_level=cmd.bot_level,
            turn_timer=cmd.turn_timer,
            seed=cmd.seed,
        )
        table = Table(state, self.store, self.settings, self)
        self._add(table)
        log.info("table_created", table=table_id, by=conn.id, private=cmd.private)
        await self._sit(conn, table, Join(conn, None, cmd.rid, creator=True))

    async def join(self, conn: Conn, cmd: JoinTable | Watch) -> None:
        """Sit at a table (``JoinTable``) or watch it (``Watch``), by id or invite code."""
        table = self.find(cmd.table_id, cmd.code)
        if table is None:
            conn.send(
                Error(
                    code="no_such_table", message="no open table has that id or code", rid=cmd.rid
                )
            )
            return
        if isinstance(cmd, Watch):
            await self._sit(conn, table, Join(conn, None, cmd.rid, spectator=True))
        else:
            await self._sit(conn, table, Join(conn, cmd.seat, cmd.rid))

    async def quick_play(self, conn: Conn, rid: int) -> None:
        """Sit at the public waiting table with the most players, or open one."""
        candidates = sorted(
            (
                t
                for t in self.tables.values()
                if not t.state.private
                and t.state.status == "waiting"
                and not t.closed
                and any(s.kind == "empty" for s in t.state.seats)
            ),
            key=lambda t: -sum(s.kind == "human" for s in t.state.seats),
        )
        for table in candidates:
            join = Join(conn, None, rid, quiet=True)
            table.inbox.put_nowait(join)
            if await join.done is None:
                self.watchers.discard(conn)
                return
        await self.create(conn, CreateTable(rid=rid, name="", bot_level=_level(self.settings)))

    async def resume(self, conn: Conn, token: str, last_seq: int, rid: int) -> None:
        table_id = token.split(".", 1)[0]
        table = self.tables.get(table_id)
        if table is None or table.closed:
            conn.send(Error(code="bad_token", message="that table is gone", rid=rid))
            return
        await self._sit(conn, table, Resume(conn, token, last_seq, rid))

    async def _sit(self, conn: Conn, table: Table, msg: Join | Resume) -> None:
        self.watchers.discard(conn)
        table.inbox.put_nowait(msg)
        if await msg.done is not None:
            # Not seated: back to the lobby, with a fresh list (updates sent
            # while the table was answering did not reach this connection).
            self.enter(conn)

    # -- the lobby view ------------------------------------------------------------

    def enter(self, conn: Conn, snapshot: bool = True) -> None:
        """``conn`` is in the lobby: it gets the list and its updates."""
        if conn in self.watchers:
            return
        self.watchers.add(conn)
        if snapshot:
            conn.send(LobbySnapshot(seq=self.seq, view=self.view))

    def leave(self, conn: Conn) -> None:
        self.watchers.discard(conn)

    def table_changed(self, table: Table) -> None:
        if table.closed and table.id in self.tables:
            self._remove(table)
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(LOBBY_DEBOUNCE, self._publish)

    def _build(self) -> LobbyView:
        tables = [
            t.summary()
            for t in self.tables.values()
            if not t.state.private and not t.closed and t.state.status != "closed"
        ]
        tables.sort(key=lambda s: (s.status != "waiting", -s.humans, s.name))
        return LobbyView(tables=tables, players_online=self.players_online)

    def _publish(self) -> None:
        self._pending = None
        view = self._build()
        patch = diff(self.view, view)
        if not patch:
            return
        self.seq += 1
        self.view = view
        msg = LobbyPatch(seq=self.seq, patch=patch)
        encoded: dict[int, Any] = {}
        for conn in self.watchers:
            data = encoded.get(id(conn.codec))
            if data is None:
                data = encoded[id(conn.codec)] = conn.codec.encode(msg)
            conn.send_raw(data)

    def online(self, delta: int) -> None:
        self.players_online += delta
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(LOBBY_DEBOUNCE, self._publish)


def _level(settings: Settings) -> Any:
    return settings.default_bot_level


def _check_create(cmd: CreateTable) -> str | None:
    if not 1 <= cmd.deals <= MAX_DEALS:
        return f"a game has 1 to {MAX_DEALS} deals"
    if not 0 <= cmd.turn_timer <= MAX_TIMER:
        return f"the turn timer is 0 (off) to {MAX_TIMER:.0f} seconds"
    if cmd.seed is not None and len(cmd.seed) > 64:
        return "a seed is at most 64 characters"
    if len(cmd.name) > NAME_MAX:
        return f"a table name is at most {NAME_MAX} characters"
    return None


__all__ = ["Lobby", "StoreError"]

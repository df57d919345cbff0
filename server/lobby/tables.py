"""The tables this process serves, and where each connection's commands go.

``Tables`` owns the ``Table`` actors served here, the invite codes known
here, the one routing map (connection -> the table its commands go to) and
the one public way to open a table (``open``): draw its id and a code the
whole service has not given, build its state, claim it, serve it. The lobby
(its commands, listings and view) and every service that seats players (the
daily game) go through it; so does the cluster (server/cluster/), which
serves here the tables it takes over.

What goes beyond this process is the ``Directory``'s (server/lobby/directory.py),
chosen at start-up: ``OneProcess``, or the cluster's ``Node``.

It is each table's ``Home`` (server/table/actor.py): a table tells it how it
lists itself and where its connections go, and it passes on to the lobby
what the lobby shows (``LobbySide``).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Protocol, cast

import structlog

from protocol.errors import ErrorCode
from protocol.messages import Error, bye
from server.base import metrics
from server.base.clock import WALL, Clock
from server.link.conn import CLOSE_RESTART
from server.lobby.directory import Directory, OneProcess, Place, Unavailable
from server.store.base import StoreError, TableStore
from server.table import Gone, Join, Reclaim, Stop, Sweep
from server.table.actor import Table
from server.table.effects import Listing
from server.table.ending import FREE_TABLES, GameEnds
from server.table.mode import NORMAL

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.link.conn import Conn
    from server.table.state import TableState

log = structlog.get_logger()

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
STOP_WAIT = 2.0
"""How long a stopping table may take to finish its message (a bot's move).
Real time, not the injected clock: it bounds real work (a search thread, a
save), and a test's stopped clock must not hold a shutdown forever."""
SWEEP_SLICE = 200
SWEEP_GAP = 0.05
"""A sweep tells ``SWEEP_SLICE`` tables, then the loop is free for ``SWEEP_GAP``
seconds (``Tables.sweep``): 4,000 tables in 20 slices over a second."""


class LobbySide(Protocol):
    """What the tables tell the lobby (server/lobby/lobby.py)."""

    @property
    def players_online(self) -> int:
        """Players connected to this process."""
        ...

    def listed(self, table_id: str, listing: Listing | None) -> None:
        """A table lists itself so (None: it is no longer listed)."""

    def enter(self, conn: Conn) -> None:
        """``conn`` is back in the lobby."""

    def others_online(self, count: int) -> None:
        """Players connected to the service's other processes."""


class Tables:
    """Mapping-like (``tables[table_id]``, ``in``, ``len``) over the tables served here."""

    def __init__(
        self,
        store: TableStore,
        settings: Settings,
        lobby: LobbySide,
        clock: Clock = WALL,
        *,
        ends: Mapping[str, GameEnds] | None = None,
        directory: Callable[[Tables], Directory] = OneProcess,
    ) -> None:
        self.store = store
        self.settings = settings
        self.lobby = lobby
        self.clock = clock
        self.ends: dict[str, GameEnds] = {NORMAL.name: FREE_TABLES, **(ends or {})}
        """What hears the end of a game, by table mode (server/table/ending.py):
        free tables here, the daily game's and tournaments' services."""
        self._served: dict[str, Table] = {}
        self.codes: dict[str, str] = {}
        """Invite code -> table id, of every table listed here (here or elsewhere)."""
        self._code_of: dict[str, str] = {}
        self.at: dict[Conn, Place] = {}
        """Where each connection's table commands go: the one routing map
        (never replaced: the lobby keeps its ``get`` as ``Lobby.table_of``)."""
        self.directory = directory(self)

    # -- the tables served here ----------------------------------------------------

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._served

    def __getitem__(self, table_id: str) -> Table:
        return self._served[table_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._served)

    def __len__(self) -> int:
        return len(self._served)

    def get(self, table_id: str) -> Table | None:
        return self._served.get(table_id)

    def values(self) -> list[Table]:
        return list(self._served.values())

    def unsaved(self) -> int:
        return sum(1 for t in self._served.values() if t.unsaved)

    # -- opening, serving, stopping ------------------------------------------------

    async def open(
        self,
        conn: Conn,
        rid: int,
        state: Callable[[str, str, float], TableState],
        table_id: str | None = None,
    ) -> Table | None:
        """Open a new table here: ``state(table_id, code, now)`` is its first state.
        None, with an error sent to ``conn``, if it cannot be served now."""
        try:
            return await self.open_new(state, table_id or secrets.token_hex(4))
        except Unavailable as exc:
            conn.send(Error(code="unavailable", message=str(exc), rid=rid))
            return None

    async def open_new(
        self, state: Callable[[str, str, float], TableState], table_id: str
    ) -> Table:
        """``open`` for a service with nobody to answer (a tournament's round):
        ``Unavailable`` if the table cannot be served now."""
        code = await self._unique_code(table_id)
        if code is None:
            raise Unavailable("the store did not answer; try again")
        first = state(table_id, code, self.clock.time())
        table = Table(first, self.store, self.settings, self, self.clock)
        # Owned before its first save (a fresh id: nobody else has it).
        table.epoch = await self.directory.claim_new(table.id)
        self.serve(table)
        return table

    def revive(self, blob: bytes) -> Table | None:
        """The stored table ``blob`` as a table of this process (None: closed);
        ``serve`` it once it may be."""
        return Table.restore(blob, self.store, self.settings, self, self.clock)

    def serve(self, table: Table) -> None:
        self._served[table.id] = table
        metrics.TABLES.set(len(self._served))
        table.start()  # the table lists itself (``table_changed``)

    async def restore(self) -> int:
        """Serve again the stored open tables nobody serves (after a restart)."""
        restored = await self.directory.restore()
        log.info("tables_restored", tables=restored)
        return restored

    async def restore_stored(self) -> int:
        """Serve every open table the store holds (the whole service is here)."""
        restored = 0
        for table_id in await self.store.open_tables():
            stored = await self.store.load(table_id)
            if stored is None:
                continue
            # A daily table is restored like any other: its rules come with
            # its state (``TableState.mode``, server/table/modes.py).
            table = self.revive(stored[1])
            if table is None:
                continue
            self.serve(table)
            restored += 1
        return restored

    async def stop(self, then: Callable[[Table], Awaitable[None]] | None = None) -> None:
        """Stop and save every table, all at once (each may wait up to
        ``STOP_WAIT`` for a bot's move, then its save); ``then``: what follows
        each one's save."""
        await asyncio.gather(*(self._stop(t, then) for t in list(self._served.values())))

    async def _stop(self, table: Table, then: Callable[[Table], Awaitable[None]] | None) -> None:
        table.inbox.put_nowait(Stop())
        if table.task:
            try:
                await asyncio.wait_for(table.task, STOP_WAIT)
            except (TimeoutError, asyncio.CancelledError):
                table.task.cancel()
        await table.flush()
        if then is not None:
            await then(table)

    async def sweep(self) -> None:
        """Have every table note whether a human is there (idle ones close),
        ``SWEEP_SLICE`` tables at a time, ``SWEEP_GAP`` seconds apart.

        Why not all at once: each table's note is a wake-up of its actor, and
        the loop runs every wake-up it has before it reads a socket again: at
        4,000 busy tables, 4,000 tasks' steps ahead of every move then, every
        5 s (docs/LOAD.md, fourteenth pass). A table opened meanwhile is
        swept by the next sweep."""
        tables = list(self._served.values())
        for start in range(0, len(tables), SWEEP_SLICE):
            if start:
                await self.clock.sleep(SWEEP_GAP)
            for table in tables[start : start + SWEEP_SLICE]:
                if table.closed:
                    if self._served.get(table.id) is table:
                        self._remove(table)
                else:
                    table.inbox.put_nowait(Sweep())

    def _remove(self, table: Table) -> None:
        self._served.pop(table.id, None)
        self._forget_code(table.id)
        metrics.TABLES.set(len(self._served))
        self.lobby.listed(table.id, None)

    # -- invite codes and finding a table ------------------------------------------

    async def _unique_code(self, table_id: str) -> str | None:
        """A fresh invite code for ``table_id``, unique in the whole service
        (None: the store did not answer)."""
        while True:
            code = self._new_code()
            try:
                if await self.directory.reserve_code(code, table_id):
                    return code
            except StoreError:
                return None

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.codes:
                return code

    def _set_code(self, table_id: str, code: str) -> None:
        self._forget_code(table_id)
        self.codes[code] = table_id
        self._code_of[table_id] = code

    def _forget_code(self, table_id: str) -> None:
        code = self._code_of.pop(table_id, None)
        if code is not None and self.codes.get(code) == table_id:
            del self.codes[code]

    def find(self, table_id: str | None, code: str | None = None) -> Place | None:
        """The open table ``table_id`` (or the one ``code`` opens), served here
        or elsewhere, as far as is known without asking the store."""
        if code:
            table_id = self.codes.get(code.strip().upper())
        if not table_id:
            return None
        table: Place | None = self._served.get(table_id)
        if table is None:
            table = self.directory.place(table_id)  # listed by another process
        return None if table is None or table.closed else table

    async def look_up(self, table_id: str | None, code: str | None = None) -> Place | None:
        """``find``, else ask the directory (a table created a moment ago on
        another process, or nobody's any more: taken over here)."""
        table = self.find(table_id, code)
        if table is not None:
            return table
        try:
            if code:
                table_id = await self.directory.table_of_code(code.strip().upper())
            if table_id:
                table = self._served.get(table_id) or await self.directory.find(table_id)
        except StoreError:
            return None
        return table

    # -- where connections are -----------------------------------------------------

    def route(self, conn: Conn, table: Place, here: bool, to_lobby: bool) -> None:
        """A table says ``conn``'s commands go to it (``here``), or no longer do."""
        if self.directory.routes(conn, here, to_lobby):
            return  # a connection held by another process: told there
        if here:
            self.at[conn] = table
        elif self.at.get(conn) is table:
            del self.at[conn]
        if to_lobby:
            self.lobby.enter(conn)

    def table_of(self, conn: Conn) -> Place | None:
        return self.at.get(conn)

    def unroute(self, conn: Conn, kind: type[object]) -> None:
        """``conn``'s commands no longer go to a place of ``kind`` it was at."""
        if isinstance(self.at.get(conn), kind):
            del self.at[conn]

    def gone(self, conn: Conn) -> None:
        """``conn`` dropped: its table is told."""
        table = self.at.pop(conn, None)
        if table is not None:
            table.inbox.put_nowait(Gone(conn))
        self.directory.unregister(conn)

    async def ask(self, table: Place, msg: Join | Reclaim) -> ErrorCode | None:
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

    # -- what tables say (``Home``) --------------------------------------------------

    def game_ends(self, mode: str) -> GameEnds | None:
        """What hears the end of a game of ``mode`` (None: no service here)."""
        return self.ends.get(mode)

    def table_changed(self, table: Table, listing: Listing) -> None:
        """A table tells how it lists now."""
        if table.id not in self._served:
            return  # already removed
        self._set_code(table.id, listing.code)
        self.directory.listed(table.id, listing, table.epoch)  # every process's lobby
        if listing.closed or table.closed:
            self._remove(table)
        else:
            self.lobby.listed(table.id, listing)

    def listed_elsewhere(self, table_id: str, listing: Listing | None) -> None:
        """Another process's table lists itself so (None: gone)."""
        if table_id in self._served:
            return
        self._forget_code(table_id)
        if listing is not None and not listing.closed:
            self._set_code(table_id, listing.code)
            self.lobby.listed(table_id, listing)
        else:
            self.lobby.listed(table_id, None)

    def stepped_down(self, table: Table) -> None:
        """Another process owns ``table`` now: forget it here. Its connections
        here are closed as on a restart (1012): they reconnect and resume with
        their tokens wherever they land, and reach the new owner."""
        if self._served.get(table.id) is table:
            self._remove(table)
        self.directory.stepped_down(table)
        for conn, at in list(self.at.items()):
            if at is table:
                del self.at[conn]
                conn.send(bye("restarting", "your table moved; reconnecting"))
                conn.close(CLOSE_RESTART, "table moved")

"""The lobby: its commands (create, join, watch, quick play, resume), the
listings of every open table, and the live list of them that every
connection outside a table watches.

The tables themselves, where each connection's commands go and how a table
is opened are ``Tables``' (server/lobby/tables.py): the lobby asks it, and it
tells the lobby each table's listing (``Listing``) and who comes back to
the lobby. The lobby never touches a game, and never reads a table's state.
Its own view (``LobbyView``) is rebuilt at most every ``LOBBY_DEBOUNCE``
seconds (of the injected clock) and sent as one patch to everyone, the same
bytes for all (``websockets.broadcast``-style fan-out per codec).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, cast, get_args

import msgspec
import structlog

from protocol.diff import diff
from protocol.limits import (
    MAX_DEALS,
    MAX_RESULT_WAIT,
    MAX_TURN_TIMER,
    SEED_MAX,
    TABLE_NAME_MAX,
    TABLE_SIZES,
)
from protocol.messages import (
    CreateTable,
    Error,
    JoinTable,
    LobbyPatch,
    LobbySnapshot,
    Watch,
)
from protocol.views import BotLevel, LobbyView
from server.base.clock import WALL, Clock, Timer
from server.base.text import clean_text
from server.game.variant import FOUR, variant_for
from server.link.conn import send_to_all
from server.lobby.directory import Directory, OneProcess, Place
from server.lobby.tables import Tables
from server.store.base import StoreError, TableStore
from server.table import Join, Reclaim, new_state
from server.table.actor import Table
from server.table.effects import Listing
from server.table.ending import GameEnds

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.link.conn import Conn
    from server.table.state import TableState

log = structlog.get_logger()


LOBBY_DEBOUNCE = 0.1
ONLINE_SENDS_PER_S = 1000
"""A change of ``players_online`` alone waits until the patch it causes costs
at most about this many messages a second: 10,000 connections saying hello
at once made it 100,000 a second, and the hellos time out (docs/SECURITY.md)."""
PUBLISH_SLICE = 100
PUBLISH_GAP = 0.002
"""A lobby patch goes to ``PUBLISH_SLICE`` watchers, then the loop is free for
``PUBLISH_GAP`` seconds: 10,000 watchers sent one patch at once held the loop
~1 s, and every table's moves with it (docs/SECURITY.md)."""
SWEEP_EVERY = 5.0
"""Seconds between the end of a sweep of the tables and the next (``Tables.sweep``)."""


class Lobby:
    """The lobby's commands, its listings and its view; the tables themselves
    are its ``Tables`` (server/lobby/tables.py)."""

    def __init__(
        self,
        store: TableStore,
        settings: Settings,
        clock: Clock = WALL,
        *,
        ends: Mapping[str, GameEnds] | None = None,
        directory: Callable[[Tables], Directory] = OneProcess,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.tables = Tables(
            store,
            settings,
            self,
            clock,
            ends=ends,
            directory=directory,
        )
        self.table_of: Callable[[Conn], Place | None] = self.tables.at.get
        """Where ``conn``'s commands go (its table, or None), as ``Tables``
        keeps it: the dict's own ``get``, no Python call (the front asks once
        a move: two Python calls, ~2,000 instructions, through methods)."""
        self.listings: dict[str, Listing] = {}
        """What each public table still open last told of itself (here or
        elsewhere): what the lobby shows and quick play joins."""
        self.watchers: set[Conn] = set()
        self.seq = 0
        self.view = LobbyView()
        self._pending: Timer | None = None
        self._pending_at = 0.0
        self._owed: dict[Conn, None] = {}
        """Watchers the last patch has not reached yet (sent a slice at a time)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.players_online = 0
        self.online_elsewhere = 0
        self._count_told_apart = False
        """A snapshot told a newer count than ``view``'s: the next patch says it."""
        """Players connected to the service's other processes (their heartbeats)."""

    @property
    def behind(self) -> int:
        """Watchers the last lobby patch has not reached yet (0: every one has it)."""
        return len(self._owed)

    # -- start and stop ------------------------------------------------------------

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self, then: Callable[[Table], Awaitable[None]] | None = None) -> None:
        """Stop sweeping, then stop and save every table (``Tables.stop``)."""
        if self._sweeper:
            self._sweeper.cancel()
        await self.tables.stop(then)

    async def _sweep(self) -> None:
        """Have every table note whether a human is there (idle ones close)."""
        while True:
            await self.clock.sleep(SWEEP_EVERY)  # (after the last sweep's end)
            try:
                await self.sweep()
            except Exception:
                # Our bug: log it, and sweep again next time.
                log.exception("sweep_error")

    async def sweep(self) -> None:
        await self.tables.sweep()

    # -- where connections are ---------------------------------------------------

    def gone(self, conn: Conn) -> None:
        """``conn`` dropped: out of the lobby, and its table is told."""
        self.watchers.discard(conn)
        self.tables.gone(conn)

    # -- commands from connections ---------------------------------------------

    async def create(self, conn: Conn, cmd: CreateTable, gather: float | None = None) -> None:
        """Open the table ``cmd`` asks for and seat ``conn`` as its host;
        ``gather``: a quick-play table, that waits this long for people
        (server/table/gather.py)."""
        if cmd.players not in TABLE_SIZES:
            conn.send(_bad_players(cmd.players, cmd.rid))
            return
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
        name = clean_text(cmd.name) or f"{conn.name}'s table"
        variant = variant_for(cmd.players)
        result_wait = self.settings.result_wait if cmd.result_wait is None else cmd.result_wait

        def state(table_id: str, code: str, now: float) -> TableState:
            st = new_state(
                table_id,
                code,
                name,
                now=now,
                private=cmd.private,
                deals=variant.default_deals if cmd.deals is None else cmd.deals,
                bot_level=cmd.bot_level,
                turn_timer=cmd.turn_timer,
                seed=cmd.seed,
                result_wait=result_wait,
                variant=variant,
            )
            st.gather_until = None if gather is None else now + gather
            return st

        table = await self.tables.open(conn, cmd.rid, state)
        if table is None:
            return
        log.info(
            "table_created", table=table.id, by=conn.id, private=cmd.private, players=cmd.players
        )
        await self.sit(conn, table, Join(conn, None, cmd.rid, creator=True))

    async def join(self, conn: Conn, cmd: JoinTable | Watch) -> None:
        """Sit at a table (``JoinTable``) or watch it (``Watch``), by id or invite code."""
        table = await self.tables.look_up(cmd.table_id, cmd.code)
        if table is None:
            conn.send(
                Error(
                    code="no_such_table", message="no open table has that id or code", rid=cmd.rid
                )
            )
            return
        who = conn.player.id if conn.player is not None else None  # a daily table checks it
        if isinstance(cmd, Watch):
            await self.sit(conn, table, Join(conn, None, cmd.rid, spectator=True, player=who))
        else:
            await self.sit(conn, table, Join(conn, cmd.seat, cmd.rid, player=who))

    async def quick_play(self, conn: Conn, rid: int, players: int = FOUR.players) -> None:
        """Sit at the public waiting table of ``players`` with the most
        players (a quick-play table gathering people, or one waiting for its
        host to start it); else take a bot's seat at a public table of that
        size between deals (the seat rules let a human take a bot's seat
        then); else open a table of that size that gathers people for
        ``quick_gather`` seconds before bots fill it (server/table/gather.py)."""
        if players not in TABLE_SIZES:
            conn.send(_bad_players(players, rid))
            return
        public = [
            listing.summary
            for listing in self.listings.values()  # (public and open: ``listed``)
            if listing.summary.players == players
        ]
        waiting = [s for s in public if s.status == "waiting" and s.free > 0]
        taking_over = [s for s in public if s.status == "between_deals" and s.bots > 0]
        candidates = sorted(waiting, key=lambda s: -s.humans) + sorted(
            taking_over, key=lambda s: -s.humans
        )
        for summary in candidates:
            table = self.tables.find(summary.table_id)
            if table is None:
                continue
            join = Join(conn, None, rid, quiet=True)
            if await self.tables.ask(table, join) is None:
                self.watchers.discard(conn)
                return
        level = _bot_level(self.settings.default_bot_level)
        cmd = CreateTable(rid=rid, name="", bot_level=level, players=players)
        await self.create(conn, cmd, gather=self.settings.quick_gather)

    async def resume(self, conn: Conn, token: str, last_seq: int, rid: int) -> None:
        table_id = token.split(".", 1)[0]
        table = self.tables.get(table_id) or await self.tables.look_up(table_id)
        if table is None or table.closed:
            conn.send(Error(code="bad_token", message="that table is gone", rid=rid))
            return
        await self.sit(conn, table, Reclaim(conn, token, last_seq, rid))

    def find(self, table_id: str | None, code: str | None = None) -> Place | None:
        """An open table by id or invite code, here or elsewhere (``Tables.find``)."""
        return self.tables.find(table_id, code)

    async def open(
        self, conn: Conn, rid: int, state: Callable[[str, str, float], TableState], table_id: str
    ) -> Table | None:
        """Open a table (``Tables.open``): for the services that seat players."""
        return await self.tables.open(conn, rid, state, table_id)

    async def sit(self, conn: Conn, table: Place, msg: Join | Reclaim) -> None:
        """Seat ``conn`` at ``table`` as ``msg`` asks; not seated, it is back in
        the lobby, with a fresh list (updates sent while the table was
        answering did not reach it)."""
        self.watchers.discard(conn)
        if await self.tables.ask(table, msg) is not None:
            self.enter(conn)

    # -- the lobby view ------------------------------------------------------------

    def enter(self, conn: Conn, snapshot: bool = True) -> None:
        """``conn`` is in the lobby: it gets the list and its updates."""
        if conn in self.watchers:
            return
        self.watchers.add(conn)
        self._owed.pop(conn, None)  # the view below is newer than any patch owed
        if snapshot:
            view = self.view
            online = self.players_online + self.online_elsewhere
            if view.players_online != online:
                # The count is published a moment later (debounced), but who
                # arrives sees it true at once, themselves counted (a first
                # look said "0 online"); the next patch says the count whatever
                # it is then, so that this snapshot's number never outlives it.
                view = msgspec.structs.replace(view, players_online=online)
                self._count_told_apart = True
            conn.send(LobbySnapshot(seq=self.seq, view=view))

    def leave(self, conn: Conn) -> None:
        self.watchers.discard(conn)

    def listed(self, table_id: str, listing: Listing | None) -> None:
        """A table (here or elsewhere) lists itself so (None: no longer listed)."""
        if listing is None or listing.private or listing.closed:
            # Nothing the lobby shows: a private table changes it only by
            # leaving it (were it listed), not at every deal's end (each
            # change costs a walk over every listing).
            if self.listings.pop(table_id, None) is not None:
                self._soon()
            return
        self.listings[table_id] = listing
        self._soon()

    def others_online(self, count: int) -> None:
        if count != self.online_elsewhere:
            self.online_elsewhere = count
            self._soon()

    def _soon(self) -> None:
        self._soon_by(LOBBY_DEBOUNCE)

    def _soon_by(self, delay: float) -> None:
        due = self.clock.time() + delay
        if self._pending is not None:
            if self._pending_at <= due:
                return
            self._pending.cancel()
        self._pending, self._pending_at = self.clock.call_at(due, self._publish), due

    def _build(self) -> LobbyView:
        # A game over is no table to join: it comes back when its players
        # play again (issue 33: a Join there took a bot's seat and score).
        tables = [
            listing.summary
            for listing in self.listings.values()  # (public and open: ``listed``)
            if listing.summary.status not in ("closed", "finished")
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
        told = self.view
        if self._count_told_apart:
            told = msgspec.structs.replace(told, players_online=-1)
        patch = diff(told, view)
        if not patch:
            return
        self._count_told_apart = False
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
            self.clock.call_at(
                self.clock.time() + PUBLISH_GAP, functools.partial(self._send_slice, msg)
            )

    def online(self, delta: int) -> None:
        self.players_online += delta
        self._soon_by(max(LOBBY_DEBOUNCE, len(self.watchers) / ONLINE_SENDS_PER_S))


def _bot_level(name: str) -> BotLevel:
    """A settings' bot level as the protocol's type (settings are checked at startup)."""
    for level in get_args(BotLevel):
        if level == name:
            return cast(BotLevel, level)
    raise ValueError(f"unknown bot level {name!r}")


def _bad_players(players: int, rid: int) -> Error:
    return Error(
        code="bad_players",
        message=f"a table seats 3, 4 or 5 players, not {players}",
        rid=rid,
    )


def _check_create(cmd: CreateTable) -> str | None:
    if cmd.deals is not None and not 1 <= cmd.deals <= MAX_DEALS:
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

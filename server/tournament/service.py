"""Tournaments as the front door sees them: the tournament commands, the
tables each round opens, the views sent to whoever follows a tournament.

Decisions are ``server.tournament.core``'s (pure); this module loads a
tournament, has the core decide, saves the new version (refused if another
process saved one meanwhile: then it loads and decides again), and only
then does what the change asks for: open a round's tables through the one
public way to open a table (``Tables.open_new``), tell the tables of a
round to let bots finish, send the views. Any process of a service may do
this for any tournament: there is no owner to lose.

A round's tables are opened from the saved tournament, which already names
them: if opening is cut short (a process dies), ``reconcile`` opens what no
store has; if a table's end was not told (its process died just after its
final save), ``reconcile`` reads the end from the stored table. It runs
when a tournament is started, when a table ends, when a tournament is asked
for, and now and then for the tournaments followed here.

Who follows a tournament: each connection that sent a command naming it
(the last one named). A change made here is sent at once; a change made on
another process is seen by the watch loop (a version read every
``WATCH_EVERY`` seconds of the server's clock).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import structlog

from protocol.errors import ErrorCode
from protocol.limits import TABLE_NAME_MAX
from protocol.messages import (
    Error,
    Tournament,
    TournamentCommand,
    TournamentCreate,
    TournamentFinish,
    TournamentGet,
    TournamentJoin,
    TournamentLeave,
    TournamentRemove,
    TournamentStart,
)
from protocol.tournaments import TournamentSettings
from server.base.clock import WALL, Clock
from server.base.text import clean_text
from server.game import Game
from server.game.variant import variant_for
from server.lobby.directory import Place, Unavailable
from server.store.base import StoreError, TableStore
from server.table.ending import GameOver, Told
from server.table.inbox import Hurry
from server.table.modes import assign
from server.table.seats import new_game
from server.table.state import SeatState, TableState, decode_state, new_state
from server.tournament import core
from server.tournament.export import export_csv, export_json
from server.tournament.mode import TournamentMode, TournamentTag
from server.tournament.rules import settings_problem
from server.tournament.state import TableEntry, TournamentState
from server.tournament.store import TournamentStore
from server.tournament.views import view_for

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.link.conn import Conn

log = structlog.get_logger()

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
WATCH_EVERY = 1.0
"""Seconds between two looks at the followed tournaments' versions."""
RECONCILE_EVERY = 10
"""Looks between two reconciles of every tournament in play."""
TRIES = 8
"""Attempts at a change that other processes keep changing first."""
HURRY_REASON = "the host had bots finish the round"

Decide = Callable[[TournamentState], "core.Refusal | bool | None"]
"""A decision on a loaded tournament: a refusal, False (nothing to change),
or True / None (changed: save it)."""


class Opener(Protocol):
    """How tournaments reach the tables (server/lobby/tables.py)."""

    @property
    def store(self) -> TableStore: ...

    async def open_new(
        self, state: Callable[[str, str, float], TableState], table_id: str
    ) -> Place: ...

    def get(self, table_id: str) -> Place | None: ...

    def find(self, table_id: str | None, code: str | None = None) -> Place | None: ...


class Refused(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class TournamentService:
    def __init__(self, settings: Settings, store: TournamentStore, clock: Clock = WALL) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.tables: Opener | None = None
        self.following: dict[Conn, str] = {}
        """Each connection following a tournament, and its code."""
        self.told: dict[str, int] = {}
        """The version of each followed tournament its followers last had."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._watch: asyncio.Task[None] | None = None

    def serve(self, tables: Opener) -> None:
        """Open rounds' tables through ``tables`` (made after this service:
        they tell it of their ends), and watch followed tournaments."""
        self.tables = tables
        self._watch = asyncio.get_running_loop().create_task(self._watch_loop())

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()

    async def restore(self) -> None:
        """After a restart: every tournament in play gets its tables back."""
        try:
            codes = await self.store.playing()
        except StoreError:
            log.warning("tournaments_not_restored", exc_info=True)
            return
        for code in codes:
            await self.reconcile(code)

    # -- commands -----------------------------------------------------------------

    async def command(self, conn: Conn, msg: TournamentCommand) -> ErrorCode | None:
        """Carry out ``msg`` for ``conn``: its error code if refused (``conn`` is told)."""
        try:
            await self._command(conn, msg)
        except Refused as e:
            conn.send(Error(code=e.code, message=e.message, rid=msg.rid))
            return e.code
        except (StoreError, Unavailable):
            log.warning("tournament_store_error", exc_info=True)
            message = "the server's store is not answering; try again"
            conn.send(Error(code="unavailable", message=message, rid=msg.rid))
            return "unavailable"
        return None

    async def _command(self, conn: Conn, msg: TournamentCommand) -> None:
        player = conn.player
        if player is None:
            raise Refused("guest", "tournaments are for players with a key (atout makes one)")
        now = self.clock.time()
        match msg:
            case TournamentCreate(settings=settings):
                # Shown to everyone: no control or bidi characters.
                settings.name = clean_text(settings.name)
                problem = settings_problem(settings)
                if problem is not None:
                    raise Refused("bad_tournament", problem)
                state = await self._create(settings, player.id, player.name, now)
                log.info("tournament_created", code=state.code, host=player.id)
                self._follow(conn, state.code)
                self._send(conn, state, msg.rid)
                return
            case TournamentGet():
                code = msg.code.strip().upper()
                await self.reconcile(code)
                state = await self._load(code)
            case TournamentJoin():
                team, name = msg.team, player.name
                state = await self._change(msg.code, lambda t: core.join(t, player.id, name, team))
            case TournamentLeave():
                state = await self._change(msg.code, lambda t: core.leave(t, player.id))
            case TournamentStart():
                state = await self._change(msg.code, lambda t: core.start(t, player.id, now))
                log.info("tournament_started", code=state.code, players=len(state.players))
                await self.reconcile(state.code)
            case TournamentRemove():
                who = msg.player_id
                state = await self._change(msg.code, lambda t: core.remove(t, player.id, who))
            case TournamentFinish():
                state = await self._change(msg.code, lambda t: core.hurry(t, player.id, now))
                log.info("tournament_hurried", code=state.code, round=state.hurried)
                self._hurry(state)
        self._follow(conn, state.code)
        self._send(conn, state, msg.rid)
        self._tell(state, but=conn)

    async def _create(
        self, settings: TournamentSettings, host: str, name: str, now: float
    ) -> TournamentState:
        for _ in range(TRIES):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            state = core.create(code, settings, host, name, now, secrets.token_hex(8))
            state.version = 1
            if await self.store.save(state, new=True):
                return state
        raise Refused("unavailable", "no free tournament code was found; try again")

    async def _load(self, code: str) -> TournamentState:
        state = await self.store.load(code.strip().upper())
        if state is None:
            raise Refused("no_such_tournament", "no tournament has this code")
        return state

    async def _change(self, code: str, decide: Decide) -> TournamentState:
        """Load, decide, save (again from the load if another process saved first)."""
        code = code.strip().upper()
        async with self._locks.setdefault(code, asyncio.Lock()):
            for _ in range(TRIES):
                state = await self._load(code)
                # In a thread: drawing a round's seats is a search (tens of
                # milliseconds for a big tournament) the tables must not wait for.
                outcome = await asyncio.to_thread(decide, state)
                if isinstance(outcome, tuple):
                    raise Refused(*outcome)
                if outcome is False:
                    return state
                state.version += 1
                if await self.store.save(state):
                    return state
        raise Refused("unavailable", "the tournament kept changing; try again")

    # -- rounds and tables -------------------------------------------------------------

    async def game_over(self, over: GameOver, log: Any) -> list[Told]:
        """A tournament table's game is over: its round's points go to the
        tournament (the tournaments' ``GameEnds``, server/table/ending.py)."""
        if not isinstance(over.mode, TournamentMode):
            raise TypeError(f"not a tournament table: {over.mode.name}")
        tag = over.mode.tag
        await self.table_done(tag.code, over.table_id, over.scores[: tag.deals])
        return []

    async def table_done(
        self, code: str, table_id: str, scores: tuple[tuple[int, ...], ...]
    ) -> None:
        """A tournament table's round is over with ``scores`` (each deal's, seat by seat)."""
        lists = [list(deal) for deal in scores]
        try:
            state = await self._change(code, _told(table_id, lists, self.clock.time()))
        except (Refused, StoreError):
            # Read again from the stored table by the next reconcile.
            log.warning("tournament_table_not_told", code=code, table=table_id, exc_info=True)
            return
        played = next(
            (r.number for r in state.rounds for t in r.tables if t.table_id == table_id), 0
        )
        log.info("tournament_table_done", code=code, table=table_id, round=played)
        await self.reconcile(code)

    async def reconcile(self, code: str) -> None:
        """Open the round's tables no store has; take the end of those whose
        end was not told from the stored table."""
        if self.tables is None:
            return
        try:
            state = await self.store.load(code)
            if state is None:
                return
            for entry in core.to_open(state):
                if self.tables.get(entry.table_id) is not None:
                    continue
                stored = await self.tables.store.load(entry.table_id)
                if stored is None:
                    await self.tables.open_new(
                        _table_state(state, entry, self.settings), entry.table_id
                    )
                    log.info(
                        "tournament_table_opened",
                        code=code,
                        table=entry.table_id,
                        round=len(state.rounds),
                    )
                    continue
                ended = _ended(decode_state(stored[1]))
                if ended is not None:
                    # Its end was not told (its process died after its last save).
                    await self._change(code, _told(entry.table_id, ended, self.clock.time()))
                    return await self.reconcile(code)
        except (StoreError, Unavailable, Refused):
            log.warning("tournament_not_reconciled", code=code, exc_info=True)
            return
        latest = await self.store.load(code)
        if latest is not None:
            self._hurry(latest)
            self._tell(latest)

    def _hurry(self, state: TournamentState) -> None:
        """Bots take the seats at the tables served here of a round the host
        had bots finish (each process does it for its own: ``reconcile``)."""
        if self.tables is None or state.hurried != len(state.rounds):
            return
        for entry in core.to_open(state):
            table = self.tables.get(entry.table_id)
            if table is not None:
                table.inbox.put_nowait(Hurry(HURRY_REASON))

    # -- who follows what ----------------------------------------------------------------

    def _follow(self, conn: Conn, code: str) -> None:
        self.following[conn] = code

    def gone(self, conn: Conn) -> None:
        self.following.pop(conn, None)

    def _send(self, conn: Conn, state: TournamentState, rid: int | None = None) -> None:
        player = conn.player.id if conn.player is not None else None
        conn.send(Tournament(view=view_for(state, player, self.clock.time()), rid=rid))

    def _tell(self, state: TournamentState, but: Conn | None = None) -> None:
        """Send every follower of ``state`` its view, if they have not had
        this version yet (``but``: one just answered with it)."""
        if self.told.get(state.code) == state.version:
            return
        self.told[state.code] = state.version
        for conn, code in list(self.following.items()):
            if code == state.code and conn is not but:
                self._send(conn, state)

    async def export(self, code: str, kind: str) -> tuple[str, bytes] | None:
        """The tournament as anyone may see it (``view``) or its exports
        (``csv``, ``deals.csv``, ``teams.csv``, ``json``: server/tournament/http.py);
        None if unknown."""
        state = await self.store.load(code)
        if state is None:
            return None
        view = view_for(state, None, self.clock.time())
        if kind.endswith("csv"):
            table = "standings" if kind == "csv" else kind.removesuffix(".csv")
            return "text/csv; charset=utf-8", export_csv(state, table).encode()
        if kind != "json":
            return "application/json", msgspec.json.encode(view)
        records: dict[str, list[dict[str, Any]]] = {}
        if self.tables is not None:
            for played in state.rounds:
                for t in played.tables:
                    stored = await self.tables.store.records(t.table_id)
                    records[t.table_id] = [msgspec.json.decode(r) for r in stored]
        return "application/json", export_json(view, state, records)

    async def _watch_loop(self) -> None:
        looks = 0
        while True:
            await self.clock.sleep(WATCH_EVERY)
            looks += 1
            try:
                if looks % RECONCILE_EVERY == 0:
                    # Every tournament in play, followed here or not: a table
                    # here may have an end to tell, or a round to hurry.
                    for code in await self.store.playing():
                        await self.reconcile(code)
                await self.look()
            except StoreError:
                continue

    async def look(self) -> None:
        """Tell the followers here each followed tournament's newer version
        (saved by another process, or by this one still opening its round)."""
        for code in set(self.following.values()):
            state = await self.store.load(code)
            if state is None or self.told.get(code) == state.version:
                continue
            if await self._opened(state):
                self._tell(state)

    async def _opened(self, state: TournamentState) -> bool:
        """Every table of the round under way is open somewhere: served here,
        listed by another process, or saved. A view read while the process
        that saved a new round is still opening its tables would send its
        players to join a table that is nowhere yet (refused: no_such_table);
        the watch loop tells it at a later look (the opener tells its own
        followers once done)."""
        assert self.tables is not None
        for entry in core.to_open(state):
            if self.tables.find(entry.table_id) is not None:
                continue
            if await self.tables.store.load(entry.table_id) is None:
                return False
        return True


def _table_state(
    t: TournamentState, entry: TableEntry, settings: Settings
) -> Callable[[str, str, float], TableState]:
    """The first state of ``entry``'s table: its seats kept for their
    players, bots at the others, the round's game already dealt."""
    current = t.current
    assert current is not None
    tag = TournamentTag(
        code=t.code,
        round=current.number,
        number=entry.number,
        seats=tuple(entry.seats),
        deals=t.settings.deals,
    )

    def state(table_id: str, code: str, now: float) -> TableState:
        where = f" · {current.number}.{entry.number}"
        name = (t.settings.name or t.code)[: TABLE_NAME_MAX - len(where)] + where
        st = new_state(
            table_id,
            code,
            name,
            now=now,
            private=True,
            deals=t.settings.deals,
            bot_level=t.settings.bot_level,
            turn_timer=0.0,
            seed=entry.deal_seed,
            result_wait=settings.result_wait,
            variant=variant_for(entry.size),
        )
        assign(st, TournamentMode(tag))  # the table's rules: server/tournament/mode.py
        for i, (player, shown) in enumerate(zip(entry.seats, entry.names, strict=True)):
            # A player's seat is a human's, away until it sits (a bot plays
            # its turns after the grace period meanwhile).
            st.seats[i] = SeatState(kind="human" if player else "bot", name=shown)
        st.game = new_game(st, entry.deal_seed).state()
        return st

    return state


def _told(table_id: str, scores: list[list[int]], now: float) -> Decide:
    return lambda t: core.table_done(t, table_id, scores, now)


def _ended(st: TableState) -> list[list[int]] | None:
    """A stored tournament table's points, deal by deal, if its game is over."""
    if st.status != "finished" or st.game is None:
        return None
    policy = TournamentMode.restore(st.terms)
    game = Game.restore(st.game)
    return [list(r.scores) for r in game.results[: policy.tag.deals]]

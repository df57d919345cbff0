"""One authoritative table: an actor that owns a game, its seats and timers.

Nothing but the table's own task mutates a table: the network layer and the
lobby put messages on its ``inbox`` and the task handles them one at a time.
For each accepted change the table (1) asks the engine, (2) saves its state
through the store *before* anyone is told, (3) builds each recipient's view,
diffs it against the last view that recipient got and sends the patch with a
sequence number.

Seats are ``empty``, ``human`` or ``bot``. A human who drops keeps the seat
(its resume token's digest is stored); its turns are played by a bot after a
grace period. Bots also act for empty seats once the game starts and when a
turn timer runs out.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import structlog

from protocol.cards import CARD_OF
from protocol.diff import Patch, diff
from protocol.messages import (
    Bid,
    Bye,
    Chat,
    Chelem,
    Ecart,
    Error,
    GameCommand,
    GetHistory,
    History,
    Leave,
    Left,
    Play,
    PlayAgain,
    Poignee,
    Seated,
    SnapshotRequest,
    StartGame,
    TablePatch,
    TableSnapshot,
)
from protocol.views import ChatLine, Legal, SeatView, TableStatus, TableSummary, TableView
from server import metrics
from server.bots import Bot, RandomBot, make_bot
from server.conn import CLOSE_REPLACED
from server.game import Game, GameState, RuleError
from server.guard import clean_text
from server.seat_view import Reuse, deal_view, ecart_view, legal_view
from server.store.base import StaleWrite, StoreError, TableStore

if TYPE_CHECKING:
    from server.config import Settings
    from server.conn import Conn

log = structlog.get_logger()

BOT_NAMES = ("Bot Ada", "Bot Blaise", "Bot Colette", "Bot Denis")
CHAT_KEEP = 50
CHAT_MAX = 200
PATCHES_KEPT = 128

OWN_FIELDS = ("you", "invite_code", "hand", "ecart", "legal")
"""The fields of a ``TableView`` that differ between recipients (``Table.view_for``)."""
PUBLIC_FIELDS = tuple(f for f in TableView.__struct_fields__ if f not in OWN_FIELDS)


class SeatState(msgspec.Struct):
    kind: str = "empty"  # "empty" | "human" | "bot"
    name: str | None = None
    token_digest: str | None = None


class TableState(msgspec.Struct):
    """Everything a table needs to come back after a restart (persisted as msgpack)."""

    table_id: str
    name: str
    code: str
    private: bool = False
    deals: int = 8
    bot_level: str = "normal"
    turn_timer: float = 0.0
    seed: str | None = None
    creator: int | None = None
    seats: list[SeatState] = msgspec.field(default_factory=lambda: [SeatState() for _ in range(4)])
    status: str = "waiting"
    game: GameState | None = None
    games_played: int = 0
    version: int = 0
    chat: list[ChatLine] = msgspec.field(default_factory=list)
    deadline: float | None = None
    """Absolute time (Unix) when the turn timer runs out, if one runs."""
    deadline_for: str = ""
    """The decision that deadline is for (see ``Table._decision``)."""
    next_deal_at: float | None = None
    """Absolute time when the next deal is dealt, between deals."""
    last_human_at: float = 0.0


_encode_state = msgspec.msgpack.Encoder().encode
_decode_state = msgspec.msgpack.Decoder(TableState).decode
_encode_patch = msgspec.msgpack.Encoder().encode
_decode_patch = msgspec.msgpack.Decoder(Patch).decode


def digest(token: str) -> str:
    """Only a token's digest is stored: a leaked store gives no seat away."""
    return hashlib.sha256(token.encode()).hexdigest()


# -- the inbox -------------------------------------------------------------------


@dataclass
class Join:
    conn: Conn
    seat: int | None
    rid: int
    spectator: bool = False
    creator: bool = False
    quiet: bool = False
    """Quick play tries tables in turn: a refusal is not reported to the client."""
    done: asyncio.Future[str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    """Resolves to None when seated, else to the error code."""


@dataclass
class Resume:
    conn: Conn
    token: str
    last_seq: int
    rid: int
    done: asyncio.Future[str | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class Command:
    conn: Conn
    msg: Any


@dataclass
class Gone:
    conn: Conn


@dataclass
class Tick:
    """A timer fired; acted on only if the table is still at ``version``."""

    kind: str  # "auto" (a bot or a timer acts for seat) | "deal" | "idle"
    version: int
    seat: int | None = None


@dataclass
class Stop:
    """Shut the actor down (server shutdown); the state is already saved."""


class Home(Protocol):
    """What a table needs from the lobby."""

    def table_changed(self, table: Table) -> None:
        """The table's lobby listing may have changed."""

    def enter(self, conn: Conn, snapshot: bool = True) -> None:
        """``conn`` is back in the lobby (it left the table, or the table closed)."""


class Stream:
    """A recipient's view stream: sequence number, last view sent, recent patches."""

    __slots__ = ("conn", "own", "parts", "patches", "seq", "view")

    def __init__(self) -> None:
        self.seq = 0
        self.view: TableView | None = None
        self.parts: dict[str, Any] | None = None
        """The public parts ``view`` was built from, when a broadcast built it."""
        self.own: dict[str, Any] | None = None
        """The recipient's own parts ``view`` was built from (with ``parts``)."""
        self.patches: deque[tuple[int, bytes]] = deque(maxlen=PATCHES_KEPT)
        """The last patches with their seq, kept for resumes, msgpack-encoded: a
        playing table keeps hundreds, and as ``Op`` lists of document values
        they were most of its memory (docs/LOAD.md)."""
        self.conn: Conn | None = None


class Table:
    """The actor. Create with ``Table.new`` or ``Table.restore``, then ``start``."""

    def __init__(
        self, state: TableState, store: TableStore, settings: Settings, home: Home
    ) -> None:
        self.state = state
        self.store = store
        self.settings = settings
        self.home = home  # the lobby: told of changes, takes back who leaves
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.game: Game | None = Game.restore(state.game) if state.game else None
        self.streams: list[Stream | None] = [None, None, None, None]
        self.spectators: set[Conn] = set()
        self.spectator_stream = Stream()
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self.reuse = Reuse()
        self.listed: TableSummary | None = None
        """What the lobby was last told of this table (see ``_commit``)."""
        self.chat_buckets: dict[int, float] = {}
        self.dirty: tuple[int, bytes] | None = None
        self.retry_task: asyncio.Task[None] | None = None
        self.log = log.bind(table=state.table_id)

    @property
    def id(self) -> str:
        return self.state.table_id

    @classmethod
    def restore(cls, blob: bytes, store: TableStore, settings: Settings, home: Home) -> Table:
        return cls(_decode_state(blob), store, settings, home)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")
        # A restored table re-arms its timers from the absolute deadlines.
        self._schedule()

    # -- the actor loop ----------------------------------------------------------

    async def _run(self) -> None:
        while not self.closed:
            msg = await self.inbox.get()
            if isinstance(msg, Stop):
                break
            started = time.perf_counter()
            try:
                await self._handle(msg)
            except Exception:
                # Our own bug: log it with its traceback, keep the table alive,
                # and tell the client no more than that it was not its fault.
                self.log.exception("table_error", message=type(msg).__name__)
                metrics.ERRORS.labels("internal").inc()
                if isinstance(msg, Command):
                    msg.conn.send(
                        Error(
                            code="internal",
                            message="the server hit a bug; your command was not carried out",
                            rid=getattr(msg.msg, "rid", None),
                        )
                    )
            if isinstance(msg, Command):
                metrics.ACTION_LATENCY.observe(time.perf_counter() - started)
        self._cancel_timer()

    async def _handle(self, msg: Any) -> None:
        match msg:
            case Join():
                await self._join(msg)
            case Resume():
                await self._resume(msg)
            case Command(conn=conn, msg=cmd):
                await self._command(conn, cmd)
            case Gone(conn=conn):
                self._gone(conn)
            case Tick():
                await self._tick(msg)

    # -- persistence -------------------------------------------------------------

    async def _commit(self) -> None:
        """Save the new state (before anyone is told), then tell everyone."""
        st = self.state
        if st.status == "playing" and self.game is not None and self.game.deal_over:
            await self._settle_deal()
        st.version += 1
        st.game = self.game.state() if self.game else None
        blob = _encode_state(st)
        await self._save(st.version, blob)
        self._schedule()
        self._broadcast()
        # Most moves change nothing the lobby lists: telling it only when the
        # listing changed spares it a walk over every table per move.
        listed = self.summary()
        if listed != self.listed or self.closed:
            self.listed = listed
            self.home.table_changed(self)

    async def _save(self, version: int, blob: bytes) -> None:
        try:
            await self.store.save(self.id, version, blob, open_=self.state.status != "closed")
        except StaleWrite:
            # Another process owns this table now: stop writing and serving it.
            self.log.error("stale_table_closed", version=version)
            self.closed = True
        except StoreError as e:
            # The store is down: keep playing from memory and write the newest
            # state when it is back (see docs/DEPLOY.md for what can be lost).
            if self.dirty is None:  # once per outage, not once per move
                self.log.warning("save_failed_retrying", error=str(e))
            metrics.ERRORS.labels("store").inc()
            self.dirty = (version, blob)
            if self.retry_task is None or self.retry_task.done():
                self.retry_task = asyncio.get_running_loop().create_task(self._retry())
        else:
            self.dirty = None

    async def _retry(self) -> None:
        delay = 0.1
        while self.dirty is not None:
            await asyncio.sleep(delay)
            version, blob = self.dirty
            try:
                await self.store.save(self.id, version, blob, open_=self.state.status != "closed")
            except StaleWrite:
                self.dirty = None
                self.closed = True
                return
            except StoreError:
                delay = min(delay * 2, 5.0)
                continue
            if self.dirty is not None and self.dirty[0] == version:
                self.dirty = None
                self.log.info("save_recovered", version=version)

    async def flush(self) -> None:
        """Save the current state now (shutdown)."""
        blob = _encode_state(self.state)
        try:
            await self.store.save(
                self.id, self.state.version, blob, open_=self.state.status != "closed"
            )
            self.dirty = None
        except StoreError:
            self.log.error("shutdown_save_failed")

    # -- views -------------------------------------------------------------------

    def _public_parts(self) -> dict[str, Any]:
        st = self.state
        game = self.game
        away = self._away_seats()
        seats = []
        for i, s in enumerate(st.seats):
            stream = self.streams[i]
            seats.append(
                SeatView(
                    seat=i,
                    kind=s.kind,  # type: ignore[arg-type]
                    name=s.name,
                    connected=s.kind == "bot" or bool(stream and stream.conn),
                    away=i in away,
                    bot_level=st.bot_level if s.kind == "bot" else None,  # type: ignore[arg-type]
                    cards=game.deal.hands[i].bit_count() if game else 0,
                )
            )
        parts: dict[str, Any] = {
            "table_id": st.table_id,
            "name": st.name,
            "status": st.status,
            "private": st.private,
            "creator": st.creator,
            "bot_level": st.bot_level,
            "turn_timer": st.turn_timer,
            "seats": seats,
            "deals": st.deals,
            "deadline": st.deadline,
            "next_deal_at": st.next_deal_at,
            "spectators": len(self.spectators),
            "chat": list(st.chat),
        }
        if game is not None:
            parts["scores"] = game.totals()
            parts["sheet"] = self.reuse.sheet(game)
            parts["deal"] = deal_view(game, self.reuse)
            if game.finished:
                parts["ranking"] = game.ranking()
        return parts

    def view_for(self, seat: int | None, parts: dict[str, Any] | None = None) -> TableView:
        """Exactly what ``seat`` may see (``None``: a spectator)."""
        parts = self._public_parts() if parts is None else parts
        return TableView(**parts, **self._own_parts(seat))

    def _own_parts(self, seat: int | None) -> dict[str, Any]:
        """The fields of ``seat``'s view that are its own (``OWN_FIELDS``)."""
        game = self.game
        own: dict[str, Any] = {"you": seat}
        if seat is not None:
            own["invite_code"] = self.state.code
        if game is not None and seat is not None:
            deal = game.deal
            own["hand"] = self.reuse.hand(deal, seat)
            own["ecart"] = ecart_view(deal, seat)
            if self.state.status == "playing":
                own["legal"] = legal_view(deal, seat)
        return own

    def _send_view(
        self,
        stream: Stream,
        parts: dict[str, Any],
        own: dict[str, Any],
        public_ops: dict[int, tuple[Patch, bytes]],
        conns: list[Conn],
    ) -> None:
        view = TableView(**parts, **own)
        old = stream.view
        if old is None:
            stream.seq += 1
            stream.view = view
            stream.parts, stream.own = parts, own
            msg: Any = TableSnapshot(seq=stream.seq, view=view)
            stream.patches.clear()
        else:
            encoded: bytes | None = None
            if stream.parts is None:
                patch = diff(old, view)
            else:
                # Every stream whose last view came from the same public parts
                # gets the same public ops: diff those once per broadcast.
                key = id(stream.parts)  # kept alive by stream.parts meanwhile
                shared = public_ops.get(key)
                if shared is None:
                    public = diff(old, view, only=PUBLIC_FIELDS)
                    shared = public_ops[key] = (public, _encode_patch(public))
                # Most moves leave a seat's own parts as they were (often the
                # very same objects): one dict compare, then no diff at all.
                public, encoded = shared
                if own == stream.own:
                    patch = public
                else:
                    patch = public + diff(old, view, only=OWN_FIELDS)
                    encoded = None
            stream.view = view
            stream.parts, stream.own = parts, own
            if not patch:
                return
            stream.seq += 1
            stream.patches.append((stream.seq, encoded or _encode_patch(patch)))
            msg = TablePatch(seq=stream.seq, patch=patch)
        _send_to_all(conns, msg)

    def _broadcast(self) -> None:
        parts = self._public_parts()
        public_ops: dict[int, tuple[Patch, bytes]] = {}
        for seat in range(4):
            stream = self.streams[seat]
            if stream is None:
                continue
            conns = [stream.conn] if stream.conn else []
            self._send_view(stream, parts, self._own_parts(seat), public_ops, conns)
        if self.spectators:
            self._send_view(
                self.spectator_stream,
                parts,
                self._own_parts(None),
                public_ops,
                list(self.spectators),
            )

    def _snapshot(self, conn: Conn, stream: Stream, seat: int | None) -> None:
        """A fresh snapshot for one recipient (joins, gaps, resumes)."""
        view = self.view_for(seat)
        if stream.view is not None and seat is None:
            # Spectators share one stream: send its current view and seq.
            conn.send(TableSnapshot(seq=stream.seq, view=stream.view))
            return
        stream.seq += 1
        stream.view = view
        stream.parts = stream.own = None
        stream.patches.clear()
        conn.send(TableSnapshot(seq=stream.seq, view=view))

    # -- seats -------------------------------------------------------------------

    def _away_seats(self) -> set[int]:
        return {
            i
            for i, s in enumerate(self.state.seats)
            if s.kind == "human" and not (self.streams[i] and self.streams[i].conn)  # type: ignore[union-attr]
        }

    def humans_connected(self) -> int:
        return sum(1 for st in self.streams if st is not None and st.conn is not None)

    def summary(self) -> TableSummary:
        seats = self.state.seats
        return TableSummary(
            table_id=self.id,
            name=self.state.name,
            status=self.state.status,  # type: ignore[arg-type]
            humans=sum(1 for s in seats if s.kind == "human"),
            bots=sum(1 for s in seats if s.kind == "bot"),
            free=sum(1 for s in seats if s.kind == "empty"),
            deals=self.state.deals,
            bot_level=self.state.bot_level,  # type: ignore[arg-type]
            spectators=len(self.spectators),
        )

    def _free_seat(self, wanted: int | None) -> int | str:
        """The seat a newcomer takes, or an error code."""
        seats = self.state.seats
        between = self.state.status in ("waiting", "between_deals", "finished")
        if wanted is not None:
            if not 0 <= wanted <= 3:
                return "bad_seat"
            kind = seats[wanted].kind
            if kind == "empty" or (kind == "bot" and between):
                return wanted
            return "seat_taken" if kind == "human" else "wait_for_deal_end"
        for i, s in enumerate(seats):
            if s.kind == "empty":
                return i
        if between:
            for i, s in enumerate(seats):
                if s.kind == "bot":
                    return i
        return "table_full"

    async def _join(self, msg: Join) -> None:
        conn = msg.conn
        if self.closed or self.state.status == "closed":
            if not msg.quiet:
                conn.send(Error(code="table_closed", message="this table is closed", rid=msg.rid))
            msg.done.set_result("table_closed")
            return
        if msg.spectator:
            self.spectators.add(conn)
            conn.table, conn.seat = self, None
            conn.send(Seated(table_id=self.id, seat=None, rid=msg.rid))
            self._snapshot(conn, self.spectator_stream, None)
            msg.done.set_result(None)
            self._broadcast()
            self.home.table_changed(self)
            return
        seat = self._free_seat(msg.seat)
        if isinstance(seat, str):
            if not msg.quiet:
                conn.send(Error(code=seat, message=_SEAT_ERRORS[seat], rid=msg.rid))
            msg.done.set_result(seat)
            return
        token = f"{self.id}.{secrets.token_urlsafe(18)}"
        st = self.state.seats[seat]
        st.kind, st.name, st.token_digest = "human", conn.name, digest(token)
        if msg.creator or self.state.creator is None:
            self.state.creator = seat
        self.state.last_human_at = time.time()
        self._bind(conn, seat)
        conn.send(Seated(table_id=self.id, seat=seat, token=token, rid=msg.rid))
        msg.done.set_result(None)
        await self._commit()

    def _bind(self, conn: Conn, seat: int) -> None:
        stream = self.streams[seat]
        if stream is None:
            stream = self.streams[seat] = Stream()
        old = stream.conn
        if old is not None and old is not conn:
            # One connection per seat: the newest wins.
            old.send(
                Bye(code="replaced", message="your seat was taken back from another connection")
            )
            old.table, old.seat = None, None
            old.close(CLOSE_REPLACED, "replaced by a newer connection")
        stream.conn = conn
        conn.table, conn.seat = self, seat

    async def _resume(self, msg: Resume) -> None:
        conn = msg.conn
        wanted = digest(msg.token)
        seat = next(
            (
                i
                for i, s in enumerate(self.state.seats)
                if s.kind == "human"
                and s.token_digest is not None
                and secrets.compare_digest(s.token_digest, wanted)
            ),
            None,
        )
        if seat is None or self.state.status == "closed":
            conn.send(
                Error(
                    code="bad_token", message="this token holds no seat here any more", rid=msg.rid
                )
            )
            msg.done.set_result("bad_token")
            return
        stream = self.streams[seat]
        missing: list[tuple[int, bytes]] = []
        if stream is not None and stream.view is not None and msg.last_seq >= 0:
            missing = [(s, p) for s, p in stream.patches if s > msg.last_seq]
            contiguous = msg.last_seq == stream.seq or (
                missing and missing[0][0] == msg.last_seq + 1
            )
            if not contiguous:
                missing = []
        else:
            contiguous = False
        self._bind(conn, seat)
        self.state.seats[seat].name = self.state.seats[seat].name or conn.name
        self.state.last_human_at = time.time()
        conn.send(Seated(table_id=self.id, seat=seat, token=msg.token, rid=msg.rid))
        msg.done.set_result(None)
        stream = self.streams[seat]
        assert stream is not None
        if contiguous:
            # Only what the client missed, then carry on with patches.
            for s, p in missing:
                conn.send(TablePatch(seq=s, patch=_decode_patch(p)))
        else:
            self._snapshot(conn, stream, seat)
        self.log.info("seat_resumed", seat=seat, patches=len(missing), conn=conn.id)
        self._schedule()
        self._broadcast()
        self.home.table_changed(self)

    def _gone(self, conn: Conn) -> None:
        if conn in self.spectators:
            self.spectators.discard(conn)
            self._broadcast()
            self.home.table_changed(self)
            return
        seat = conn.seat
        if seat is None or self.streams[seat] is None:
            return
        stream = self.streams[seat]
        assert stream is not None
        if stream.conn is conn:
            stream.conn = None
            self.log.info("seat_away", seat=seat)
            self._schedule()
            self._broadcast()
            self.home.table_changed(self)

    async def _leave(self, conn: Conn, rid: int) -> None:
        if conn in self.spectators:
            self.spectators.discard(conn)
            conn.table = None
            conn.send(Left(table_id=self.id, reason="you stopped watching"))
            self.home.enter(conn)
            self._broadcast()
            self.home.table_changed(self)
            return
        seat = conn.seat
        assert seat is not None
        st = self.state.seats[seat]
        playing = self.state.status in ("playing", "between_deals")
        if playing:
            # Mid-game the seat goes on with a bot; the game must finish.
            st.kind, st.name, st.token_digest = "bot", BOT_NAMES[seat], None
        else:
            st.kind, st.name, st.token_digest = "empty", None, None
        self.streams[seat] = None
        conn.table, conn.seat = None, None
        conn.send(Left(table_id=self.id, reason="you left the table"))
        self.home.enter(conn)
        if self.state.creator == seat:
            humans = [i for i, s in enumerate(self.state.seats) if s.kind == "human"]
            self.state.creator = humans[0] if humans else None
        await self._commit()

    # -- commands ----------------------------------------------------------------

    async def _command(self, conn: Conn, cmd: Any) -> None:
        rid = getattr(cmd, "rid", 0)
        seat = conn.seat
        if conn.table is not self:
            conn.send(Error(code="not_at_table", message="you are not at this table", rid=rid))
            return
        match cmd:
            case SnapshotRequest():
                stream = self.spectator_stream if seat is None else self.streams[seat]
                assert stream is not None
                self._snapshot(conn, stream, seat)
                return
            case Leave():
                await self._leave(conn, rid)
                return
            case GetHistory():
                records = await self._records()
                conn.send(History(records=records, rid=rid))
                return
        if seat is None:
            conn.send(
                Error(code="spectator", message="spectators watch; sit down to play", rid=rid)
            )
            return
        match cmd:
            case StartGame():
                await self._start_game(conn, seat, rid)
            case PlayAgain():
                await self._play_again(conn, seat, rid)
            case Chat():
                await self._chat(conn, seat, cmd)
            case Bid() | Ecart() | Chelem() | Poignee() | Play():
                if self.state.status != "playing" or self.game is None:
                    conn.send(Error(code="wrong_phase", message="no deal is being played", rid=rid))
                    return
                try:
                    self._apply(seat, cmd)
                except RuleError as e:
                    metrics.ERRORS.labels("rule").inc()
                    conn.send(Error(code=e.code, message=e.message, rid=rid))
                    return
                await self._commit()
            case _:
                conn.send(
                    Error(
                        code="unexpected",
                        message=f"{type(cmd).__name__} is not for a table",
                        rid=rid,
                    )
                )

    async def _records(self) -> list[dict[str, Any]]:
        try:
            raw = await self.store.records(self.id)
        except StoreError:
            return []
        return [msgspec.json.decode(r) for r in raw]

    async def _start_game(self, conn: Conn, seat: int, rid: int) -> None:
        if self.state.status != "waiting":
            conn.send(
                Error(code="already_started", message="the game has already started", rid=rid)
            )
            return
        if self.state.creator != seat:
            conn.send(
                Error(
                    code="not_creator", message="only the table's creator starts the game", rid=rid
                )
            )
            return
        self._new_game()
        await self._commit()

    async def _play_again(self, conn: Conn, seat: int, rid: int) -> None:
        if self.state.status != "finished":
            conn.send(Error(code="not_finished", message="the game is not over yet", rid=rid))
            return
        self.state.games_played += 1
        self._new_game()
        await self._commit()

    def _new_game(self) -> None:
        st = self.state
        for i, s in enumerate(st.seats):
            if s.kind == "empty":
                s.kind, s.name = "bot", BOT_NAMES[i]
        seed = st.seed
        if seed is not None and st.games_played:
            seed = f"{seed}#{st.games_played}"
        self.game = Game(deals=st.deals, seed=seed)
        st.status = "playing"
        st.next_deal_at = None

    async def _chat(self, conn: Conn, seat: int, cmd: Chat) -> None:
        text = clean_text(cmd.text)  # no terminal escapes or bidi tricks (server/guard.py)
        if not text or len(text) > CHAT_MAX:
            conn.send(
                Error(
                    code="bad_chat",
                    message=f"chat lines are 1 to {CHAT_MAX} characters",
                    rid=cmd.rid,
                )
            )
            return
        now = time.monotonic()
        if now < self.chat_buckets.get(seat, 0.0):
            conn.send(Error(code="rate_limited", message="you are chatting too fast", rid=cmd.rid))
            return
        self.chat_buckets[seat] = now + 1.0 / self.settings.chat_rate
        chat = self.state.chat
        chat.append(ChatLine(seat=seat, name=conn.name, text=text, at=time.time()))
        del chat[:-CHAT_KEEP]
        await self._commit()

    def _apply(self, seat: int, cmd: GameCommand) -> None:
        """Apply a game command of ``seat`` to the engine (raises RuleError)."""
        assert self.game is not None
        deal = self.game.deal
        match cmd:
            case Bid(bid=bid):
                deal.bid(seat, bid)
            case Ecart(cards=cards):
                deal.ecart(seat, _parse_cards(cards, seat))
            case Chelem(declare=declare):
                deal.declare_chelem(seat, declare)
            case Poignee(cards=cards):
                deal.declare_poignee(seat, _parse_cards(cards, seat))
            case Play(card=card):
                deal.play(seat, _parse_cards([card], seat)[0])

    async def _settle_deal(self) -> None:
        """A deal is over (played out, or annulled as it was dealt): score it,
        keep its record, and pause before the next one (or end the game)."""
        game = self.game
        assert game is not None
        game.record_deal()
        record = msgspec.json.encode(game.deal.record())
        try:
            await self.store.append_record(self.id, record)
        except StoreError:
            self.log.warning("record_not_saved")
        if game.finished:
            self.state.status = "finished"
            self.log.info("game_finished", totals=game.totals())
        else:
            self.state.status = "between_deals"
            self.state.next_deal_at = time.time() + self.settings.deal_pause

    # -- timers and bots -------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _arm(self, delay: float, tick: Tick) -> None:
        self._cancel_timer()
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(max(0.0, delay), self.inbox.put_nowait, tick)

    def _schedule(self) -> None:
        """Arm the one timer the table needs now, from the state."""
        st = self.state
        self._cancel_timer()
        if st.status == "between_deals" and st.next_deal_at is not None:
            self._arm(st.next_deal_at - time.time(), Tick("deal", st.version))
        elif st.status == "playing" and self.game is not None:
            seat = self.game.deal.turn
            if seat is None:
                return
            kind = st.seats[seat].kind
            if kind == "bot":
                self._arm(self.settings.bot_think, Tick("auto", st.version, seat))
            elif seat in self._away_seats():
                self._arm(self.settings.grace, Tick("auto", st.version, seat))
            elif st.turn_timer > 0:
                # One deadline per decision; a restart or a resume keeps the
                # one already running for this decision.
                decision = self._decision()
                if st.deadline is None or st.deadline_for != decision:
                    st.deadline, st.deadline_for = time.time() + st.turn_timer, decision
                self._arm(st.deadline - time.time(), Tick("auto", st.version, seat))
                return
        st.deadline = None

    def _decision(self) -> str:
        """Names the decision awaited now: game, deal and commands so far."""
        assert self.game is not None
        return f"{self.state.games_played}/{self.game.attempt}/{len(self.game.deal.log)}"

    async def _tick(self, tick: Tick) -> None:
        st = self.state
        if tick.version != st.version:
            return  # the table moved on since this timer was armed
        if tick.kind == "deal" and self.game is not None and st.status == "between_deals":
            self.game.next_deal()
            st.next_deal_at = None
            st.status = "playing"
            await self._commit()
        elif tick.kind == "auto" and tick.seat is not None and st.status == "playing":
            await self._bot_move(tick.seat)
        elif tick.kind == "idle":
            await self._close_if_idle()

    def bot_for(self, seat: int) -> Bot:
        """A bot for ``seat``'s next decision, seeded from the table's state.

        A fresh seed per decision (table seed, game, deal, decision number)
        makes a bot's play a function of the state alone: a table restored
        after a crash plays on exactly as it would have without one.
        """
        st = self.state
        assert self.game is not None
        seed = f"{st.seed or st.table_id}/{st.games_played}/{self.game.attempt}/{seat}/" + str(
            len(self.game.deal.log)
        )
        return make_bot(st.bot_level, seed, budget_s=self.settings.bot_budget)

    async def _bot_move(self, seat: int) -> None:
        assert self.game is not None
        if self.game.deal.turn != seat:
            return
        view = self.view_for(seat)
        bot = self.bot_for(seat)
        try:
            if self.state.bot_level == "strong":
                # Searching takes a while: think off the event loop.
                cmd = await asyncio.to_thread(bot.decide, view)
            else:
                cmd = bot.decide(view)
            self._apply(seat, cmd)
        except Exception:
            # A bot bug must not stall the game: fall back to a random legal move.
            self.log.exception("bot_error", seat=seat)
            self._apply(seat, RandomBot(seat).decide(view))
        await self._commit()

    async def _close_if_idle(self) -> None:
        if self.humans_connected() or self.state.status == "closed":
            return
        if time.time() - self.state.last_human_at < self.settings.idle_close:
            return
        self.log.info("table_idle_closed")
        self.state.status = "closed"
        for conn in list(self.spectators):
            conn.send(Left(table_id=self.id, reason="the table closed"))
            conn.table = None
            self.home.enter(conn)
        self.spectators.clear()
        await self._commit()
        self.closed = True

    def note_humans(self) -> None:
        """Called by the lobby's sweeper: remember when a human was last here."""
        if self.humans_connected():
            self.state.last_human_at = time.time()


def _send_to_all(conns: list[Conn], msg: Any) -> None:
    # Encode once per codec: recipients of one stream get the same bytes.
    encoded: dict[int, bytes | str] = {}
    for conn in conns:
        key = id(conn.codec)
        data = encoded.get(key)
        if data is None:
            data = encoded[key] = conn.codec.encode(msg)
        conn.send_raw(data)
    metrics.MESSAGES_OUT.count += len(conns)


def _parse_cards(codes: list[str], seat: int) -> list[int]:
    out = []
    for c in codes:
        card = CARD_OF.get(c)
        if card is None:
            raise RuleError("unknown_card", f"{c!r} is not a card code", seat=seat, card=c)
        out.append(card)
    return out


_SEAT_ERRORS = {
    "bad_seat": "seats are numbered 0 to 3",
    "seat_taken": "a player already sits there",
    "wait_for_deal_end": "a bot plays that seat; you can take it over between deals",
    "table_full": "every seat is taken",
}


def new_state(
    table_id: str,
    code: str,
    name: str,
    *,
    private: bool,
    deals: int,
    bot_level: str,
    turn_timer: float,
    seed: str | None,
) -> TableState:
    return TableState(
        table_id=table_id,
        name=name,
        code=code,
        private=private,
        deals=deals,
        bot_level=bot_level,
        turn_timer=turn_timer,
        seed=seed,
        last_human_at=time.time(),
    )


__all__ = [
    "Command",
    "Gone",
    "Join",
    "Legal",
    "Resume",
    "Stop",
    "Table",
    "TableState",
    "TableStatus",
    "Tick",
    "new_state",
]

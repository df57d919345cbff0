"""The table actor: the thin asyncio driver of a ``TableCore``.

Nothing but the table's own task changes a table: the front, the lobby and
the table's timer put messages on its ``inbox``, and the task hands them one
at a time to the core (``TableCore.handle``, which decides everything) and
carries out the effects it returns, in order. A ``Save`` is awaited before
the effects after it, so nobody hears of a move before it is stored.

What is here is only I/O: sending, closing, the store (with its retries
while it is down), the one timer, running a bot's search off the loop, and
telling the lobby.

While the store is down, a table that no other process may own (epoch 0:
the memory or sqlite store, or Redis without a cluster) plays on from
memory and writes its newest state once the store is back. A table with an
owner epoch (server/cluster/) holds instead: another process may take it
over from what is stored, so nothing after a failed write is carried out,
and no message taken, until that write is stored (then the table goes on)
or refused as stale (then it steps down).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

import msgspec
import structlog

from protocol.messages import Error, GameCommand, History
from server.base import metrics
from server.base.clock import WALL, Clock, Timer
from server.bots import Bot, RandomBot, make_bot
from server.link.conn import CLOSE_FOR, Recipient, send_to_all
from server.store.base import StaleWrite, StoreError, TableStore
from server.table.core import TableCore
from server.table.effects import (
    Advise,
    Answer,
    Arm,
    Close,
    Effect,
    Listing,
    Log,
    Record,
    Refused,
    Route,
    Save,
    Send,
    SendHistory,
    Think,
)
from server.table.ending import GameEnds, GameOver
from server.table.inbox import Act, BotMove, InboxItem, Peer, Stop
from server.table.state import TableState, decode_state, encode_state

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.link.conn import Conn

log = structlog.get_logger()

# The effects of a move, the clock and the latency histogram as the actor's
# loop reads them per message: ``Final``, as compiled code keeps them (other
# names imported from modules it does not compile are looked up in this
# module's namespace at each use).
_SEND: Final = Send
_SAVE: Final = Save
_ARM: Final = Arm
_perf_counter: Final = time.perf_counter
_LATENCY: Final = metrics.ACTION_LATENCY

HOLD_FIRST_S = 0.05
HOLD_MAX_S = 1.0
"""Retry delays of a held write (``Table._hold``): the table is stalled
meanwhile, so try again soon; a refused connect costs next to nothing."""


class BotMaker(Protocol):
    """How a bot is made for a decision (``server.bots.make_bot``)."""

    def __call__(self, level: str, seed: str, *, budget_s: float | None) -> Bot: ...


class Home(Protocol):
    """What a table needs from the tables that serve it (server/lobby/tables.py)."""

    def game_ends(self, mode: str) -> GameEnds | None:
        """What hears the end of a game of ``mode`` (``GameOver``); None: nothing here."""

    def table_changed(self, table: Table, listing: Listing) -> None:
        """The table's lobby listing is now ``listing``."""

    def route(self, conn: Conn, table: Table, here: bool, to_lobby: bool) -> None:
        """``conn``'s commands go to ``table`` (``here``) or no longer do."""

    def stepped_down(self, table: Table) -> None:
        """Another process owns ``table`` now: this one neither writes nor sends."""


class Mailbox:
    """A table's inbox: its messages in order, for its one task to take.

    What ``asyncio.Queue`` does for one reader and no bound, without its task
    counts, its ``Event`` and its putters: under load a move's hand-off
    through a ``Queue`` cost about 3% of the server's time (docs/LOAD.md).
    """

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self) -> None:
        self._items: deque[InboxItem] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop of its one reader, kept: on Python 3.11 each
        ``get_running_loop()`` is a ``getpid`` system call."""

    def put_nowait(self, item: InboxItem) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # (cancelled with its reader)
                waiter.set_result(None)

    def arrival(self) -> asyncio.Future[None]:
        """Resolved by the next ``put_nowait``: what the reader awaits while
        the box is empty (a future, not a ``get`` coroutine made per message)."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        return waiter

    async def get(self) -> InboxItem:
        items = self._items
        while not items:
            await self.arrival()
        return items.popleft()


def _send_all(to: tuple[Peer, ...], message: object) -> None:
    """``send_to_all`` as a ``Send``'s recipients are typed: the core names
    connections only as ``Peer``s, the ones this actor is given are ``Conn``s
    or look-alikes (``Recipient``s)."""
    send_to_all(cast("tuple[Recipient, ...]", to), message)


class Reachable(Protocol):
    """What the actor does with the connection a ``Peer`` names: the front's
    ``Conn``, or a look-alike (the cluster's ``RemotePeer``, a test's). A
    protocol, not ``Conn``: compiled (server/base/compiled.py), a value typed
    with a class is checked at run time, and a look-alike is no ``Conn``."""

    def send(self, msg: Any) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


def _conn(peer: Peer) -> Reachable:
    # The core names connections only as ``Peer``s; the ones this actor is
    # given can be sent to and closed.
    return cast("Reachable", peer)


class Table:
    """The actor. Create with ``Table(state, ...)`` or ``Table.restore``, then ``start``."""

    def __init__(
        self,
        state: TableState,
        store: TableStore,
        settings: Settings,
        home: Home,
        clock: Clock = WALL,
    ) -> None:
        self.core = TableCore(state, settings)
        self.store = store
        self.settings = settings
        self.home = home  # told of changes, takes back who leaves
        self.clock = clock
        self.inbox = Mailbox()
        self.timer: Timer | None = None
        self.task: asyncio.Task[None] | None = None
        self.stale = False
        """Another process saved a newer version: this one stops serving the table."""
        self.epoch = 0
        """This process's owner epoch of the table (server/cluster/lease.py); 0: no
        other process may own it (the memory store), saves are not fenced."""
        self.listing: Listing | None = None
        self.dirty: tuple[int, bytes, bool] | None = None
        """A state the store refused while down, written again by ``_retry``."""
        self.records_due: list[tuple[bytes, str]] = []
        """Deal records the store refused while down: written before any later state."""
        self.retry_task: asyncio.Task[None] | None = None
        self.held = False
        """A write waits for the store to come back, and the table with it (``_hold``)."""
        self.log = log.bind(table=state.table_id)
        self.bots: BotMaker = make_bot
        """Makes the bot of a ``Think`` (a test may give bots that take a chosen time)."""
        self.thinking: set[asyncio.Task[None]] = set()
        """The bots deciding now: kept from the collector, stopped with the table."""
        self.hinting: set[Peer] = set()
        """Players whose hint is being searched: one at a time each (a search is costly)."""

    @property
    def id(self) -> str:
        return self.core.id

    @property
    def closed(self) -> bool:
        return self.core.closed or self.stale

    @property
    def unsaved(self) -> bool:
        """The newest state waits for the store to come back (``/healthz``)."""
        return self.dirty is not None or self.held

    @classmethod
    def restore(
        cls, blob: bytes, store: TableStore, settings: Settings, home: Home, clock: Clock = WALL
    ) -> Table | None:
        """The table saved as ``blob``, or None if it was closed."""
        state = decode_state(blob)
        if state.status == "closed":
            return None
        return cls(state, store, settings, home, clock)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")
        # A restored table re-arms its timers from the absolute deadlines.
        for effect in self.core.start(self.clock.time()):
            self._now(effect)

    # -- the actor loop ----------------------------------------------------------

    async def _run(self) -> None:
        inbox = self.inbox
        waiting = inbox._items  # (read here: no ``get`` coroutine per message)
        core, clock, table_id = self.core, self.clock, self.id
        while not self.closed:
            while not waiting:
                await inbox.arrival()
            msg = waiting.popleft()
            if isinstance(msg, Stop):
                break
            started = _perf_counter()
            try:
                # The core decides, then its effects are carried out in order.
                # The effects of every move by their type, here (no coroutine
                # per message for them), with no match (a class pattern on a
                # Struct is an isinstance through its metaclass) and no ``cast``
                # (a function call each at run time); the rest by ``_perform``.
                for effect in core.handle(msg, clock.time()):
                    if self.stale:
                        # Refused as stale (by a save, or the lease renewal while this
                        # one waited): another process serves the table; say nothing.
                        break
                    if type(effect) is _SEND:  # most effects: straight out
                        _send_all(effect.to, effect.message)
                    elif type(effect) is _SAVE:  # one a move
                        if self.records_due:
                            await self._save(effect.version, effect.blob, effect.open_)
                            continue
                        # (``_save``'s usual cases, here: no coroutine of ours
                        # a move, nor ``_hold``'s two for an owner's save)
                        version, blob, open_ = effect.version, effect.blob, effect.open_
                        epoch = self.epoch
                        try:
                            await self.store.save(table_id, version, blob, open_=open_, epoch=epoch)
                        except StoreError as e:
                            if epoch:
                                await self._held(e, version, blob, open_)
                            else:
                                self._unsaved(e, version, blob, open_)
                        else:
                            self.dirty = None
                    elif type(effect) is _ARM:  # one a move, most often no timer and none armed
                        if effect.at is not None or self.timer is not None:
                            self._now(effect)
                    else:
                        await self._perform(effect)
            except Exception:
                # Our own bug: log it with its traceback, keep the table alive,
                # and tell the client no more than that it was not its fault.
                self.log.exception("table_error", message=type(msg).__name__)
                metrics.ERRORS.labels("internal").inc()
                if isinstance(msg, Act):
                    _conn(msg.peer).send(
                        Error(
                            code="internal",
                            message="the server hit a bug; your command was not carried out",
                            rid=getattr(msg.command, "rid", None),
                        )
                    )
            if type(msg) is Act:
                _LATENCY.observe(_perf_counter() - started)
        self._cancel_timer()
        for task in list(self.thinking):
            task.cancel()

    async def _perform(self, effect: Effect) -> None:
        """Carry out an effect other than a move's own (``_run`` does those)."""
        match effect:
            case Record(blob=blob, key=key):
                await self._record(blob, key)
            case SendHistory(peer=peer, rid=rid):
                _conn(peer).send(History(records=await self._records(), rid=rid))
            case GameOver():
                await self._game_over(effect)
            case _:
                self._now(effect)

    def _now(self, effect: Effect) -> None:
        """Carry out an effect that needs no waiting."""
        match effect:
            case Send(to=to, message=message):
                _send_all(to, message)
            case Arm(at=at, wake=wake):
                self._cancel_timer()
                if at is not None and wake is not None:
                    self.timer = self.clock.call_at(
                        at, functools.partial(self.inbox.put_nowait, wake)
                    )
            case Listing():
                self.listing = effect
                self.home.table_changed(self, effect)
            case Route(peer=peer, here=here, to_lobby=to_lobby):
                self.home.route(cast(Any, peer), self, here, to_lobby)  # (no check: see Reachable)
            case Answer(to=to, error=error):
                if to.done is not None and not to.done.done():
                    to.done.set_result(error)
            case Close(peer=peer, why=why, reason=reason):
                _conn(peer).close(CLOSE_FOR[why], reason)
            case Log(event=event, level=level, fields=fields):
                getattr(self.log, level)(event, **dict(fields))
            case Refused(blame=blame):
                metrics.ERRORS.labels(blame).inc()
            case Think():
                # Decided beside the table, which goes on taking messages: the
                # core holds the move until the bot's timer fires.
                task = asyncio.get_running_loop().create_task(self._think(effect))
                self.thinking.add(task)
                task.add_done_callback(self.thinking.discard)
            case Advise(peer=peer, rid=rid):
                if peer in self.hinting:
                    busy = Error(code="rate_limited", message="one hint at a time", rid=rid)
                    _conn(peer).send(busy)
                    return
                self.hinting.add(peer)
                task = asyncio.get_running_loop().create_task(self._advise(effect))
                self.thinking.add(task)
                task.add_done_callback(self.thinking.discard)
            case _:
                raise AssertionError(f"{effect!r} needs waiting for")

    async def _game_over(self, over: GameOver) -> None:
        """Tell the game's end to what hears its mode's, and its answers to the table."""
        ends = self.home.game_ends(over.mode.name)
        if ends is None:
            self.log.warning("game_end_unheard", mode=over.mode.name)
            return
        for peer, message in await ends.game_over(over, self.log):
            _conn(peer).send(message)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    async def _think(self, think: Think) -> None:
        """Decide for the bot, then hand the decision to the table as a ``BotMove``."""
        command = await self._decide(think)
        if not self.closed:
            self.inbox.put_nowait(BotMove(think.seat, think.version, command, think.view))

    async def _advise(self, advise: Advise) -> None:
        """Search the strong bot's choice for the asker's seat, off the event
        loop, and answer the asker alone."""
        from server.bots.advice import advise as search  # the search: loaded when first asked

        try:
            budget = self.settings.bot_budget
            answer = await asyncio.to_thread(search, advise.view, advise.seed, budget)
            answer.rid = advise.rid
            _conn(advise.peer).send(answer)
        except Exception:
            self.log.exception("hint_error")
            failed = Error(code="internal", message="no hint this time", rid=advise.rid)
            _conn(advise.peer).send(failed)
        finally:
            self.hinting.discard(advise.peer)

    async def _decide(self, think: Think) -> GameCommand:
        bot = self.bots(think.level, think.seed, budget_s=self.settings.bot_budget)
        try:
            if think.level == "strong":
                # Searching takes a while: think off the event loop.
                return await asyncio.to_thread(bot.decide, think.view)
            return bot.decide(think.view)
        except Exception:
            # A bot bug must not stall the game: fall back to a random legal move.
            self.log.exception("bot_error", seat=think.seat)
            return RandomBot(think.seat).decide(think.view)

    # -- persistence -------------------------------------------------------------

    async def _record(self, blob: bytes, key: str) -> None:
        if self.epoch > 0:
            await self._hold(
                lambda: self.store.append_record(self.id, blob, key, epoch=self.epoch),
                self.core.state.version,
            )
            return
        # No owner to fence (memory, a single file): kept until written (keyed:
        # a second write adds nothing); the Save that always follows waits for it.
        self.records_due.append((blob, key))
        await self._write_records(quiet=True)

    async def _write_records(self, quiet: bool = False) -> None:
        """Append the deal records due, oldest first; ``StoreError`` if the store
        is down (``quiet``: keep them for the next save or ``_retry``)."""
        try:
            while self.records_due:
                blob, key = self.records_due[0]
                await self.store.append_record(self.id, blob, key, epoch=self.epoch)
                del self.records_due[0]
        except StoreError:
            if not quiet:
                raise

    async def _save(self, version: int, blob: bytes, open_: bool) -> None:
        if self.epoch > 0:
            await self._hold(self._owners_save(version, blob, open_), version)
            return
        try:
            if self.records_due:  # a state is never stored ahead of its records
                await self._write_records()
            await self.store.save(self.id, version, blob, open_=open_)
        except StoreError as e:
            self._unsaved(e, version, blob, open_)
        else:
            self.dirty = None

    def _unsaved(self, e: StoreError, version: int, blob: bytes, open_: bool) -> None:
        """A save (no owner epoch) the store refused."""
        if isinstance(e, StaleWrite):
            self._went_stale(version)
            return
        # The store is down: keep playing from memory and write the newest
        # state when it is back (see docs/DEPLOY.md for what can be lost).
        if self.dirty is None:  # once per outage, not once per move
            self.log.warning("save_failed_retrying", error=str(e))
        metrics.ERRORS.labels("store").inc()
        self.dirty = (version, blob, open_)
        if self.retry_task is None or self.retry_task.done():
            self.retry_task = asyncio.get_running_loop().create_task(self._retry())

    def _owners_save(self, version: int, blob: bytes, open_: bool) -> Callable[[], Awaitable[None]]:
        """The save of a state under this process's owner epoch, to ``_hold``."""
        return lambda: self.store.save(self.id, version, blob, open_=open_, epoch=self.epoch)

    async def _held(self, failed: StoreError, version: int, blob: bytes, open_: bool) -> None:
        """An owner's save that ``failed`` (``_run`` tried it once): stale, the
        table steps down; else it is held (``_hold``) until stored."""
        if isinstance(failed, StaleWrite):
            self._went_stale(version)
            return
        await self._hold(self._owners_save(version, blob, open_), version, failed)

    async def _hold(
        self,
        write: Callable[[], Awaitable[None]],
        version: int,
        failed: StoreError | None = None,
    ) -> None:
        """Write until stored, or until refused as stale (the table steps down);
        ``failed``: the first try already failed so.

        Owner epochs only: returning before it is stored would let the effects
        after it (the updates to the clients) tell of a move that a process
        taking the table over from Redis never sees. Holding here keeps the
        actor from taking any message meanwhile; the lease renewal may make
        the table step down while it waits.
        """
        delay = HOLD_FIRST_S
        while not self.stale:
            if failed is None:
                try:
                    await write()
                except StaleWrite:
                    self._went_stale(version)
                    return
                except StoreError as e:
                    failed = e
                else:
                    if self.held:
                        self.held = False
                        self.log.info("write_recovered", version=version)
                    return
            if not self.held:  # once per outage, not once per retry
                self.log.warning("write_failed_holding", version=version, error=str(failed))
                self.held = True
            metrics.ERRORS.labels("store").inc()
            failed = None
            await self.clock.sleep(delay)
            delay = min(delay * 2, HOLD_MAX_S)
        self.held = False

    def _went_stale(self, version: int) -> None:
        # Another process owns this table now: stop writing and serving it.
        self.log.warning("stale_table_stepped_down", version=version, epoch=self.epoch)
        self.step_down()

    def step_down(self) -> None:
        """Stop serving the table at once, without a save: another owner has it."""
        if self.stale:
            return
        self.stale = True
        self.dirty = None
        self._cancel_timer()
        self.inbox.put_nowait(Stop())
        self.home.stepped_down(self)

    async def _retry(self) -> None:
        delay = 0.1
        while self.dirty is not None:
            await self.clock.sleep(delay)
            version, blob, open_ = self.dirty
            try:
                await self._write_records()
                await self.store.save(self.id, version, blob, open_=open_, epoch=self.epoch)
            except StaleWrite:
                self._went_stale(version)
                return
            except StoreError:
                delay = min(delay * 2, 5.0)
                continue
            if self.dirty is not None and self.dirty[0] == version:
                self.dirty = None
                self.log.info("save_recovered", version=version)

    async def flush(self) -> None:
        """Save the current state now (shutdown)."""
        if self.stale:
            return
        st = self.core.state
        try:
            await self._write_records()
            await self.store.save(
                self.id,
                st.version,
                encode_state(st),
                open_=st.status != "closed",
                epoch=self.epoch,
            )
            self.dirty = None
        except StaleWrite:
            self.stale = True
        except StoreError:
            self.log.error("shutdown_save_failed")

    async def _records(self) -> list[dict[str, object]]:
        try:
            raw = await self.store.records(self.id)
        except StoreError:
            return []
        return [msgspec.json.decode(r) for r in raw]

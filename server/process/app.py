"""``atout-server serve``: wire the store, the lobby and the WebSocket front
together, run until SIGTERM/SIGINT, then shut down cleanly (persist every
table, tell every client, close with 1012 so clients reconnect by themselves).

``Server`` is also what tests and ``atout play`` embed in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
from websockets.asyncio.server import serve
from websockets.typing import Subprotocol

from protocol.codec import SUBPROTOCOLS
from server.base import compiled
from server.base.clock import WALL, Clock, timeout
from server.base.config import Settings
from server.daily.mode import DailyMode
from server.daily.service import DailyService
from server.front.door import Front, select_subprotocol
from server.link import keepalive
from server.link.reader import LeanConnection
from server.lobby.directory import Directory, OneProcess
from server.lobby.lobby import Lobby
from server.process import logs
from server.process.collector import freeze_survivors, tune_gc
from server.store.base import StoreError, TableStore
from server.store.memory import MemoryStore
from server.tournament.mode import TournamentMode
from server.tournament.service import TournamentService
from server.tournament.store import MemoryTournaments, RedisTournaments, TournamentStore

if TYPE_CHECKING:
    from server.cluster.node import Node
    from server.lobby.tables import Tables

log = structlog.get_logger()

CUT_OFF_WAIT_S = 1.0
"""After the grace, how long the connections cut off have to be gone."""


async def open_store(settings: Settings) -> TableStore:
    if settings.redis_url:
        from server.store.redis import RedisStore

        return await RedisStore.connect(
            settings.redis_url,
            expire_s=settings.table_expire,
            save_interval_s=settings.save_interval,
            namespace=settings.redis_namespace,
        )
    return MemoryStore()


def tournament_store(store: TableStore) -> TournamentStore:
    """Beside the tables: in their Redis, else in this process's memory."""
    from server.store.redis import RedisStore

    if isinstance(store, RedisStore):
        return RedisTournaments(store)
    return MemoryTournaments()


class Server:
    """One server process: ``await start()``, then ``await stop()``."""

    def __init__(
        self, settings: Settings, store: TableStore | None = None, clock: Clock = WALL
    ) -> None:
        self.settings = settings
        self.clock = clock
        self._store = store
        self.stopping = False
        self.started_at = clock.time()
        self._ws: Any = None
        self.port = settings.port
        self._healthy = True
        self.node: Node | None = None
        self.proc: str | None = None
        """This process's id in the service (None: drawn by its ``Node``)."""
        self.reaped: tuple[str, ...] = ()
        """Processes known dead whose leases to free (server/process/workers.py)."""

    async def start(self) -> None:
        # Listen first, accepting nobody yet: a port in use or a host that is
        # not ours fails before a single table is loaded (and run) for nothing.
        self._ws = await serve(
            lambda ws: self.front.handler(ws),
            self.settings.host,
            self.settings.port,
            subprotocols=[Subprotocol(s) for s in SUBPROTOCOLS],
            select_subprotocol=select_subprotocol,
            process_request=lambda ws, request: self.front.process_request(ws, request),
            max_size=self.settings.max_frame,
            open_timeout=self.settings.handshake_timeout or None,  # server/link/guard.py
            compression=None,  # CPU per message matters more than bytes here
            # One keepalive for all connections (server/link/keepalive.py)
            # rather than websockets' task per connection.
            ping_interval=None if keepalive.available() else keepalive.PING_INTERVAL,
            ping_timeout=keepalive.PING_TIMEOUT,
            create_connection=LeanConnection,  # small frames read in place (server/link/reader.py)
            start_serving=False,
            # --workers: each worker listens on the same port and the kernel
            # spreads new connections over them (server/process/workers.py). Only
            # then: two lone servers on one port must still fail to start.
            reuse_port=self.settings.workers > 1,
        )
        try:
            if self._store is None:
                self._store = await open_store(self.settings)
            self.store = self._store
            # Players and the daily game, before tables are restored (a
            # restored daily table needs them). Its days and its results'
            # times are the server's clock's.
            self.daily = await DailyService.open(self.settings, self.store, self.clock.time)
            self.tournaments = TournamentService(
                self.settings, tournament_store(self.store), self.clock
            )
            directory = _directory(self, self.store)
            self.lobby = Lobby(
                self.store,
                self.settings,
                self.clock,
                # What hears each mode's game ends (server/table/ending.py).
                ends={DailyMode.name: self.daily, TournamentMode.name: self.tournaments},
                directory=directory,
            )
            self.tables = self.lobby.tables
            self.front = Front(self)
            if self.node is not None:
                await self.node.open()  # the bus, and every process's listings
            await self.tables.restore()
            # Tournaments after the tables: a round's tables served again are
            # not opened twice.
            self.tournaments.serve(self.tables)
            await self.tournaments.restore()
        except BaseException:
            self._ws.close()
            raise
        self.lobby.start()
        if self.node is not None:
            self.node.start()
        await self._ws.start_serving()
        sock = next(iter(self._ws.sockets))
        self.port = sock.getsockname()[1]
        self._health_task = asyncio.get_running_loop().create_task(self._watch_store())
        self._gc_task = asyncio.get_running_loop().create_task(freeze_survivors(self.clock))
        # Whether the hot modules run compiled (server/base/compiled.py): the
        # same code either way, about a fifth fewer instructions a move compiled.
        built, _, stale = compiled.status()
        log.info(
            "serving",
            host=self.settings.host,
            port=self.port,
            store="redis" if self.settings.redis_url else "memory",
            compiled=f"{len(built)}/{len(compiled.COMPILED)}",
        )
        if stale:
            # Edited since built: Python runs the old compiled code, not the edit.
            log.warning("compiled_stale", modules=stale, rebuild="ATOUT_COMPILE=1 pip install -e .")

    async def _watch_store(self) -> None:
        while True:
            self._healthy = await self.store.healthy()
            await self.clock.sleep(1.0 if self._healthy else 0.5)

    def health(self) -> dict[str, Any]:
        dirty = self.tables.unsaved()
        # None: no bus (one process, no Redis). False: commands and updates
        # from the other processes are lost until the subscriber is back.
        bus = None if self.node is None else self.node.subscribed
        degraded = not self._healthy or dirty > 0 or bus is False
        return {
            # down: shutting down, send no new players here.
            "status": "down" if self.stopping else "degraded" if degraded else "ok",
            "store": "redis" if self.settings.redis_url else "memory",
            "store_reachable": self._healthy,
            "bus_subscribed": bus,
            "unsaved_tables": dirty,
            "tables": len(self.tables),
            "connections": len(self.front.conns),
            "uptime_s": round(self.clock.time() - self.started_at, 1),
        }

    async def stop(self) -> None:
        """Graceful: stop accepting, save every table, say goodbye (1012)."""
        if self.stopping:
            return
        self.stopping = True
        self._health_task.cancel()
        self._gc_task.cancel()
        await self.tournaments.stop()
        if self.node is not None:
            await self.node.drain()  # the tables go to the other processes
        else:
            await self.lobby.stop()
        await self.front.goodbye()
        self._ws.close()
        try:
            async with timeout(self.clock, self.settings.shutdown_grace):
                await self._ws.wait_closed()
        except TimeoutError:
            # Clients that never answered the close (gone, or frozen): cut
            # them off now. Else each connection's own close handshake goes on
            # to websockets' close_timeout (10 s), and the process outlives
            # its grace by that much after "stopped" (asyncio.run waits for it).
            self.front.cut_off()
            with contextlib.suppress(TimeoutError):
                async with timeout(self.clock, CUT_OFF_WAIT_S):
                    await self._ws.wait_closed()
        if self.node is not None:
            await self.node.close()
        await self.store.close()
        log.info("stopped")


def _directory(server: Server, store: TableStore) -> Callable[[Tables], Directory]:
    """Where the tables stand in the service: this process is all of it
    (``OneProcess``), or one of several on one Redis (server/cluster/): then
    the ``Node`` is also the server's, which opens, drains and closes it."""
    from server.store.redis import RedisStore

    if not server.settings.redis_url or not isinstance(store, RedisStore):
        return OneProcess  # no Redis, or a test's own store: one process
    redis = store

    def node(tables: Tables) -> Directory:
        from server.cluster.node import Node

        server.node = Node(redis, server.settings, tables, server.clock, server.proc, server.reaped)
        return server.node

    return node


class CannotStart(Exception):
    """The server could not listen or reach its store; ``__cause__`` says why."""


async def run(
    settings: Settings,
    server: Server | None = None,
    serving: Callable[[], object] | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT, then stop gracefully. A worker of
    ``--workers`` passes its own ``server`` and hears when it is ``serving``."""
    server = server or Server(settings)
    try:
        await server.start()
    except (OSError, StoreError) as exc:
        raise CannotStart from exc
    if serving is not None:
        serving()
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)
    await done.wait()
    log.info("shutting_down")
    await server.stop()


def serve_main(settings: Settings) -> None:
    """Run until SIGTERM/SIGINT (``server.__main__`` parses the command line)."""
    logs.configure(settings.log_format, settings.log_level)
    tune_gc()
    try:
        import uvloop

        uvloop.install()  # twice the raw throughput where installed
    except ImportError:
        pass
    asyncio.run(run(settings))

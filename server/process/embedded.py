"""The server a program brings along: the one entry point of the server for
clients (``atout play``), besides the pure rules of ``server.game``.

A real Atout server on a free local port, in a background thread with its
own event loop. Why a thread rather than the caller's loop: bots think
synchronously inside the server's loop (a ``normal`` bot weighs its options
in plain Python); in their own thread they can never freeze a terminal or
delay a keystroke. The caller talks to it over a real WebSocket like to any
other server, so ``atout play`` exercises exactly the code ``atout connect``
does; it never reads the server's store.

Usage contract::

    embedded = EmbeddedServer(Settings(port=0, host="127.0.0.1"), store_path=path,
                              keep_only=lambda: my_table_id)
    url = embedded.start()   # blocks until it listens: "ws://127.0.0.1:PORT"
    ...                      # connect to ``url``, resume, play
    embedded.stop()          # saves and closes every table, ends the thread

``store_path``: tables live in that SQLite file rather than in memory, so a
game outlives the process: the next start serves it again and its player
resumes it with the token they kept (docs/PROTOCOL.md, ``resume``).
``keep_only``: the file holds one game, the player's — the table their seat
is at (``None``: none). Every other table in the file is dropped when the
server starts and after it stops, so a game given up for a new one never
comes back. It is called in the server's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from server.base.config import Settings
from server.process.app import Server
from server.store.base import TableStore

__all__ = ["EmbeddedError", "EmbeddedServer", "Settings"]


class EmbeddedError(RuntimeError):
    """The embedded server could not start, or failed while it ran or stopped."""


class EmbeddedServer:
    """``start()`` returns the ``ws://`` URL; ``stop()`` shuts it down (both block briefly)."""

    def __init__(
        self,
        settings: Settings | None = None,
        store_path: Path | None = None,
        keep_only: Callable[[], str | None] | None = None,
    ) -> None:
        self.settings = settings or Settings(port=0, host="127.0.0.1")
        self.store_path = store_path
        self.keep_only = keep_only
        self.url = ""
        self.port = 0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self, timeout: float = 15.0) -> str:
        """Start serving (once); the URL to connect to. Raises ``EmbeddedError``."""
        if self._thread is not None:
            return self.url
        self._thread = threading.Thread(target=self._main, name="atout-embedded", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise EmbeddedError("the embedded server did not start in time")
        if self._error is not None:
            raise EmbeddedError(f"the embedded server could not start: {self._error}")
        return self.url

    def stop(self, timeout: float = 10.0) -> None:
        """Save and close every table, say goodbye to clients, end the thread.
        Raises ``EmbeddedError`` if the server failed after it started."""
        thread, loop, stop = self._thread, self._loop, self._stop
        if thread is None or loop is None or stop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop already ended
            loop.call_soon_threadsafe(stop.set)
        thread.join(timeout)
        self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise EmbeddedError(f"the embedded server failed: {error}") from error

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as e:  # the thread's edge: start() or stop() raises it
            self._error = e
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        store = await self._open_store()
        server = Server(self.settings, store=store)
        await server.start()
        self.port = server.port
        self.url = f"ws://{self.settings.host}:{server.port}"
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await server.stop()  # closes the store too
        if self.store_path is not None and self.keep_only is not None:
            store = await self._open_store()
            if store is not None:
                await store.close()

    async def _open_store(self) -> TableStore | None:
        """The SQLite store (None: tables in memory), the player's one game kept."""
        if self.store_path is None:
            return None
        from server.store.sqlite import SqliteStore

        # Opened in this thread: an sqlite3 connection stays in its thread.
        store = SqliteStore(self.store_path)
        if self.keep_only is not None:
            keep = self.keep_only()
            for table_id in await store.open_tables():
                if table_id != keep:
                    await store.delete(table_id)
        return store

"""The server ``atout play`` brings along: a real Atout server on a free local
port, tables in memory, running in a background thread with its own loop.

Why a thread rather than the Textual loop: bots think synchronously inside
the server's loop (a ``normal`` bot weighs its options in plain Python); in
their own thread they can never freeze the screen or delay a keystroke.
The client talks to it over a real WebSocket like to any other server, so
``atout play`` exercises exactly the code ``atout connect`` does.

Given a ``store_path``, tables live in that SQLite file (``SqliteStore``)
rather than in memory, so a game outlives the process: the next start
serves it again and the player resumes it where it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

from server.app import Server
from server.config import Settings
from server.store.base import TableStore


class EmbeddedServer:
    """``start()`` returns the ``ws://`` URL; ``stop()`` shuts it down (both block briefly)."""

    def __init__(self, settings: Settings | None = None, store_path: Path | None = None) -> None:
        self.settings = settings or Settings(port=0, host="127.0.0.1")
        self.store_path = store_path
        self.url = ""
        self.port = 0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self, timeout: float = 15.0) -> str:
        if self._thread is not None:
            return self.url
        self._thread = threading.Thread(target=self._main, name="atout-embedded", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("the embedded server did not start in time")
        if self._error is not None:
            raise RuntimeError(f"the embedded server could not start: {self._error}")
        return self.url

    def stop(self, timeout: float = 10.0) -> None:
        """Save and close every table, say goodbye to clients, end the thread."""
        thread, loop, stop = self._thread, self._loop, self._stop
        if thread is None or loop is None or stop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop already ended
            loop.call_soon_threadsafe(stop.set)
        thread.join(timeout)
        self._thread = None

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as e:  # reported to start(); the thread just ends
            self._error = e
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        store: TableStore | None = None
        if self.store_path is not None:
            from server.store.sqlite import SqliteStore

            # Opened in this thread: an sqlite3 connection stays in its thread.
            store = SqliteStore(self.store_path)
        server = Server(self.settings, store=store)
        await server.start()
        self.port = server.port
        self.url = f"ws://{self.settings.host}:{server.port}"
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await server.stop()

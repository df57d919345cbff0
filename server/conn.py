"""One client connection: its codec, its bounded send queue and its rate limit.

Everything the server sends to a client goes through ``Conn.send``, which
never blocks: messages wait in a bounded queue drained by a writer task, and a
client too slow to drain it is dropped (close code 4002) rather than stalling
a table. ``Conn`` knows nothing of tables or rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import TYPE_CHECKING, Any

import structlog
from websockets.exceptions import ConnectionClosed

from protocol.codec import Codec

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.table import Table

log = structlog.get_logger()

# Close codes (4000-4999 are ours; docs/PROTOCOL.md lists them).
CLOSE_REPLACED = 4001
CLOSE_TOO_SLOW = 4002
CLOSE_INCOMPATIBLE = 4003
CLOSE_NO_HELLO = 4004
CLOSE_ABUSE = 4005
CLOSE_RESTART = 1012

_ids = itertools.count(1)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Conn:
    """A client connection after the WebSocket handshake."""

    def __init__(
        self, ws: ServerConnection, codec: Codec, queue_size: int, rate: float, burst: int
    ) -> None:
        self.id = f"c{next(_ids)}"
        self.ws = ws
        self.codec = codec
        self.name = ""
        self.hello = False
        self.table: Table | None = None
        self.seat: int | None = None
        self.bucket = TokenBucket(rate, burst)
        self.refused = 0  # messages refused for rate, recently
        self._queue: asyncio.Queue[bytes | str | None] = asyncio.Queue(queue_size)
        self._writer = asyncio.create_task(self._write(), name=f"writer-{self.id}")
        self.closed = False
        self._close_with = (1000, "")
        self.log = log.bind(conn=self.id)

    def send(self, msg: Any) -> None:
        """Queue ``msg`` for the client; drop the client if its queue is full."""
        self.send_raw(self.codec.encode(msg))

    def send_raw(self, data: bytes | str) -> None:
        if self.closed:
            return
        try:
            self._queue.put_nowait(data)
        except asyncio.QueueFull:
            self.log.warning("client_too_slow", queued=self._queue.qsize())
            self.close(CLOSE_TOO_SLOW, "too slow to read its messages")

    def close(self, code: int, reason: str) -> None:
        """Close after the messages already queued (never blocks)."""
        if self.closed:
            return
        self.closed = True
        self._close_with = (code, reason)
        try:
            # The writer closes the socket when it reaches this marker, so a
            # goodbye queued just before is sent first.
            self._queue.put_nowait(None)
        except asyncio.QueueFull:
            # Too slow to drain: do not wait for the queue.
            self._writer.cancel()
            asyncio.get_running_loop().create_task(self._close_now())

    async def _close_now(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(*self._close_with)

    async def _write(self) -> None:
        ws = self.ws
        queue = self._queue
        try:
            while True:
                data = await queue.get()
                if data is None:
                    await self._close_now()
                    return
                await ws.send(data)
        except ConnectionClosed:
            pass

    async def finish(self) -> None:
        """The handler is done: let a requested close go out, then stop the writer."""
        if self.closed and not self._writer.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._writer), 2.0)
        self.closed = True
        self._writer.cancel()

"""One client connection: its codec, its rate limit and how it is written to.

Everything the server sends to a client goes through ``Conn.send``, which
never blocks: a frame is written to the socket at once, like
``websockets.broadcast`` does, with no task or queue per connection (a writer
task per connection cost a queue hand-off and a task switch per message: 10-15%
of the server's busy time under load, see docs/LOAD.md). What the kernel cannot
take at once waits in the connection's write buffer; a client that lets that
buffer grow past ``send_buffer`` bytes is too slow to read its messages and is
dropped (close code 4002) rather than making the server hold its backlog.
``Conn`` knows nothing of tables or rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol

import structlog
from websockets.asyncio.connection import broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import OPEN

from protocol.codec import Codec
from protocol.errors import ByeCode
from server.base import metrics
from server.base.clock import WALL, Clock, timeout
from server.link.guard import Bucket
from server.link.reader import STATE_FIELD

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.base.players import Player

log = structlog.get_logger()

# Close codes (4000-4999 are ours; docs/PROTOCOL.md lists them).
CLOSE_REPLACED = 4001
CLOSE_TOO_SLOW = 4002
CLOSE_INCOMPATIBLE = 4003
CLOSE_NO_HELLO = 4004
CLOSE_ABUSE = 4005
CLOSE_IDLE = 4006
CLOSE_RESTART = 1012

CLOSE_FOR: dict[ByeCode, int] = {
    "replaced": CLOSE_REPLACED,
    "flooding": CLOSE_ABUSE,
    "no_hello": CLOSE_NO_HELLO,
    "restarting": CLOSE_RESTART,
    "idle": CLOSE_IDLE,
}
"""The close code that follows each bye."""

_ids = itertools.count(1)


CLOSE_WAIT_S = 2.0
"""How long a finished handler waits for its requested close to go out."""

DROP_AFTER_CLOSE = 1_000
"""Messages read and dropped after a close for abuse, at most, before the
connection is cut without waiting for the client's answer."""


class Conn:
    """A client connection after the WebSocket handshake."""

    def __init__(
        self,
        ws: ServerConnection,
        codec: Codec,
        send_buffer: int,
        rate: float,
        burst: int,
        clock: Clock = WALL,
    ) -> None:
        self.id = f"c{next(_ids)}"
        self.ws = ws
        # Read once, not per write (``send_raw``): websockets sets both when
        # the connection is made, before the handshake that precedes this.
        self._protocol = ws.protocol
        transport = ws.transport
        self._write = transport.write
        self._buffered = transport.get_write_buffer_size
        """The transport's two methods a send calls, bound once: compiled code
        calls a method of a C type by looking it up and binding it each time."""
        self._plain = not ws.protocol.extensions
        """No extension was negotiated (compression is off by default): a
        frame can be written as is; extensions never change once open."""
        self.codec = codec
        self.name = ""
        self.hello = False
        self.player: Player | None = None  # None for a guest (no player key)
        self.renamed_at = 0.0  # the daily service's clock time of the last name change
        self.clock = clock
        self.heard_at = clock.time()
        """When the last message came (the clock's time): the lobby's idle sweep reads it."""
        self.bucket = Bucket(rate, burst, self.heard_at)
        self.refused = 0  # messages refused for rate, recently
        self.send_buffer = send_buffer
        self.closed = False
        self._closing: asyncio.Task[None] | None = None
        self.log = log.bind(conn=self.id)

    def heard(self) -> bool:
        """A message came: note when, and whether the rate limit lets it in."""
        self.heard_at = now = self.clock.time()
        return self.bucket.take(now)

    def send(self, msg: Any) -> None:
        """Send ``msg`` to the client now; drop the client if it is too far behind."""
        self.send_raw(self.codec.encode(msg))

    def send_raw(self, data: bytes | str) -> None:
        if self.closed:
            return
        protocol = self._protocol
        if self._plain and (protocol._state if STATE_FIELD else protocol.state) is _OPEN:
            # What websockets' send_binary/send_text would write, framed here:
            # its Frame objects, their serialisation and its write path cost
            # 3.3 µs a send against 1.1 µs (the write itself included), about
            # 8% of the server's busy time at 1,000 tables (docs/LOAD.md). The
            # frame goes after what went before: between two of websockets'
            # calls nothing of its own waits to go out (it writes what it
            # queued before it returns or awaits), and the one output of its
            # that spans awaits, a fragmented message, the server never sends
            # (``LeanConnection.send`` refuses it; reading the three fields
            # that tell was ~6 cache misses a send in callgrind's simulation).
            try:
                self._write(frame(data))
            except Exception:
                # The socket went away before websockets heard of it (uvloop
                # refuses a closed handle): as broadcast() does, skip it; the
                # connection's handler ends when its close is seen.
                return
        else:
            # broadcast() writes synchronously and skips a connection that is
            # no longer open (its closing handshake has begun): nothing to send.
            broadcast((self.ws,), data)
        backlog = self._buffered()
        if backlog > self.send_buffer:
            self.log.warning("client_too_slow", buffered=backlog)
            self.close(CLOSE_TOO_SLOW, "too slow to read its messages")

    def close(self, code: int, reason: str) -> None:
        """Close the connection after what was already sent (never blocks)."""
        if self.closed:
            return
        self.closed = True
        # The close frame goes into the same write buffer, after every frame
        # sent before it, so a goodbye sent just before still arrives first.
        self._closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(code, reason)

    async def drop_the_rest(self) -> None:
        """After a close asked for abuse (a flood), read and drop what the
        client still sends, up to its answer to the close.

        Why: websockets stops reading a connection while messages nobody took
        wait in its queue, and a flooder's do; left so, the client's answer to
        the close is never read and both ends wait websockets' close timeout
        (10 s), a socket held per flooder. A client that goes on sending past
        ``DROP_AFTER_CLOSE`` messages is cut off at once."""
        with contextlib.suppress(ConnectionClosed):
            for _ in range(DROP_AFTER_CLOSE):
                await self.ws.recv()
            self.ws.transport.abort()

    @property
    def closing(self) -> asyncio.Task[None] | None:
        """The close asked for (None: none yet); done once the client answered it."""
        return self._closing

    async def finish(self) -> None:
        """The handler is done: give a requested close a moment to go out."""
        self.closed = True
        if self._closing is not None and not self._closing.done():
            with contextlib.suppress(Exception):
                async with timeout(self.clock, CLOSE_WAIT_S):
                    await asyncio.shield(self._closing)


_OPEN: Final = OPEN  # (Final: compiled, looked up once, not per write)
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")
_TEXT_HEADS: Final = tuple(bytes((0x81, size)) for size in range(126))
_BINARY_HEADS: Final = tuple(bytes((0x82, size)) for size in range(126))
"""The two bytes that open a short frame (FIN, its opcode, its length), made
once: most of what a move sends is shorter than 126 bytes."""


def frame(data: bytes | str) -> bytes:
    """One unfragmented, unmasked WebSocket frame (RFC 6455 5.2), as a server
    sends it: a ``str`` as a text frame, ``bytes`` as a binary one."""
    if isinstance(data, str):
        data = data.encode()
        first = 0x81  # FIN, text
        heads = _TEXT_HEADS
    else:
        first = 0x82  # FIN, binary
        heads = _BINARY_HEADS
    size = len(data)
    if size < 126:
        return heads[size] + data
    if size < 0x10000:
        return _MEDIUM.pack(first, 126, size) + data
    return _LONG.pack(first, 127, size) + data


class Recipient(Protocol):
    """What ``send_to_all`` writes to: a ``Conn``, or a look-alike (the
    cluster's ``RemotePeer``, a test's stand-in). A protocol, not ``Conn``:
    the compiled build (server/base/compiled.py) checks a value typed with a
    class at run time, and a look-alike is no ``Conn``."""

    @property
    def codec(self) -> Codec: ...

    def send_raw(self, data: bytes | str) -> None: ...


def send_to_all(conns: Iterable[Recipient], msg: Any) -> None:
    """Send one message to many: encoded once per codec, the same bytes for all."""
    first: Codec | None = None  # the first recipient's codec, and its bytes:
    first_data: bytes | str = b""  # most often every recipient's
    others: dict[int, bytes | str] | None = None  # the other codecs' bytes
    count = 0
    for conn in conns:
        # Ours (nearly always): its fields and ``send_raw`` reached directly
        # by compiled code, not looked up by name.
        ours = conn if type(conn) is Conn else None
        codec = ours.codec if ours is not None else conn.codec
        if codec is first:
            data = first_data
        elif first is None:
            first = codec
            data = first_data = codec.encode(msg)
        else:
            if others is None:
                others = {}
            key = id(codec)
            known = others.get(key)
            if known is None:
                known = others[key] = codec.encode(msg)
            data = known
        if ours is not None:
            ours.send_raw(data)
        else:
            conn.send_raw(data)
        count += 1
    _OUT.count += count


_OUT: Final = metrics.MESSAGES_OUT

"""A lean reader for the small frames a player sends (a card, a bid).

websockets reads every frame through its generator-based parser (a feed
into a bytearray, three nested generators resumed per frame, a ``Frame``
object and its checks), puts it in its ``Assembler``'s queue, resolves a
future that wakes the connection's handler task, and the handler's ``recv``
takes it out again: per frame a card played costs far more than the card's
own work (receiving was ~20% of the server's busy samples at 1,000 tables,
docs/LOAD.md). ``LeanConnection`` reads, in ``data_received`` itself, the
frames that make up nearly all of what comes in once a player sits: whole
(FIN), masked, text or binary, shorter than 126 bytes, with no extension,
and hands each to the connection's ``sink`` at once, with no task switch.

It also reads the pongs that answer the server's keepalive pings
(server/link/keepalive.py): whole, masked, with the 4-byte payload of the
connection's last ping; at rest, from the handshake on (before the hello
too). A pong websockets reads is heard through its ``acknowledge_pings``.

Everything else stays websockets' work, because it is rare and it is where
the protocol is subtle: the handshake, the client's pings, any other pong, the closing
handshake, fragmented or long messages, bad frames (an unmasked frame,
reserved bits, invalid UTF-8: websockets fails the connection with the right
close code), and any frame the sink declines. The lean path only runs when
websockets' own reader is at rest: the connection open, its parser waiting
for the first byte of a frame with nothing buffered, no fragmented message
under way, and the handler waiting in ``recv`` with no frame queued, so a
frame taken here can never overtake one websockets still holds. From the
first frame it does not take, the rest of the bytes go to websockets as
they came.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Final

from websockets.asyncio.server import ServerConnection
from websockets.protocol import OPEN, Protocol
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

if TYPE_CHECKING:  # (websockets 14 on; the server runs on 13 too)
    from websockets.typing import DataLike

try:  # websockets' C speed-up, as websockets itself uses it
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets built without it
    from websockets.utils import apply_mask

Sink = Callable[[bytes | str], bool]
"""Takes a message read here (True), or declines it (False: untouched, it
goes to websockets and then to the handler's ``recv`` like any other)."""


def _state_is_a_field() -> bool:
    """Whether websockets' ``Protocol.state`` property does nothing but return
    its ``_state`` field (as from websockets 13 on)."""
    getter = getattr(Protocol.__dict__.get("state"), "fget", None)
    code = getattr(getter, "__code__", None)
    return code is not None and code.co_names == ("_state",)


STATE_FIELD: Final = _state_is_a_field()
"""Read a connection's state from ``_state``: the property is a Python call,
read for every frame in and out (~5 a move). A websockets whose property
does more is read through it."""

_OPEN: Final = OPEN
_unmask: Final = apply_mask
_AT_EOF: Final = StreamReader.at_eof.__code__
"""websockets' parser sits in this generator between two frames.

(These three and the frame bytes below are ``Final``: compiled, a module's
other names are looked up in its namespace at each use.)"""

_TEXT: Final = 0x81  # FIN, text
_BINARY: Final = 0x82  # FIN, binary
_PONG: Final = 0x8A  # FIN, pong
_MASKED: Final = 0x80
_MASKED_4: Final = 0x84  # masked, a payload of 4 bytes (the keepalive's)
_SHORT: Final = 126  # payload lengths from 126 up take an extended length


class LeanConnection(ServerConnection):
    """websockets' server connection, with small frames read in place."""

    sink: Sink | None = None
    """Set once the connection may send commands (after its hello); None: websockets reads all."""

    lean_frames = 0
    """Frames read here (a test checks that the lean path is taken)."""

    lean_pongs = 0
    """Keepalive pongs read here (a test checks that they are)."""

    ping_payload: bytes | None = None
    """The payload of the keepalive's last ping while unanswered (server/link/keepalive.py)."""

    _plain: ServerProtocol | None = None
    """websockets' protocol of this connection once it is open with no
    extension and no debug log, kept: the protocol, its extensions and its
    debug flag no longer change then, and were read for every frame (None:
    not yet; its state and parser are still read every time)."""

    insides_known: ClassVar[bool] = True
    """False once websockets' insides were not as this reader knows them (a
    newer websockets): from then on websockets reads every frame, as before."""

    _quiet = False
    """websockets was found holding nothing of the input, and every byte since
    was read here: it was fed nothing, so its parser, buffer and message queue
    are as they were found (``_at_rest`` then reads its state alone)."""

    def data_received(self, data: bytes) -> None:
        if LeanConnection.insides_known and self._at_rest():
            taken = self._take(data, self.sink)
            if taken == len(data):
                self._quiet = True
                return
            data = data[taken:]
        self._quiet = False  # (before websockets is fed: it may hold some after)
        super().data_received(data)

    async def send(
        self,
        message: DataLike | Iterable[DataLike] | AsyncIterable[DataLike],
        *,
        text: bool | None = None,
    ) -> None:
        """websockets' ``send``, for whole messages only: ``Conn.send_raw`` and
        the keepalive write their frames between websockets' own calls, which a
        fragmented message (an iterable) would split across awaits."""
        if not isinstance(message, str | bytes | bytearray | memoryview):
            raise TypeError("the server sends whole messages only, never a fragmented one")
        if text is None:
            await super().send(message)  # (websockets 13's send takes no ``text``)
        else:
            await super().send(message, text=text)

    def acknowledge_pings(self, data: bytes) -> None:
        """A pong, read here or by websockets: answers the keepalive's ping, or websockets' own."""
        if data == self.ping_payload:
            self.ping_payload = None
        super().acknowledge_pings(data)

    def _at_rest(self) -> bool:
        """Whether websockets holds nothing of this connection's input."""
        if self._quiet:
            # What only feeding websockets changes is as it was; what changes
            # without it (a close, a failure, the handler's ``recv`` given up on
            # a timeout) is the state, or harmless: no frame waits in
            # websockets for one read here to overtake. Reading the parser's
            # generators, its buffer and the message queue for every frame
            # were ~20 cache misses a move (callgrind's cache simulation,
            # docs/LOAD.md, fourteenth pass).
            protocol = self._plain
            assert protocol is not None  # (set by the _holds_nothing that made it quiet)
            return (protocol._state if STATE_FIELD else protocol.state) is _OPEN
        try:
            return self._holds_nothing()
        except AttributeError:
            # websockets' insides read below are not its API: a release that
            # renames one must not break a connection, only this shortcut.
            LeanConnection.insides_known = False
            return False

    def _holds_nothing(self) -> bool:
        protocol = self._plain
        if protocol is None:
            protocol = self.protocol
            if (
                (protocol._state if STATE_FIELD else protocol.state) is not _OPEN
                or protocol.extensions
                or protocol.debug  # websockets logs every frame then
            ):
                return False
            self._plain = protocol
        if (
            (protocol._state if STATE_FIELD else protocol.state) is not _OPEN
            or protocol.current_size is not None  # a fragmented message under way
            or protocol.parser_exc is not None
            or protocol.reader.buffer
        ):
            return False
        # The generator the parser waits in, innermost: the server's parse
        # delegates to the protocol's after the handshake, which waits in
        # at_eof between frames (in read_exact mid-frame).
        waiting: Any = protocol.parser  # a generator: gi_yieldfrom, gi_code
        while (inner := waiting.gi_yieldfrom) is not None:
            waiting = inner
        if waiting.gi_code is not _AT_EOF:
            return False  # mid-frame (or a websockets whose parser is not known here)
        messages = self.recv_messages
        return messages.get_in_progress and not messages.frames.queue and not messages.closed

    def _take(self, data: bytes, sink: Sink | None) -> int:
        """Hand ``sink`` the whole short frames that ``data`` begins with, and
        take the keepalive's pongs among them; the bytes they took."""
        limit = self.protocol.max_message_size
        at = 0
        end = len(data)
        while end - at >= 6:
            first = data[at]
            if (first != _BINARY and first != _TEXT) or sink is None:
                if first == _PONG and (stop := self._pong(data, at, end)):
                    at = stop
                    continue
                break  # a control frame, a fragment, reserved bits: websockets'
            size = data[at + 1] - _MASKED
            if not 0 <= size < _SHORT or (limit is not None and size > limit):
                break  # unmasked (a protocol error) or long
            stop = at + 6 + size
            if stop > end:
                break  # not all here yet
            payload = _unmask(data[at + 6 : stop], data[at + 2 : at + 6])
            message: bytes | str = payload
            if first == _TEXT:
                try:
                    message = payload.decode()
                except UnicodeDecodeError:
                    break  # websockets closes with 1007
            if not sink(message):
                break
            self.lean_frames += 1
            at = stop
        return at

    def _pong(self, data: bytes, at: int, end: int) -> int:
        """Where the pong at ``at`` ends if it answers the keepalive's last ping, else 0."""
        stop = at + 10
        if data[at + 1] != _MASKED_4 or stop > end or self.ping_payload is None:
            return 0  # another pong (or not all here yet): websockets'
        payload = _unmask(data[at + 6 : stop], data[at + 2 : at + 6])
        if payload != self.ping_payload:
            return 0
        self.acknowledge_pings(payload)
        self.lean_pongs += 1
        return stop

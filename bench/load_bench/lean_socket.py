"""A WebSocket client connection light enough for thousands in one process.

The load bench's clients stand for players on other machines: what they cost
is not what is measured, but on a two-core machine they share one core with
Redis, and clients that fall behind show as the server's latency. With
``websockets``' asyncio client a frame received wakes a reader task through a
future and a queue, and a frame sent goes through a lock and a context
manager; its sans-I/O protocol alone parses a frame through generators
(~5 µs a frame here). At 4,000 tables that is 16,000 frames a second.

``LeanSocket`` opens the connection with ``websockets``' ``ClientProtocol``
(the handshake, its checks of the server's answer), then reads and writes the
frames itself from an ``asyncio.Protocol``: a message goes to a callback
within ``data_received``, a send is one ``transport.write``. The frames are
the few the server sends (RFC 6455 § 5: unmasked, binary or text, a ping, a
close); a client's frames are masked, as the RFC requires.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.frames import apply_mask  # type: ignore[attr-defined]  # C when built
from websockets.http11 import Response
from websockets.protocol import State
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

MAX_SIZE = 2**22
CONT, TEXT, BINARY, CLOSE, PING, PONG = 0, 1, 2, 8, 9, 10


def client_frame(opcode: int, data: bytes, key: bytes) -> bytes:
    """A whole client frame: FIN, ``opcode``, the length, ``key`` and the
    payload masked with it."""
    n = len(data)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0xFE)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0xFF)) + n.to_bytes(8, "big")
    return head + key + apply_mask(data, key)


class LeanSocket(asyncio.Protocol):
    """One client connection: ``on_message`` gets each message's payload,
    ``on_close`` the reason once the connection is gone (None: closed cleanly)."""

    def __init__(
        self,
        protocol: ClientProtocol,
        on_message: Callable[[bytes], None],
        on_close: Callable[[BaseException | None], None],
    ) -> None:
        self.protocol = protocol
        self.on_message = on_message
        self.on_close = on_close
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.open_ = False  # past the handshake: the frames are ours to read
        self.buffer = b""  # the start of a frame not yet whole
        self.parts: list[bytes] = []  # a fragmented message, until its last frame
        self.keys = bytearray(os.urandom(4096))  # masking keys, 4 bytes a frame
        self.closed = False
        self.close_code: int | None = None
        self.failure: ConnectionError | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        subprotocol: str,
        on_message: Callable[[bytes], None],
        on_close: Callable[[BaseException | None], None],
        timeout: float = 60.0,
    ) -> LeanSocket:
        """Connect and complete the opening handshake, or raise."""
        uri = parse_uri(url)
        protocol = ClientProtocol(uri, subprotocols=[Subprotocol(subprotocol)], max_size=MAX_SIZE)
        loop = asyncio.get_running_loop()
        _, sock = await asyncio.wait_for(
            loop.create_connection(lambda: cls(protocol, on_message, on_close), uri.host, uri.port),
            timeout,
        )
        protocol.send_request(protocol.connect())
        sock.flush()
        try:
            await asyncio.wait_for(asyncio.shield(sock.opened), timeout)
        except BaseException:
            sock.abort()
            raise
        return sock

    def send(self, data: bytes) -> None:
        """Send one binary message (raises ``ConnectionError`` once closed)."""
        transport = self.transport
        if transport is None or self.close_code is not None or transport.is_closing():
            raise ConnectionError("the connection is closed")
        transport.write(client_frame(BINARY, data, self._key()))

    def _key(self) -> bytes:
        keys = self.keys
        if not keys:
            keys = self.keys = bytearray(os.urandom(4096))
        key = bytes(keys[-4:])
        del keys[-4:]
        return key

    def flush(self) -> None:
        """Write what the handshake protocol has to send (its request)."""
        transport = self.transport
        for data in self.protocol.data_to_send():
            if transport is None or transport.is_closing():
                return
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()  # the protocol's end of stream

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    # -- asyncio.Protocol -------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        if self.open_:
            self._frames(self.buffer + data if self.buffer else data)
            return
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Response) and not self.opened.done():
                if protocol.state is State.OPEN:
                    self.open_ = True
                    self.opened.set_result(None)
                    # Frames the server sent right behind its answer.
                    rest = bytes(protocol.reader.buffer)
                    if rest:
                        self._frames(rest)
                else:
                    exc = protocol.handshake_exc or ConnectionError("handshake refused")
                    self.opened.set_exception(exc)
                    self.abort()
                return

    def _frames(self, data: bytes) -> None:
        """Read every whole frame of ``data``; keep the start of the next one."""
        pos, end = 0, len(data)
        while end - pos >= 2:
            b0, b1 = data[pos], data[pos + 1]
            n, start = b1 & 0x7F, pos + 2
            if b1 & 0x80:
                return self._fail(1002, "a masked frame from the server")
            if n == 126:
                if end - pos < 4:
                    break
                n, start = int.from_bytes(data[pos + 2 : pos + 4], "big"), pos + 4
            elif n == 127:
                if end - pos < 10:
                    break
                n, start = int.from_bytes(data[pos + 2 : pos + 10], "big"), pos + 10
            if n > MAX_SIZE:
                return self._fail(1009, "a frame over the size limit")
            if end - start < n:
                break
            pos = start + n
            self._frame(b0, data[start:pos])
            if self.close_code is not None:
                return None
        self.buffer = data[pos:] if pos < end else b""
        return None

    def _frame(self, b0: int, payload: bytes) -> None:
        opcode = b0 & 0x0F
        if opcode <= BINARY:  # a message, or a part of one
            if b0 & 0x80 and not self.parts:
                self.on_message(payload)
                return
            self.parts.append(payload)
            if b0 & 0x80:
                data, self.parts = b"".join(self.parts), []
                self.on_message(data)
        elif opcode == PING:
            if self.transport is not None:
                self.transport.write(client_frame(PONG, payload, self._key()))
        elif opcode == CLOSE:
            # The closing handshake: echo the code; the server closes TCP.
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            self.close_code = code
            if self.transport is not None:
                self.transport.write(client_frame(CLOSE, payload[:2], self._key()))
        # PONG: the bench never pings.

    def _fail(self, code: int, reason: str) -> None:
        self.close_code = code
        self.failure = ConnectionError(f"{reason} (closing with {code})")
        if self.transport is not None:
            self.transport.write(client_frame(CLOSE, code.to_bytes(2, "big"), self._key()))
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.transport = None
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))
            self.opened.exception()  # retrieved by open(); never "never retrieved"
            return
        if exc is None and self.close_code not in (1000, 1001):
            exc = self.failure or ConnectionError(f"closed by the server ({self.close_code})")
        self.on_close(exc)

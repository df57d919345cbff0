"""The load bench's clients (bench/load_bench/): their lean WebSocket
connection reads and writes frames as websockets would (websockets' own
parser and serializer are the oracle), answers the server's pings so the
server keeps it, and a worker's tables, on a real server over real
WebSockets, seat four clients each and play moves that every seat sees,
with either protocol version."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Generator
from typing import Any

import msgspec
import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from bench.load_bench.lean_socket import BINARY, CLOSE, PING, PONG, LeanSocket, client_frame
from bench.load_bench.worker import Worker
from protocol.codec import SUBPROTOCOL_V2_MSGPACK
from server.link.keepalive import PING_INTERVAL
from server.link.reader import LeanConnection
from tests.support.clock import ManualClock
from tests.support.servers import running, url
from tests.support.waits import eventually

pytestmark = pytest.mark.asyncio


def _parse(data: bytes, mask: bool) -> Frame:
    """One frame of ``data`` as websockets reads it."""
    reader = StreamReader()
    reader.feed_data(data)
    parser: Generator[None, None, Frame] = Frame.parse(
        reader.read_exact, mask=mask, max_size=None, extensions=None
    )
    try:
        next(parser)
    except StopIteration as done:
        return done.value
    raise AssertionError("an incomplete frame")


@pytest.mark.parametrize(
    ("opcode", "size"),
    [(BINARY, n) for n in (0, 1, 125, 126, 65535, 65536)]
    # Control frames carry at most 125 bytes.
    + [(op, n) for op in (PING, PONG, CLOSE) for n in (0, 2, 125)],
)
async def test_a_client_frame_is_masked_and_read_back_whole(opcode: int, size: int) -> None:
    data = bytes(i * 7 % 251 for i in range(size))
    frame = _parse(client_frame(opcode, data, b"\x12\x34\x56\x78"), mask=True)
    assert frame.opcode is Opcode(opcode)
    assert frame.fin
    assert frame.data == data


class _Collected:
    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.closed: list[BaseException | None] = []


def _socket(seen: _Collected) -> LeanSocket:
    sock = LeanSocket(None, seen.messages.append, seen.closed.append)  # type: ignore[arg-type]
    sock.open_ = True  # past the handshake: the frames of these tests are the server's
    return sock


async def test_server_frames_are_read_however_the_bytes_are_cut() -> None:
    # Three messages, the second in two fragments, one long enough for a
    # 16-bit length and one for a 64-bit length, as websockets writes them.
    frames = [
        Frame(Opcode.BINARY, b"first"),
        Frame(Opcode.BINARY, b"sec", fin=False),
        Frame(Opcode.CONT, b"ond"),
        Frame(Opcode.TEXT, b"x" * 300),
        Frame(Opcode.BINARY, b"y" * 70_000),
    ]
    stream = b"".join(f.serialize(mask=False, extensions=[]) for f in frames)
    expected = [b"first", b"second", b"x" * 300, b"y" * 70_000]
    for cut in [1, 2, 3, 7, 9, 300, 4096, len(stream)]:
        seen = _Collected()
        sock = _socket(seen)
        for start in range(0, len(stream), cut):
            sock.data_received(stream[start : start + cut])
        assert seen.messages == expected, cut
        assert sock.buffer == b""


async def test_a_close_from_the_server_is_echoed_and_a_masked_frame_refused() -> None:
    written: list[bytes] = []

    class Transport:
        def write(self, data: bytes) -> None:
            written.append(data)

        def close(self) -> None:
            written.append(b"<closed>")

        def is_closing(self) -> bool:
            return False

    seen = _Collected()
    sock = _socket(seen)
    sock.transport = Transport()  # type: ignore[assignment]
    sock.data_received(Frame(Opcode.CLOSE, b"\x03\xe8").serialize(mask=False, extensions=[]))
    echo = _parse(written.pop(), mask=True)
    assert (echo.opcode, echo.data) == (Opcode.CLOSE, b"\x03\xe8")
    assert sock.close_code == 1000
    with pytest.raises(ConnectionError):
        sock.send(b"too late")

    sock = _socket(seen)
    sock.transport = Transport()  # type: ignore[assignment]
    sock.data_received(Frame(Opcode.BINARY, b"masked").serialize(mask=True, extensions=[]))
    assert seen.messages == []  # not read
    assert written[-1] == b"<closed>"
    assert _parse(written[-2], mask=True).data == (1002).to_bytes(2, "big")


async def test_a_lean_socket_answers_the_servers_pings_and_stays() -> None:
    clock = ManualClock()
    async with running(clock=clock) as server:
        seen = _Collected()
        sock = await LeanSocket.open(
            url(server), SUBPROTOCOL_V2_MSGPACK, seen.messages.append, seen.closed.append
        )
        sock.send(msgspec.msgpack.encode({"t": "hello", "version": 2, "name": "Lean"}))
        await eventually(lambda: seen.messages, what="the welcome")
        assert msgspec.msgpack.decode(seen.messages[0])["t"] == "welcome"
        server_ws = next(c.ws for c in server.front.conns if c.name == "Lean")
        assert isinstance(server_ws, LeanConnection)
        keepalive = server.front.keepalive
        assert keepalive is not None
        for n in range(1, 4):
            clock.advance(PING_INTERVAL)
            await eventually(
                lambda n=n: keepalive.pings_sent == n and server_ws.ping_payload is None,
                what=f"ping {n} answered",
            )
        assert keepalive.failed == 0
        sock.send(msgspec.msgpack.encode({"t": "ping", "rid": 5}))
        await eventually(
            lambda: any(
                msgspec.msgpack.decode(m) == {"t": "pong", "rid": 5} for m in seen.messages
            ),
            what="the pong to the client's ping",
        )
        assert seen.closed == []
        sock.close()
        await eventually(lambda: seen.closed, what="closed")


def _args(server_url: str, protocol: int) -> argparse.Namespace:
    return argparse.Namespace(
        kind="ours",
        protocol=protocol,
        url=server_url,
        pace=20.0,  # moves a second per table: a test's few seconds hold many
        spread=0.0,
        wid=0,
        seed=1,
        connect_concurrency=8,
    )


@pytest.mark.parametrize("protocol", [1, 2])
async def test_a_workers_tables_play_and_every_seat_sees_every_move(protocol: int) -> None:
    async with running() as server:
        worker = Worker(_args(url(server), protocol))
        joined = await worker.join(3)
        assert (joined["joined"], joined["failed"]) == (3, 0)
        assert worker.open_conns == 12
        worker.measure_start()
        assert worker.play() == {"playing": 3}
        await eventually(lambda: len(worker.latencies) >= 60, what="60 moves seen by all four")
        out: dict[str, Any] = await worker.measure_stop(grace=30.0)
        assert out["errors"] == {}
        assert out["disconnects"] == 0
        assert out["unfinished"] == 0
        assert out["moves_sent"] >= 60
        assert len(out["latencies_ms"]) >= 60
        # Every seat of every table holds the same view's progress once quiet.
        worker.quitting = True
        for task in worker.tasks:
            task.cancel()
        await asyncio.gather(*worker.tasks, return_exceptions=True)
        await eventually(
            lambda: all(
                len({c.progress for c in t.clients}) == 1 and not t.pending for t in worker.tables
            ),
            what="every seat of a table at the same move",
        )
        for t in worker.tables:
            for c in t.clients:
                assert c.ws is not None
                c.ws.close()

"""The lean reader of small client frames (server/link/reader.py) on a real
server (that a whole game's moves are read in place, on every subprotocol:
tests/test_server.py's four humans on four subprotocols); frames
written byte by byte, several in one write, fragmented, refused for rate or
bad in any way get the same answers, in the same order, as through
websockets' own reader, and what websockets must close for, it closes for."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import CLOSED

from protocol.codec import (
    SUBPROTOCOL_JSON,
)
from server.link.reader import LeanConnection
from server.process.app import Server
from tests.support.clock import ManualClock
from tests.support.servers import lean_frames, running, url
from tests.support.waits import eventually, patient

pytestmark = pytest.mark.asyncio


# -- frames written by hand ---------------------------------------------------------


async def _open(server: Server, name: str) -> ClientConnection:
    ws = await connect(url(server), subprotocols=[SUBPROTOCOL_JSON])  # type: ignore[list-item]
    await ws.send(json.dumps({"t": "hello", "version": 1, "name": name}))
    assert json.loads(await ws.recv())["t"] == "welcome"
    return ws


def _frame(
    message: dict[str, Any] | bytes, opcode: Opcode = Opcode.TEXT, fin: bool = True
) -> bytes:
    """A client's frame, masked as a client must."""
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return Frame(opcode, data, fin=fin).serialize(mask=True, extensions=[])


def _unmasked(message: dict[str, Any]) -> bytes:
    return Frame(Opcode.TEXT, json.dumps(message).encode()).serialize(mask=False, extensions=[])


async def _answers(ws: ClientConnection, count: int) -> list[tuple[str, Any, Any]]:
    """The next ``count`` answers (type, code, rid), lobby updates aside."""
    got: list[tuple[str, Any, Any]] = []
    while len(got) < count:
        msg = json.loads(await asyncio.wait_for(ws.recv(), patient(5)))
        if msg["t"] in ("error", "pong"):
            got.append((msg["t"], msg.get("code"), msg.get("rid")))
    return got


async def _codes_until_closed(ws: ClientConnection) -> list[str]:
    """The codes of the errors and the bye that come before the server closes."""
    codes: list[str] = []
    with pytest.raises(ConnectionClosed):
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), patient(5)))
            if msg["t"] in ("error", "bye"):
                codes.append(msg["code"])
    return codes


def _play(rid: int) -> dict[str, Any]:
    return {"t": "play", "card": "KS", "rid": rid}


async def test_frames_in_one_write_or_byte_by_byte_are_answered_in_order() -> None:
    async with running() as server:
        ws = await _open(server, "Raw")
        # Three frames in one write: a move (read in place), a ping (not a
        # table's: websockets' way), a move (after the ping, websockets' way).
        ws.transport.write(_frame(_play(1)) + _frame({"t": "ping", "rid": 2}) + _frame(_play(3)))
        assert await _answers(ws, 3) == [
            ("error", "not_at_table", 1),
            ("pong", None, 2),
            ("error", "not_at_table", 3),
        ]
        # One move a byte at a time: whole frames only are read in place.
        for byte in _frame(_play(4)):
            ws.transport.write(bytes([byte]))
            await asyncio.sleep(0)
        assert await _answers(ws, 1) == [("error", "not_at_table", 4)]
        # A move in two fragments, then one whole: websockets joins the
        # fragments; the whole one comes after them.
        text = json.dumps(_play(5)).encode()
        ws.transport.write(
            _frame(text[:7], fin=False) + _frame(text[7:], Opcode.CONT) + _frame(_play(6))
        )
        assert await _answers(ws, 2) == [("error", "not_at_table", 5), ("error", "not_at_table", 6)]
        # Bad messages in small frames: their stable codes, the connection stays.
        ws.transport.write(
            _frame(b"{not json")
            + _frame({"t": "teleport", "rid": 7})
            + _frame(b"\xc1", Opcode.BINARY)
        )
        assert [code for _, code, _ in await _answers(ws, 3)] == [
            "malformed",
            "unknown_message",
            "malformed",
        ]
        ws.transport.write(_frame(_play(8)))
        assert await _answers(ws, 1) == [("error", "not_at_table", 8)]
        # 1 and 8 at least (4 came in pieces; 6 while websockets held the
        # fragments before it; the rest were declined or bad).
        assert lean_frames(server)["Raw"] >= 2
        await ws.close()


async def test_after_frames_read_in_place_a_fragment_still_holds_back_what_follows() -> None:
    """Once the reader found websockets holding nothing and read every byte
    since, it reads websockets' state alone (``_quiet``); the first frame it
    leaves to websockets ends that, so a message websockets then holds in
    pieces is still answered before the frames written after it."""
    async with running() as server:
        ws = await _open(server, "Quiet")
        (theirs,) = [c.ws for c in server.front.conns if c.name == "Quiet"]
        assert isinstance(theirs, LeanConnection)
        for rid in (1, 2):  # each write read in place, whole
            ws.transport.write(_frame(_play(rid)))
            assert await _answers(ws, 1) == [("error", "not_at_table", rid)]
        assert theirs._quiet
        assert lean_frames(server)["Quiet"] == 2
        # A message's first fragment, alone: websockets' (it holds it now).
        text = json.dumps(_play(3)).encode()
        ws.transport.write(_frame(text[:7], fin=False))
        await eventually(lambda: not theirs._quiet, what="the fragment fed to websockets")
        # Its end, then a whole move, in one write: the move waits its turn.
        ws.transport.write(_frame(text[7:], Opcode.CONT) + _frame(_play(4)))
        assert await _answers(ws, 2) == [("error", "not_at_table", 3), ("error", "not_at_table", 4)]
        ws.transport.write(_frame(_play(5)))  # websockets holds nothing again: in place
        assert await _answers(ws, 1) == [("error", "not_at_table", 5)]
        assert lean_frames(server)["Quiet"] == 3
        assert theirs._quiet
        await ws.close()


async def test_the_server_never_sends_a_fragmented_message() -> None:
    """``Conn.send_raw`` writes its frames between websockets' own calls, so
    websockets must never hold a message half sent across an await: the
    server's connection refuses a fragmented message (an iterable) outright."""
    async with running() as server:
        ws = await _open(server, "Whole")
        (theirs,) = [c.ws for c in server.front.conns if c.name == "Whole"]
        with pytest.raises(TypeError, match="whole messages only"):
            await theirs.send(["{", "}"])
        await theirs.send('{"t": "pong", "rid": 9}')  # a whole one goes
        assert await _answers(ws, 1) == [("pong", None, 9)]
        await ws.close()


class _RenamedAssembler:
    """websockets' message queue as a newer release might have it: the same
    methods, but one of the insides the reader reads (``get_in_progress``)
    gone. Everything else is websockets' own."""

    def __init__(self, assembler: Any) -> None:
        self._assembler = assembler

    def __getattr__(self, name: str) -> Any:
        if name == "get_in_progress":
            raise AttributeError("'Assembler' object has no attribute 'get_in_progress'")
        return getattr(self._assembler, name)


async def test_a_websockets_whose_insides_differ_reads_every_frame_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader looks at websockets' insides, which are not its API: when
    one is missing (a newer websockets), the connection goes on, through
    websockets' own reader, and the shortcut stays off.

    The server's connection is given a message queue without one of them (not
    the reader's own method patched: compiled, its methods call each other
    directly, server/base/compiled.py)."""
    monkeypatch.setattr(LeanConnection, "insides_known", True)
    async with running() as server:
        ws = await _open(server, "Newer")
        (theirs,) = [c.ws for c in server.front.conns if c.name == "Newer"]
        theirs.recv_messages = _RenamedAssembler(theirs.recv_messages)  # type: ignore[assignment]
        ws.transport.write(_frame(_play(1)) + _frame({"t": "ping", "rid": 2}))
        assert await _answers(ws, 2) == [("error", "not_at_table", 1), ("pong", None, 2)]
        assert LeanConnection.insides_known is False
        ws.transport.write(_frame(_play(3)))
        assert await _answers(ws, 1) == [("error", "not_at_table", 3)]
        assert lean_frames(server)["Newer"] == 0
        await ws.close()


_REFUSED: dict[str, tuple[Callable[[], bytes], int]] = {
    "invalid UTF-8": (lambda: _frame(b"\xff\xfe not UTF-8"), 1007),  # a text frame must be UTF-8
    "unmasked": (lambda: _unmasked(_play(1)), 1002),  # a client's frame must be masked
    "reserved bit": (lambda: bytes([0xC1]) + _frame(_play(1))[1:], 1002),  # and no extension
    "over max_frame": (lambda: _frame(os.urandom(300), Opcode.BINARY), 1009),
}


@pytest.mark.parametrize("case", list(_REFUSED))
async def test_frames_websockets_must_refuse_still_close_the_connection(case: str) -> None:
    make, close_code = _REFUSED[case]
    sent = make()
    async with running(max_frame=256) as server:
        ws = await _open(server, "Bad")
        ws.transport.write(_frame(_play(1)) + sent + _frame(_play(2)))
        assert await _answers(ws, 1) == [("error", "not_at_table", 1)]
        with pytest.raises(ConnectionClosed):
            await _answers(ws, 1)
        assert ws.close_code == close_code


async def test_moves_read_in_place_meet_the_rate_limit_then_the_flood_close() -> None:
    clock = ManualClock()
    async with running(rate=1.0, burst=3, clock=clock) as server:
        ws = await _open(server, "Flood")
        ws.transport.write(b"".join(_frame(_play(rid)) for rid in (1, 2, 3, 4)))
        assert await _answers(ws, 4) == [
            ("error", "not_at_table", 1),
            ("error", "not_at_table", 2),
            ("error", "not_at_table", 3),
            ("error", "rate_limited", None),
        ]
        clock.advance(1.0)  # one message a second
        ws.transport.write(_frame(_play(5)))
        assert await _answers(ws, 1) == [("error", "not_at_table", 5)]
        assert lean_frames(server)["Flood"] == 4  # 1, 2, 3 and 5; 4 was refused by _serve
        # A sustained flood: refused, then the bye and the close for abuse
        # after 51 refusals in a row (a longer flood: the next test).
        ws.transport.write(b"".join(_frame(_play(rid)) for rid in range(6, 57)))
        codes = await _codes_until_closed(ws)
        assert codes == ["rate_limited"] * 50 + ["flooding"]
        assert ws.close_code == 4005


async def test_a_flooder_hung_up_on_has_its_answer_to_the_close_read() -> None:
    """A flood far past the queue websockets keeps: after the bye the server
    reads and drops the rest, so the client's answer to the close is read and
    the socket is let go then (unread, both ends waited websockets' 10 s
    close timeout)."""
    clock = ManualClock()
    async with running(rate=1.0, burst=3, clock=clock) as server:
        ws = await _open(server, "Flood")
        (theirs,) = [c.ws for c in server.front.conns if c.name == "Flood"]
        ws.transport.write(b"".join(_frame(_play(rid)) for rid in range(1, 400)))
        codes = await _codes_until_closed(ws)
        assert codes[-1] == "flooding" and ws.close_code == 4005
        await eventually(lambda: theirs.state is CLOSED, what="the server's side closed")
        answer = theirs.protocol.close_rcvd
        assert answer is not None, "the client's answer to the close was never read"
        assert answer.code == 4005

"""The server's one keepalive (server/link/keepalive.py), on a real server over
real WebSockets and the test's clock: a client that answers the pings stays,
pinged once an interval, its pongs read by the lean reader (or by
websockets, when the reader is off); a client that does not answer is
failed as websockets' own keepalive failed it (1011, "keepalive ping
timeout"), ``interval + timeout`` after it opened or ``timeout`` after its
first unanswered ping, never sooner."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.extensions.base import Extension
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN
from websockets.typing import ExtensionName

from protocol.codec import SUBPROTOCOL_JSON
from server.link.keepalive import PING_INTERVAL, PING_TIMEOUT, SWEEPS_PER_INTERVAL, Keepalive
from server.link.reader import LeanConnection
from server.process.app import Server
from tests.support.clock import ManualClock
from tests.support.servers import running, url
from tests.support.waits import eventually, patient

pytestmark = pytest.mark.asyncio

EPSILON = 0.01
TICK = PING_INTERVAL / SWEEPS_PER_INTERVAL
"""A ping or a check is on time or up to this late (a sweep at most every tick)."""


@dataclass
class Client:
    """A websockets client whose pings are counted and whose pongs can be held back."""

    ws: ClientConnection
    server_ws: LeanConnection
    pings: list[bytes] = field(default_factory=list)
    answering: bool = True


async def _client(server: Server, name: str) -> Client:
    ws = await connect(url(server), subprotocols=[SUBPROTOCOL_JSON], ping_interval=None)  # type: ignore[list-item]
    await ws.send(json.dumps({"t": "hello", "version": 1, "name": name}))
    assert json.loads(await ws.recv())["t"] == "welcome"
    server_ws = next(c.ws for c in server.front.conns if c.name == name)
    assert isinstance(server_ws, LeanConnection)
    client = Client(ws, server_ws)
    seen = ws.process_event
    send_frame = ws.protocol.send_frame

    def process_event(event: Any) -> None:
        if isinstance(event, Frame) and event.opcode is Opcode.PING:
            client.pings.append(bytes(event.data))
        seen(event)

    def send_unless_pong(frame: Frame) -> None:
        # websockets answers a ping inside its parser: a silent client's
        # library is one whose pongs never leave.
        if frame.opcode is not Opcode.PONG or client.answering:
            send_frame(frame)

    ws.process_event = process_event  # type: ignore[method-assign]
    ws.protocol.send_frame = send_unless_pong  # type: ignore[method-assign]
    return client


@pytest.fixture
async def clocked() -> AsyncIterator[tuple[Server, ManualClock]]:
    clock = ManualClock()
    async with running(clock=clock) as server:
        yield server, clock


def _keepalive(server: Server) -> Keepalive:
    keepalive = server.front.keepalive
    assert keepalive is not None
    return keepalive


async def _answered(client: Client, pings: int) -> None:
    """The client has had ``pings`` pings, and the server its answer to the last."""
    await eventually(
        lambda: len(client.pings) == pings and client.server_ws.ping_payload is None,
        what=f"ping {pings} answered",
        detail=lambda: f"{len(client.pings)} pings, {client.server_ws.ping_payload!r} unanswered",
    )


async def _closed_for_keepalive(client: Client) -> None:
    await asyncio.wait_for(client.ws.wait_closed(), patient(5))
    assert client.ws.close_code == 1011
    assert client.ws.close_reason == "keepalive ping timeout"


async def test_a_client_that_answers_stays_pinged_once_an_interval_its_pongs_read_in_place(
    clocked: tuple[Server, ManualClock],
) -> None:
    server, clock = clocked
    client = await _client(server, "Steady")
    for n in range(1, 13):
        clock.advance(PING_INTERVAL)
        await _answered(client, n)  # one ping a step: every interval, no more, no less
    assert len(set(client.pings)) == 12  # a new payload each, as websockets' pings
    assert all(len(p) == 4 for p in client.pings)
    assert client.server_ws.lean_pongs == 12  # none through websockets' parser
    assert _keepalive(server).failed == 0
    # Still there, and still served: 240 s of the server's time later.
    await client.ws.send(json.dumps({"t": "ping", "rid": 5}))
    while (msg := json.loads(await asyncio.wait_for(client.ws.recv(), patient(5))))["t"] != "pong":
        pass
    assert msg == {"t": "pong", "rid": 5}
    assert client.ws.protocol.state is OPEN
    await client.ws.close()


async def test_pongs_read_by_websockets_count_too(
    clocked: tuple[Server, ManualClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the lean reader off (a websockets whose insides it does not know),
    the pongs go through websockets' parser and still keep the client."""
    server, clock = clocked
    monkeypatch.setattr(LeanConnection, "insides_known", False)
    client = await _client(server, "Parsed")
    for n in range(1, 5):
        clock.advance(PING_INTERVAL)
        await _answered(client, n)
    assert client.server_ws.lean_pongs == 0
    assert _keepalive(server).failed == 0
    assert client.ws.protocol.state is OPEN
    await client.ws.close()


async def test_a_silent_client_is_failed_interval_plus_timeout_after_it_opened(
    clocked: tuple[Server, ManualClock],
) -> None:
    server, clock = clocked
    client = await _client(server, "Silent")
    client.answering = False
    keepalive = _keepalive(server)
    clock.advance(PING_INTERVAL)  # its first ping falls within its first interval
    await eventually(lambda: len(client.pings) == 1, what="the first ping")
    clock.advance(PING_TIMEOUT - EPSILON)
    assert keepalive.failed == 0  # decided in the sweep: not yet
    clock.advance(TICK + EPSILON)  # (a sweep comes at most every tick: up to that late)
    assert keepalive.failed == 1
    await _closed_for_keepalive(client)
    await eventually(lambda: not server.front.conns, what="the server forgot it")


async def test_a_client_that_stops_answering_is_failed_a_timeout_after_the_ping_it_left(
    clocked: tuple[Server, ManualClock],
) -> None:
    server, clock = clocked
    client = await _client(server, "Gone")
    other = await _client(server, "Staying")
    keepalive = _keepalive(server)
    for n in range(1, 4):
        clock.advance(PING_INTERVAL)
        await _answered(client, n)
        await _answered(other, n)
    client.answering = False
    clock.advance(PING_INTERVAL)
    await eventually(lambda: len(client.pings) == 4, what="the unanswered ping")
    await _answered(other, 4)
    clock.advance(PING_TIMEOUT - EPSILON)
    assert keepalive.failed == 0
    clock.advance(TICK + EPSILON)
    assert keepalive.failed == 1
    await _closed_for_keepalive(client)
    # The other client, answering all along, stays.
    clock.advance(PING_INTERVAL - PING_TIMEOUT)  # its next ping (the same phase)
    await _answered(other, 5)
    assert other.ws.protocol.state is OPEN
    # The server forgets the failed one once its handler has ended, after
    # the closing handshake: an event of its own, awaited.
    await eventually(
        lambda: [c.name for c in server.front.conns] == ["Staying"], what="the server forgot it"
    )
    await other.ws.close()


async def test_connections_opened_together_are_pinged_spread_over_the_interval(
    clocked: tuple[Server, ManualClock],
) -> None:
    """Not all at once: a restart's reconnections would be pinged together
    every interval ever after."""
    server, clock = clocked
    keepalive = _keepalive(server)
    keepalive.spread = random.Random(7).random
    clients = [await _client(server, f"P{i}") for i in range(12)]
    tenths: list[int] = []
    for _ in range(10):
        clock.advance(PING_INTERVAL / 10)
        tenths.append(keepalive.pings_sent - sum(tenths))
    assert sum(tenths) == 12  # each once within its first interval
    assert max(tenths) < 12 and sum(1 for t in tenths if t) >= 4  # spread, not at once
    for c in clients:
        await _answered(c, 1)
        await c.ws.close()


async def test_pings_sent_late_together_keep_their_own_times_after(
    clocked: tuple[Server, ManualClock],
) -> None:
    """A server stopped for seconds (a full collection) sends the pings due
    meanwhile at once; each connection's next ping still comes an interval
    after its own was due, not all together an interval later (and every
    interval after: at 4,000 tables, a 140-170 ms stall every 20 s)."""
    server, clock = clocked
    keepalive = _keepalive(server)
    keepalive.spread = random.Random(7).random
    clients = [await _client(server, f"P{i}") for i in range(20)]

    async def answered() -> None:
        await eventually(
            lambda: all(c.server_ws.ping_payload is None for c in clients), what="pongs"
        )

    for _ in range(10):  # the first pings, spread over the interval
        clock.advance(PING_INTERVAL / 10)
        await answered()
    assert keepalive.pings_sent == 20
    clock.advance(PING_INTERVAL / 2)  # stopped for half an interval: one sweep at its end
    await answered()
    bunched = keepalive.pings_sent - 20
    assert bunched >= 5  # those due meanwhile went out together
    tenths: list[int] = []
    for _ in range(10):
        before = keepalive.pings_sent
        clock.advance(PING_INTERVAL / 10)
        await answered()
        tenths.append(keepalive.pings_sent - before)
    assert sum(tenths) == 20  # every connection once in the interval after
    assert max(tenths) < bunched  # the bunched ones apart again
    for c in clients:
        await c.ws.close()


class _Identity(Extension):
    """An extension that changes nothing: what a negotiated one does to the
    keepalive's path, without compression (the server negotiates none)."""

    name = ExtensionName("x-identity")

    def __init__(self) -> None:
        self.encoded: list[Opcode] = []

    def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
        return frame

    def encode(self, frame: Frame) -> Frame:
        self.encoded.append(frame.opcode)
        return frame


async def test_on_a_connection_with_an_extension_the_ping_is_websockets_own(
    clocked: tuple[Server, ManualClock],
) -> None:
    """The pre-framed ping goes only on a connection with no extension (as
    ``Conn.send_raw``'s frames); else websockets' ``ping()`` sends it, through
    the extension, and its pong, read in place, answers both the keepalive
    and websockets."""
    server, clock = clocked
    client = await _client(server, "Busy")
    extension = _Identity()
    client.server_ws.protocol.extensions = [extension]
    clock.advance(PING_INTERVAL)
    await _answered(client, 1)
    assert extension.encoded == [Opcode.PING]  # websockets framed it
    assert client.server_ws.pending_pings == {}  # websockets' own waiter answered too
    client.server_ws.protocol.extensions = []
    clock.advance(PING_INTERVAL)
    await _answered(client, 2)
    assert extension.encoded == [Opcode.PING]  # pre-framed again
    assert _keepalive(server).failed == 0
    await client.ws.close()

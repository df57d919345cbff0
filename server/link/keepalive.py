"""One WebSocket keepalive for the whole server, on the server's clock.

websockets' own keepalive is a task per connection: a sleep, a ``ping()``
through its send context, a future for the pong awaited under a timeout,
and the pong read by its generator parser; at 4,000 connections that was
~5% of the server's busy samples for 200 pings a second (docs/LOAD.md).
Here one sweep, a timer on the server's clock (so a test moves it by hand),
pings each connection every ``interval``: the ping is written pre-framed,
as ``Conn.send_raw`` writes a message, and its pong is read by the lean
reader (server/link/reader.py) when websockets holds nothing of the
connection's input, else by websockets, whose ``acknowledge_pings`` the
reader hooks.

What a client sees is what websockets' keepalive did: a ping every
``interval``; a connection that does not answer a ping within ``timeout``
is failed as websockets fails it (close code 1011, "keepalive ping
timeout", the server's EOF after the close frame, and the transport cut if
the client does not finish closing within the close timeout). Only a pong
to the last ping counts as a sign of life, as for websockets: any other
frame would cost every move a write of its own, and a client whose
WebSocket library no longer answers pings (however much its application
sends) must still be dropped as before.

The differences are about when, not what. A connection's first ping comes
at a random moment of its first interval rather than at its end, so that
connections opened together (a restart's reconnections, a bench's ramp)
are not pinged together every interval ever after; a silent connection is
still failed no sooner than ``interval + timeout`` after it opened, as
with websockets. A ping's timeout starts when it is written, where
websockets' started once its write buffer had drained below its limit. A
sweep runs at most every ``interval / 100`` (0.2 s at 20 s): each ping and
each check is on time or up to that late, never early; a ping sent late
leaves the next one's time where it was (an interval after the late one was
due). A closed connection is forgotten at its next ping or check (within an
interval).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.protocol import OPEN

from server.base.clock import Clock, Timer

if TYPE_CHECKING:
    from server.link.reader import LeanConnection

PING_INTERVAL = 20.0
"""Seconds between two pings of a connection (websockets' default, which the server used)."""

PING_TIMEOUT = 20.0
"""Seconds a connection has to answer a ping (websockets' default, which the server used)."""

SWEEPS_PER_INTERVAL = 100
"""The sweep's timer fires at most this many times an interval: the pings
and checks due meanwhile are done together."""

_PING = b"\x89\x04"  # FIN, ping; unmasked (a server's), a payload of 4 bytes


class Keepalive:
    """Pings every connection it watches, fails those that stop answering."""

    def __init__(
        self,
        clock: Clock,
        interval: float = PING_INTERVAL,
        timeout: float | None = PING_TIMEOUT,
        spread: Callable[[], float] = random.random,
    ) -> None:
        self.clock = clock
        self.interval = interval
        self.timeout = timeout
        self.spread = spread
        """A number in [0, 1): where in its first interval a connection's first ping falls."""
        self.pings_sent = 0
        self.failed = 0
        self._tick = interval / SWEEPS_PER_INTERVAL
        self._order = itertools.count()  # ties broken by arrival (connections do not compare)
        # (when, order, connection, the earliest its check may fail it)
        self._pings: list[tuple[float, int, LeanConnection, float]] = []
        # (when, order, connection, the payload of the ping to be answered by then)
        self._checks: list[tuple[float, int, LeanConnection, bytes]] = []
        self._timer: Timer | None = None
        self._armed_for = 0.0
        self._swept = float("-inf")
        self._stopped = False
        self._failing: set[asyncio.Task[None]] = set()

    def watch(self, ws: LeanConnection) -> None:
        """Keep ``ws`` (just opened) alive from now until it closes."""
        now = self.clock.time()
        first = now + self.interval * (1.0 - self.spread())
        floor = now + self.interval + (self.timeout or 0.0)
        heapq.heappush(self._pings, (first, next(self._order), ws, floor))
        self._arm()

    def stop(self) -> None:
        """No more pings or checks (the server is closing every connection)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        if self._stopped:
            return
        heads = [queue[0][0] for queue in (self._pings, self._checks) if queue]
        if not heads:
            return
        when = max(min(heads), self._swept + self._tick)
        if self._timer is not None:
            if self._armed_for <= when:
                return
            self._timer.cancel()
        self._armed_for = when
        self._timer = self.clock.call_at(when, self._sweep)

    def _sweep(self) -> None:
        self._timer = None
        now = self._swept = self.clock.time()
        checks = self._checks
        while checks and checks[0][0] <= now:
            _, _, ws, payload = heapq.heappop(checks)
            # Unanswered: the ping it waits for is still the connection's last.
            if ws.ping_payload is payload and ws.protocol.state is OPEN:
                self._fail(ws)
        pings = self._pings
        timeout = self.timeout
        interval = self.interval
        while pings and pings[0][0] <= now:
            due, _, ws, floor = heapq.heappop(pings)
            if ws.protocol.state is not OPEN:
                continue  # closing (its close has its own timeout) or closed: forgotten
            # A ping still unanswered (a timeout longer than the interval):
            # as websockets, no second ping before its answer or its timeout.
            if ws.ping_payload is None or timeout is None:
                payload = random.getrandbits(32).to_bytes(4, "big")
                ws.ping_payload = payload
                _ping(ws, payload)
                self.pings_sent += 1
                if timeout is not None:
                    check = (max(now + timeout, floor), next(self._order), ws, payload)
                    heapq.heappush(checks, check)
            # The next an interval after this one was due, not after now: a
            # sweep held up (a collection stopped the server for seconds) sends
            # what fell due meanwhile together, and from now they would stay
            # together, a burst every interval ever after (at 4,000 tables, a
            # 140-170 ms stall every 20 s: docs/LOAD.md). Held up longer than
            # an interval: a new place in the next one, as a new connection's.
            nxt = due + interval
            if nxt <= now:
                nxt = now + interval * (1.0 - self.spread())
            heapq.heappush(pings, (nxt, next(self._order), ws, 0.0))
        self._arm()

    def _fail(self, ws: LeanConnection) -> None:
        self.failed += 1
        task = asyncio.get_running_loop().create_task(_fail(ws))
        self._failing.add(task)
        task.add_done_callback(self._failing.discard)


def _ping(ws: LeanConnection, payload: bytes) -> None:
    if not ws.protocol.extensions:
        # What websockets' ping() would write, as Conn.send_raw writes a
        # message: nothing of websockets' waits to go out before it (see there).
        try:  # noqa: SIM105 (contextlib.suppress is three Python calls a ping)
            ws.transport.write(_PING + payload)
        except Exception:  # the socket went away: its close is coming
            pass
        return
    task = asyncio.get_running_loop().create_task(_websockets_ping(ws, payload))
    _pinging.add(task)
    task.add_done_callback(_pinging.discard)


_pinging: set[asyncio.Task[None]] = set()
"""websockets' own pings under way (rare: only on a connection with an extension)."""


async def _websockets_ping(ws: LeanConnection, payload: bytes) -> None:
    with contextlib.suppress(Exception):  # closed meanwhile: nothing to keep alive
        await ws.ping(payload)  # its pong: heard in the reader's acknowledge_pings


async def _fail(ws: LeanConnection) -> None:
    """What websockets' keepalive does when a pong is late."""
    with contextlib.suppress(ConnectionClosed):
        async with ws.send_context():
            ws.protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")


def available() -> bool:
    """Whether websockets has what this keepalive hooks (else its own keepalive stays on)."""
    from websockets.asyncio.server import ServerConnection

    return all(hasattr(ServerConnection, name) for name in ("acknowledge_pings", "send_context"))


__all__ = ["PING_INTERVAL", "PING_TIMEOUT", "Keepalive", "available"]

"""The server's clock, as a client can tell it.

A view's times (``deadline``, ``gather_until``, ``next_deal_at``, a
tournament's ``finish_at``) are Unix times on the server's clock; this
computer's clock may be minutes off. ``welcome.now`` (docs/PROTOCOL.md) says
the server's time: a countdown counts from this computer's clock plus the
difference seen then. One connection per process, so one difference.
"""

from __future__ import annotations

import time

_offset = 0.0


def learn(server_now: float) -> None:
    """Keep the difference to the server's clock (``server_now`` 0: not said, none)."""
    global _offset
    _offset = server_now - time.time() if server_now > 0 else 0.0


def now() -> float:
    """The server's time now (Unix seconds), as well as this client can tell."""
    return time.time() + _offset


def local(server_time: float) -> float:
    """A time on the server's clock, on this computer's (to show as an hour)."""
    return server_time - _offset

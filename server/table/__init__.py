"""One authoritative table, in files by job.

* ``state``   the persisted ``TableState`` (the store's one blob per table);
* ``inbox``   the one union of messages a table is told (``Message``);
* ``effects`` what the core asks the actor to do (send, save, arm, ...);
* ``fanout``  each recipient's view stream: views, diffs, patch history;
* ``core``    ``TableCore.handle(message, now) -> effects``: every decision, no I/O;
* ``mode``    ``TableMode``: the rules a table's mode decides, and the normal mode;
* ``modes``   the registry of modes (each mode's own is in its package: ``server/daily/mode.py``);
* ``ending``  ``GameOver``, ``GameEnds``: the one way a game's end is told, whatever the mode;
* ``actor``   ``Table``: the asyncio task feeding the core and carrying out its effects.

The actor is imported from ``server.table.actor``, not from here: importing
the pure modules runs this file, and it must not pull asyncio code in with them.
"""

from server.table.core import TableCore
from server.table.inbox import Act, BotMove, Gone, Join, Message, Peer, Reclaim, Stop, Sweep, Wake
from server.table.seats import SEAT_ERRORS
from server.table.state import SeatState, TableState, digest, new_state

_SEAT_ERRORS = SEAT_ERRORS
"""The seat refusals' codes (tests/test_protocol_docs.py checks each is documented)."""

__all__ = [
    "SEAT_ERRORS",
    "Act",
    "BotMove",
    "Gone",
    "Join",
    "Message",
    "Peer",
    "Reclaim",
    "SeatState",
    "Stop",
    "Sweep",
    "TableCore",
    "TableState",
    "Wake",
    "digest",
    "new_state",
]

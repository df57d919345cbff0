"""What a table's core asks for: plain values the actor carries out, in order.

The core (``TableCore.handle``) never sends, saves, sleeps or reads a clock;
it returns a list of these. The actor (``server.table.actor``) performs them
one after the other, awaiting a ``Save`` before going on: every ``Send`` that
tells of a move comes after the ``Save`` of that move, so an acknowledged
move is never lost. A game's end is one more of them, ``GameOver``
(``server.table.ending``), whatever the table's mode.

The effects of every move (``Send``, ``Save``, ``Arm``) are msgspec Structs:
made in C, ~6 times cheaper than a frozen dataclass, whose ``__init__``
sets each field through ``object.__setattr__`` (docs/LOAD.md, sixth pass).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec

from protocol.errors import ByeCode, ErrorCode
from protocol.messages import Event
from protocol.views import BotLevel, TableSummary, TableView
from server.table.ending import GameOver
from server.table.inbox import Join, Peer, Reclaim, Wake


# The effects of every move refer to nothing that refers back to them: not
# tracked by the cyclic collector (``gc=False``, as views: protocol/views.py).
class Send(msgspec.Struct, frozen=True, gc=False):
    """Send ``message`` to each of ``to`` (the same message: encode it once per codec)."""

    to: tuple[Peer, ...]
    message: Event


@dataclass(frozen=True, slots=True)
class Close:
    """Close ``peer``'s connection (after what was sent to it before)."""

    peer: Peer
    why: ByeCode
    """The bye sent just before, which picks the close code (``server.link.conn``)."""
    reason: str


@dataclass(frozen=True, slots=True)
class Record:
    """Append a finished deal's record (JSON bytes) to the table's history,
    once per ``key`` (``"{games_played}/{attempt}"``: see ``TableStore.append_record``)."""

    blob: bytes
    key: str


class Save(msgspec.Struct, frozen=True, gc=False):
    """Store the table's state at ``version``; what follows waits for it."""

    version: int
    blob: bytes
    open_: bool


class Arm(msgspec.Struct, frozen=True, gc=False):
    """Wake the table with ``wake`` at absolute time ``at``; ``None``: no timer.

    A table has at most one timer: arming replaces the one before.
    """

    at: float | None
    wake: Wake | None = None


@dataclass(frozen=True, slots=True)
class Listing:
    """Tell the lobby how the table lists now (``closed``: take it off)."""

    summary: TableSummary
    private: bool
    code: str
    closed: bool = False


@dataclass(frozen=True, slots=True)
class Route:
    """``peer``'s commands now go to this table (``here``) or no longer do.

    ``to_lobby``: the peer is back in the lobby and gets its list again.
    """

    peer: Peer
    here: bool
    to_lobby: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """Answer the join or reclaim ``to``: ``None`` when seated, else the error code."""

    to: Join | Reclaim
    error: ErrorCode | None


@dataclass(frozen=True, slots=True)
class SendHistory:
    """Send ``peer`` the table's deal records (read from the store)."""

    peer: Peer
    rid: int


@dataclass(frozen=True, slots=True)
class Think:
    """Ask a bot of ``level`` for ``seat``'s decision; feed back a ``BotMove``."""

    seat: int
    version: int
    view: TableView
    level: BotLevel
    seed: str


@dataclass(frozen=True, slots=True)
class Advise:
    """Ask the strong bot what ``peer`` (at ``seat``) should do; answer it a ``HintAnswer``."""

    peer: Peer
    rid: int
    view: TableView
    seed: str


@dataclass(frozen=True, slots=True)
class Log:
    """A log event with its fields (bound to the table by the actor)."""

    event: str
    level: Literal["info", "warning", "error"] = "info"
    fields: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class Refused:
    """A command was refused (an ``Error`` was sent): counted by blame."""

    blame: Literal["rule"]


Effect = (
    Send
    | Close
    | Record
    | Save
    | Arm
    | Listing
    | Route
    | Answer
    | SendHistory
    | Think
    | Advise
    | Log
    | Refused
    | GameOver
)

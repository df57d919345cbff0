"""What a table is told: the one union of messages its inbox takes.

Everything that changes a table arrives as one of these, put on the table's
inbox by the front, the lobby, a timer or the table's own bot runner; the
table's task hands them one at a time to the core (``TableCore.handle``).
A message is plain data: it names a connection (a ``Peer``) but cannot
reach it, and a ``done`` future (for the lobby, which waits for the answer
to a join) is resolved by the actor, never by the core.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias

from protocol.errors import ErrorCode
from protocol.messages import Command, GameCommand
from protocol.views import TableView


class Peer(Protocol):
    """A connection as a table sees it: who it is, not how to reach it.

    The actor carries out sends and closes on the real connection; a test
    passes any object with these two attributes.
    """

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


if TYPE_CHECKING:
    import asyncio

    # Resolves to None when the peer was seated, else to the error code.
    Answer: TypeAlias = asyncio.Future[ErrorCode | None]


def _token() -> str:
    return secrets.token_urlsafe(18)


@dataclass(slots=True)
class Join:
    """Sit (or watch, ``spectator``) at the table; ``seat`` None takes any free seat."""

    peer: Peer
    seat: int | None
    rid: int
    spectator: bool = False
    creator: bool = False
    quiet: bool = False
    """Quick play tries tables in turn: a refusal is not reported to the client."""
    token: str = field(default_factory=_token)
    """The secret half of the resume token the seat gets (drawn here, not in the core)."""
    done: Answer | None = None
    player: str | None = None
    """The joining connection's player id (None: a guest); a daily table checks it."""


@dataclass(slots=True)
class Reclaim:
    """Take a seat back with its resume token (the wire's ``resume``)."""

    peer: Peer
    token: str
    last_seq: int
    rid: int
    done: Answer | None = None


class Act:
    """A command from a connection at the table (as decoded from the wire).

    A plain class, not a dataclass as the others: one is made per move, and
    compiled (server/base/compiled.py) a dataclass is made through its
    generic ``__init__`` (~1,300 instructions), this one by a direct call."""

    __slots__ = ("command", "peer")
    __match_args__ = ("peer", "command")

    def __init__(self, peer: Peer, command: Command) -> None:
        self.peer = peer
        self.command = command

    def __repr__(self) -> str:
        return f"Act(peer={self.peer!r}, command={self.command!r})"


@dataclass(slots=True)
class Gone:
    """The connection dropped."""

    peer: Peer


@dataclass(slots=True)
class Wake:
    """A timer fired; acted on only if the table is still at ``version``."""

    kind: Literal["auto", "deal", "gather"]
    """``auto``: a bot (or a run-out timer) acts for ``seat``; ``deal``: deal
    the next deal; ``gather``: a quick-play table's wait for people is over."""
    version: int
    seat: int | None = None


@dataclass(slots=True)
class BotMove:
    """A bot's decision for ``seat``, asked for by a ``Think`` effect at ``version``."""

    seat: int
    version: int
    command: GameCommand
    view: TableView
    """The view the bot decided from (a fallback move is drawn from it)."""


@dataclass(slots=True)
class Sweep:
    """The lobby's periodic look: note whether a human is here, close if idle."""


@dataclass(slots=True)
class Hurry:
    """Bots finish the game: every human seat is handed to a bot (a
    tournament's host ending a round that overran its timeout)."""

    reason: str


@dataclass(slots=True)
class Stop:
    """Shut the actor down (server shutdown); the state is already saved."""


Message = Join | Reclaim | Act | Gone | Wake | BotMove | Sweep | Hurry
"""What the core decides on (``Stop`` is the actor's own)."""

InboxItem = Message | Stop

"""The messages of the Atout protocol: client commands and server events.

Each message is a msgspec Struct in a tagged union; the tag is the field
``"t"`` (e.g. ``{"t": "play", "rid": 7, "card": "KS"}``). Commands carry a
client-chosen request id ``rid``; a refused command is answered by an
``Error`` carrying the same ``rid``. An accepted command needs no ack: the
change shows up in the next view patch.

New fields always get defaults, so older peers keep decoding newer messages.
See docs/PROTOCOL.md for the whole conversation.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.diff import Patch
from protocol.errors import ByeCode
from protocol.tournaments import TournamentSettings, TournamentView
from protocol.views import (
    FOUR_PLAYERS,
    BotLevel,
    DailyResultView,
    LeaderboardView,
    LobbyView,
    SizeRules,
    TableView,
)


# Messages are trees, as views are (protocol/views.py): ``gc=False``.
class _Cmd(msgspec.Struct, tag_field="t", kw_only=True, gc=False):
    rid: int = 0
    """The client's request id, echoed in an ``Error`` if the command is refused."""


# -- session --------------------------------------------------------------------


class Hello(_Cmd, tag="hello"):
    """First message of every connection."""

    version: int
    name: str
    client: str = ""
    key: str | None = None
    """The player key (32 hex digits) this client keeps for this server; none: a guest."""
    register: bool = False
    """The key is new: make a player of it, with ``name`` (refused if the name is taken)."""


class Resume(_Cmd, tag="resume"):
    """Take one's seat back with the token received when sitting down.

    ``last_seq`` is the sequence number of the last table message applied;
    the server answers with the missing patches or a snapshot.
    """

    token: str
    last_seq: int = -1


class SnapshotRequest(_Cmd, tag="snapshot"):
    """Ask for a full view (after a gap in sequence numbers or a failed patch)."""


class Ping(_Cmd, tag="ping"):
    pass


# -- lobby ----------------------------------------------------------------------


class CreateTable(_Cmd, tag="create"):
    name: str = ""
    players: int = FOUR_PLAYERS
    """The table's size: 3, 4 or 5 players (anything else is ``bad_players``)."""
    private: bool = False
    deals: int | None = None
    """Counted deals in the game; None: the size's own, each seat deals twice
    (6, 8 or 10)."""
    bot_level: BotLevel = "normal"
    turn_timer: float = 0.0
    """Seconds per decision; 0 means no timer (the default for friends)."""
    seed: str | None = None
    """A fixed seed makes the table's deals reproducible."""
    result_wait: float | None = None
    """Seconds a deal's result waits for the humans to press Continue (``ready``);
    0: no wait beyond the server's deal pause; None: the server's setting."""


class JoinTable(_Cmd, tag="join"):
    """Sit at a table by id or invite code; ``seat`` None means any free seat."""

    table_id: str | None = None
    code: str | None = None
    seat: int | None = None


class QuickPlay(_Cmd, tag="quick"):
    """Sit at any public waiting table of ``players`` with a free seat, or open one."""

    players: int = FOUR_PLAYERS
    """The size of table wanted: 3, 4 or 5 players (else ``bad_players``)."""


class Watch(_Cmd, tag="watch"):
    table_id: str | None = None
    code: str | None = None


class Leave(_Cmd, tag="leave"):
    """Leave the table (the seat is freed, or handed to a bot mid-game)."""


# -- table ----------------------------------------------------------------------


class StartGame(_Cmd, tag="start"):
    """The table's creator starts; empty seats are filled by bots."""


class PlayAgain(_Cmd, tag="again"):
    """After the final ranking: a new game at the same table."""


class Ready(_Cmd, tag="ready"):
    """Between deals: you have read the deal's result. The next deal is dealt
    when every human at the table is ready, or when the wait runs out."""


class Bid(_Cmd, tag="bid"):
    bid: str


class Call(_Cmd, tag="call"):
    """5 players: the taker calls a card (a King, or as ``Legal.calls`` says);
    its holder is the taker's partner, told to nobody until it is played."""

    card: str


class Ecart(_Cmd, tag="ecart"):
    cards: list[str]


class Chelem(_Cmd, tag="chelem"):
    declare: bool


class Poignee(_Cmd, tag="poignee"):
    cards: list[str]


class Play(_Cmd, tag="play"):
    card: str


class Chat(_Cmd, tag="chat"):
    text: str


class GetHistory(_Cmd, tag="history"):
    """The deal records of the table's finished deals."""


class Hint(_Cmd, tag="hint"):
    """What the strong bot would do in your seat now, with a one-line reason
    (casual tables only: refused with ``no_hints`` at daily and tournament
    tables)."""


# -- players and the daily game ---------------------------------------------------


class Rename(_Cmd, tag="rename"):
    """A player (not a guest) takes another display name."""

    name: str


class Daily(_Cmd, tag="daily"):
    """Start today's daily game, or take back the attempt in progress.

    After the ranked attempt is finished, the same command starts a practice
    game on the same deals, unranked.
    """


class GetLeaderboard(_Cmd, tag="leaderboard"):
    period: str = "today"
    """A ``LeaderboardPeriod``. Any string decodes, so that an unknown period
    is answered ``bad_period`` (as docs/PROTOCOL.md says) rather than failing
    as a malformed message."""
    page: int = 0
    """Pages of ``PAGE_SIZE`` lines, from 0."""


# -- tournaments (protocol/tournaments.py, docs/TOURNAMENTS.md) -------------------


class TournamentCreate(_Cmd, tag="tournament_create"):
    """Host a tournament; the answer is a ``tournament`` event with its code.
    Absurd settings are ``bad_tournament``; a guest is ``guest``."""

    settings: TournamentSettings = msgspec.field(default_factory=TournamentSettings)


class TournamentJoin(_Cmd, tag="tournament_join"):
    """Enter the tournament ``code`` (before it starts), in ``team`` if it has teams."""

    code: str
    team: str = ""


class TournamentLeave(_Cmd, tag="tournament_leave"):
    """Leave a tournament that has not started."""

    code: str


class TournamentGet(_Cmd, tag="tournament"):
    """Ask for the tournament's view; it is sent again at each change
    (until another ``tournament`` command names another one)."""

    code: str


class TournamentStart(_Cmd, tag="tournament_start"):
    """The host starts: the first round is seated and dealt."""

    code: str


class TournamentRemove(_Cmd, tag="tournament_remove"):
    """The host removes ``player_id``: no seat from the next round on."""

    code: str
    player_id: str


class TournamentFinish(_Cmd, tag="tournament_finish"):
    """The host, once the round's timeout is past: bots finish the deals
    still unplayed at every table of the round."""

    code: str


TournamentCommand = (
    TournamentCreate
    | TournamentJoin
    | TournamentLeave
    | TournamentGet
    | TournamentStart
    | TournamentRemove
    | TournamentFinish
)
"""The commands about a tournament (the server's tournament service takes them)."""

Command = (
    Hello
    | Resume
    | SnapshotRequest
    | Ping
    | CreateTable
    | JoinTable
    | QuickPlay
    | Watch
    | Leave
    | StartGame
    | PlayAgain
    | Ready
    | Bid
    | Call
    | Ecart
    | Chelem
    | Poignee
    | Play
    | Chat
    | GetHistory
    | Hint
    | Rename
    | Daily
    | GetLeaderboard
    | TournamentCommand
)
"""Everything a client may send."""

GameCommand = Bid | Call | Ecart | Chelem | Poignee | Play
"""The commands a seat (human or bot) plays the game with."""


# -- server events -------------------------------------------------------------


class _Event(msgspec.Struct, tag_field="t", kw_only=True, gc=False):
    pass


class Welcome(_Event, tag="welcome"):
    version: int
    session: str
    server: str = "atout"
    player_id: str | None = None
    """Your player id when you said hello with a key; ``None`` for a guest."""
    name: str = ""
    """The name you play under (a player's registered name, not always the one sent)."""
    rules: list[SizeRules] = msgspec.field(default_factory=list)
    """The rules of each table size the server plays (3, 4 and 5 players)."""
    now: float = 0.0
    """The server's clock (Unix time) as it sent this: a client counts down to
    the view's deadlines from it, not from its own clock, which may be off.
    0: not said (an older server)."""


class Error(_Event, tag="error"):
    """A refused command or a problem with a frame: stable ``code``, a
    ``message`` for a person, and the ``rid`` of the command when known."""

    code: str
    message: str
    rid: int | None = None


class Seated(_Event, tag="seated"):
    """You sit at ``table_id`` (``seat`` None: watching). Keep ``token`` to resume."""

    table_id: str
    seat: int | None
    token: str | None = None
    rid: int | None = None


class TableSnapshot(_Event, tag="table"):
    seq: int
    view: TableView


class TablePatch(_Event, tag="tpatch"):
    """Apply ``patch`` (see protocol/diff.py) to the view of sequence ``seq - 1``."""

    seq: int
    patch: Patch


class LobbySnapshot(_Event, tag="lobby"):
    seq: int
    view: LobbyView


class LobbyPatch(_Event, tag="lpatch"):
    seq: int
    patch: Patch


class History(_Event, tag="history"):
    records: list[dict[str, Any]]
    rid: int | None = None


class HintAnswer(_Event, tag="hint"):
    """The answer to ``hint``: the command the strong bot would send in your
    seat (``command``: its tag, ``choice``: the bid, or the cards), and why,
    as a stable ``reason`` code a client words in its own language (``suit``:
    the suit the reason names, or "")."""

    command: str
    choice: list[str]
    reason: str
    suit: str = ""
    rid: int | None = None


class Pong(_Event, tag="pong"):
    rid: int | None = None


class Left(_Event, tag="left"):
    """You are no longer at the table (you left, or the table closed)."""

    table_id: str
    reason: str = ""


class PlayerInfo(_Event, tag="player"):
    """Who you are now (answer to ``rename``)."""

    player_id: str
    name: str
    rid: int | None = None


class Leaderboard(_Event, tag="leaderboard"):
    view: LeaderboardView
    rid: int | None = None


class DailyResult(_Event, tag="daily_result"):
    """Your daily game is over: each deal against everyone's result on it."""

    result: DailyResultView


class Tournament(_Event, tag="tournament"):
    """A tournament you asked for, created, joined or play in, as it is now."""

    view: TournamentView
    rid: int | None = None


class Bye(_Event, tag="bye"):
    """The server is closing this connection (restart, replaced, too slow...).

    ``code`` is a plain string on the wire (a client must not fail on a code a
    newer server adds); the server builds its byes with ``bye``, which the
    type checker holds to the documented codes.
    """

    code: str
    message: str


def bye(code: ByeCode, message: str) -> Bye:
    """A ``Bye`` with one of the codes docs/PROTOCOL.md lists (``ByeCode``)."""
    return Bye(code=code, message=message)


Event = (
    Welcome
    | Error
    | Seated
    | TableSnapshot
    | TablePatch
    | LobbySnapshot
    | LobbyPatch
    | History
    | HintAnswer
    | Pong
    | Left
    | PlayerInfo
    | Leaderboard
    | DailyResult
    | Tournament
    | Bye
)
"""Everything the server may send."""

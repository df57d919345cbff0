"""The persisted table: ``TableState``, the one value a store keeps per table.

Saved whole, as msgpack, after every accepted change (``store.save``); a
restart decodes it and the table carries on from there. New fields always
get a default so that a state saved by an older server still decodes.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from protocol.msgpack_arrays import array_header
from protocol.views import BotLevel, ChatLine, SeatKind, TableStatus
from server.game import GameState
from server.game.variant import FOUR, Variant, variant_for

BOT_NAMES = ("Bot Ada", "Bot Blaise", "Bot Colette", "Bot Denis", "Bot Émile")
"""A bot's name by seat: one for each seat of the largest table."""


class SeatState(msgspec.Struct):
    kind: SeatKind = "empty"
    name: str | None = None
    token_digest: str | None = None
    """The digest of the seat's resume token (``digest``), never the token."""


class TableState(msgspec.Struct):
    """Everything a table needs to come back after a restart (persisted as msgpack)."""

    table_id: str
    name: str
    code: str
    private: bool = False
    deals: int = 8
    bot_level: BotLevel = "normal"
    turn_timer: float = 0.0
    seed: str | None = None
    creator: int | None = None
    seats: list[SeatState] = msgspec.field(
        default_factory=lambda: [SeatState() for _ in FOUR.seats]
    )
    """One per seat of the table's variant (``new_state`` sizes them)."""
    status: TableStatus = "waiting"
    game: GameState | None = None
    games_played: int = 0
    version: int = 0
    chat: list[ChatLine] = msgspec.field(default_factory=list)
    deadline: float | None = None
    """Absolute time (Unix) when the turn timer runs out, if one runs."""
    deadline_for: str = ""
    """The decision that deadline is for (see ``server.table.timers.decision``)."""
    next_deal_at: float | None = None
    """Absolute time when the next deal is dealt, between deals."""
    result_wait: float = 60.0
    """Seconds a deal's result waits for the humans (``server.table.pace``)."""
    deal_ended_at: float | None = None
    """Absolute time the last deal ended, between deals (the wait counts from it)."""
    ready: list[int] = msgspec.field(default_factory=list)
    """Between deals: the human seats that pressed Continue (bots always are ready)."""
    last_human_at: float = 0.0
    gather_until: float | None = None
    """A quick-play table while it waits: when bots fill its free seats and
    it starts (Unix time; ``server.table.gather``). None at any other table,
    and once started."""
    players: int = FOUR.players
    """The table's size, its variant's player count (``server.game.variant``);
    a state saved before table sizes is of four."""
    mode: str = "normal"
    """The table's mode, by its registered name (``server.table.modes``): the
    policy the core asks who may sit, where the deals come from, how the game
    ends (``server.table.mode``)."""
    terms: dict[str, Any] | None = msgspec.field(default=None, name="daily")
    """What the mode keeps (a daily table's ``DailyTag``), as its policy gives it.

    Stored under ``daily``, its name when a daily table was the only kind with
    terms: a state saved before modes loads as a daily table (``decode_state``),
    and during a rolling upgrade a process of that version still reads a daily
    table saved by this one as a daily table."""

    @property
    def variant(self) -> Variant:
        return variant_for(self.players)


encode_state = msgspec.msgpack.Encoder().encode
_decode_state = msgspec.msgpack.Decoder(TableState).decode


def decode_state(blob: bytes) -> TableState:
    """The state saved as ``blob`` (by this server or an older one)."""
    st = _decode_state(blob)
    if st.terms is not None and st.mode == "normal":
        # Saved before modes (no ``mode`` stored): only a daily table had terms.
        # (Here, not in a ``__post_init__``: that would run on every
        # ``replace`` of a state.)
        st.mode = "daily"
    return st


class StateWriter:
    """``encode_state``, byte for byte, for a table saved after every move:
    the finished deals' results and the deal's log so far are kept encoded
    (a move adds one entry to the log; the results change once a deal), and
    go into the blob as ``msgspec.Raw``. Most of a blob is those two: encoding
    them anew was ~7% of a move's instructions (docs/LOAD.md, sixth pass)."""

    __slots__ = ("_count", "_log", "_log_body", "_results", "_results_raw")

    def __init__(self) -> None:
        self._results: list[Any] | None = None
        self._results_raw = msgspec.Raw(b"")
        self._log: list[Any] = []
        """The log the entries came from (the deal's own list, most often: it
        only ever grows, so its entry ``_count - 1`` is the last one encoded)."""
        self._count = 0
        """How many of its entries ``_log_body`` holds, encoded one after the other."""
        self._log_body = b""

    def encode(self, st: TableState) -> bytes:
        game = st.game
        if game is None:
            return encode_state(st)
        if game.results is not self._results:  # (the game keeps one list per count)
            self._results = game.results
            self._results_raw = msgspec.Raw(encode_state(game.results))
        log, known, n = game.log, self._log, self._count
        # The same deal's log if its entry n-1 is the very entry kept: the
        # engine appends a new tuple per command (with its seat: never a
        # shared constant) and never rewrites one, and ``known`` keeps that
        # tuple alive, so no other deal's log holds it. Else compared whole.
        if len(log) < n or (n and log[n - 1] is not known[n - 1] and log[:n] != known[:n]):
            n, self._log_body = 0, b""  # a new deal (or a log rewritten)
        grown = len(log) - n
        if grown == 1:  # a move: one entry more
            self._log_body += encode_state(log[n])
        elif grown > 1:
            self._log_body += b"".join([encode_state(entry) for entry in log[n:]])
        self._log, self._count = log, len(log)
        head = array_header(len(log))
        # The two put in place of the game's own lists for the encoding, and
        # put back (copies of the game and the state were ~2,000 instructions).
        results = game.results
        game.results = self._results_raw  # type: ignore[assignment]  # (encodes as the list)
        game.log = msgspec.Raw(head + self._log_body)  # type: ignore[assignment]  # (likewise)
        try:
            return encode_state(st)
        finally:
            game.results, game.log = results, log


def digest(token: str) -> str:
    """Only a token's digest is stored: a leaked store gives no seat away."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_state(
    table_id: str,
    code: str,
    name: str,
    *,
    now: float,
    private: bool,
    deals: int,
    bot_level: BotLevel,
    turn_timer: float,
    seed: str | None,
    result_wait: float,
    variant: Variant = FOUR,
) -> TableState:
    return TableState(
        players=variant.players,
        seats=[SeatState() for _ in variant.seats],
        table_id=table_id,
        name=name,
        code=code,
        private=private,
        deals=deals,
        bot_level=bot_level,
        turn_timer=turn_timer,
        seed=seed,
        result_wait=result_wait,
        last_human_at=now,
    )

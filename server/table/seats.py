"""Who sits where: the seat rules of a table, as pure functions of its state.

A seat is ``empty``, ``human`` or ``bot``. A newcomer takes a free seat, or
a bot's seat when no deal is being played; a human who leaves mid-game is
replaced by a bot (the game must finish), before it the seat empties.
"""

from __future__ import annotations

import secrets

from protocol.errors import ErrorCode
from protocol.views import TableSummary
from server.game import Game
from server.table.pace import dealt
from server.table.state import BOT_NAMES, TableState, digest

SEAT_ERRORS: dict[ErrorCode, str] = {
    "bad_seat": "seats are numbered 0 to {last}",
    "seat_taken": "a player already sits there",
    "wait_for_deal_end": "a bot plays that seat; you can take it over between deals",
    "table_full": "every seat is taken",
}


def seat_error(st: TableState, code: ErrorCode) -> str:
    """The sentence for a seat refusal at this table (``SEAT_ERRORS``)."""
    return SEAT_ERRORS[code].format(last=st.variant.players - 1)


def free_seat(st: TableState, wanted: int | None) -> int | ErrorCode:
    """The seat a newcomer takes, or an error code (``SEAT_ERRORS``)."""
    seats = st.seats
    between = st.status in ("waiting", "between_deals", "finished")
    if wanted is not None:
        if wanted not in st.variant.seats:
            return "bad_seat"
        kind = seats[wanted].kind
        if kind == "empty" or (kind == "bot" and between):
            return wanted
        return "seat_taken" if kind == "human" else "wait_for_deal_end"
    for i, s in enumerate(seats):
        if s.kind == "empty":
            return i
    if between:
        for i, s in enumerate(seats):
            if s.kind == "bot":
                return i
    return "table_full"


def seat_of_token(st: TableState, token: str) -> int | None:
    """The human seat ``token`` holds, if any (compared in constant time)."""
    wanted = digest(token)
    for i, s in enumerate(st.seats):
        if (
            s.kind == "human"
            and s.token_digest is not None
            and secrets.compare_digest(s.token_digest, wanted)
        ):
            return i
    return None


def vacate(st: TableState, seat: int) -> None:
    """A human leaves ``seat``: a bot goes on mid-game, else the seat empties."""
    s = st.seats[seat]
    if st.status in ("playing", "between_deals"):
        s.kind, s.name, s.token_digest = "bot", BOT_NAMES[seat], None
    else:
        s.kind, s.name, s.token_digest = "empty", None, None
    if st.creator == seat:
        humans = [i for i, s in enumerate(st.seats) if s.kind == "human"]
        st.creator = humans[0] if humans else None


def to_bots(st: TableState) -> list[int]:
    """Bots take every human seat of a game in play (its players are told to
    go); the seats they took."""
    if st.status not in ("playing", "between_deals"):
        return []
    taken = [i for i, s in enumerate(st.seats) if s.kind == "human"]
    for i in taken:
        st.seats[i].kind, st.seats[i].token_digest = "bot", None
    st.ready = [i for i in st.ready if i not in taken]
    return taken


def deserted(st: TableState) -> bool:
    """No human holds a seat of the table: nobody is left to start it, play
    it again, or play with the bots a game they left (listed, it would offer
    a Join refused until the deal ends, to a game of bots for nobody). An
    away human still holds theirs."""
    return st.status != "closed" and all(s.kind != "human" for s in st.seats)


def new_game(st: TableState, seed: str | None) -> Game:
    """Bots take the empty seats, and a game starts, its deals from ``seed``
    (the table's mode says which: ``TableMode.deal_seed``)."""
    for i, s in enumerate(st.seats):
        if s.kind == "empty":
            s.kind, s.name = "bot", BOT_NAMES[i]
    st.status = "playing"
    st.gather_until = None  # gathered: the wait for people is over
    dealt(st)
    return Game(deals=st.deals, seed=seed, variant=st.variant)


def summary(st: TableState, spectators: int) -> TableSummary:
    """The table's line in the lobby."""
    seats = st.seats
    return TableSummary(
        table_id=st.table_id,
        name=st.name,
        status=st.status,
        humans=sum(1 for s in seats if s.kind == "human"),
        bots=sum(1 for s in seats if s.kind == "bot"),
        free=sum(1 for s in seats if s.kind == "empty"),
        deals=st.deals,
        bot_level=st.bot_level,
        spectators=spectators,
        players=st.variant.players,
    )

"""A daily table: an ordinary table, private to one player until it is over.

One human (the player whose attempt it is, at the day's seat) and three bots
of the ``normal`` level that decide exactly as at any table, from the seat's
view, through ``Table._bot_move``. What differs, and only here:

- nobody else may sit or watch until the game is finished (``daily_private``);
- the owner coming back without a resume token (another machine, the client
  lost it) takes its seat back with a new token: the old one stops working;
- leaving keeps the seat (the attempt goes on when the player is back; bots
  play its turns after the grace period meanwhile, as for anyone away);
- the game ends after ``deals`` deals *dealt*, annulled ones included, so every
  player of the day plays the same deals; then the result is recorded
  (``DailyService.finished``);
- an unfinished attempt is not closed for idleness before its day is closed.

Written as a subclass so that ``server/table.py`` needs no change beyond its
``TableState.daily`` field; the lead re-applies these on the pure table core.
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from protocol.messages import Error, Left, Seated
from server.daily.board import is_closed
from server.table import Join, Table, digest

if TYPE_CHECKING:
    from server.conn import Conn
    from server.daily.deals import DailyTag


class DailyTable(Table):
    pending: list[Any]
    """Messages for the owner once the state is saved and the view sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending = []

    async def _commit(self) -> None:
        await super()._commit()
        # The result comes after the final view, as every event after a save.
        stream = self.streams[self.tag.seat]
        for msg in self.pending:
            if stream is not None and stream.conn is not None:
                stream.conn.send(msg)
        self.pending.clear()

    @property
    def tag(self) -> DailyTag:
        assert self.state.daily is not None
        return self.state.daily

    def is_owner(self, conn: Conn) -> bool:
        return conn.player is not None and conn.player.id == self.tag.player

    async def _join(self, msg: Join) -> None:
        conn = msg.conn
        if not self.is_owner(conn) and self.state.status != "finished":
            conn.send(
                Error(
                    code="daily_private",
                    message="this is someone's daily game: it opens to others when it is over",
                    rid=msg.rid,
                )
            )
            msg.done.set_result("daily_private")
            return
        if not self.is_owner(conn) or msg.spectator:
            await super()._join(msg)
            return
        seat = self.tag.seat
        state = self.state.seats[seat]
        if state.kind != "human":
            msg.seat = seat
            await super()._join(msg)
            return
        # The owner back without its token: a new token, the seat, a snapshot.
        token = f"{self.id}.{secrets.token_urlsafe(18)}"
        state.token_digest, state.name = digest(token), conn.name
        self.state.last_human_at = time.time()
        self._bind(conn, seat)
        conn.send(Seated(table_id=self.id, seat=seat, token=token, rid=msg.rid))
        msg.done.set_result(None)
        stream = self.streams[seat]
        assert stream is not None
        self._snapshot(conn, stream, seat)
        await self._commit()

    async def _leave(self, conn: Conn, rid: int) -> None:
        if conn.seat != self.tag.seat or self.state.status == "finished":
            await super()._leave(conn, rid)
            return
        # The attempt stays: the seat is kept as if the connection dropped.
        stream = self.streams[self.tag.seat]
        if stream is not None and stream.conn is conn:
            stream.conn = None
        conn.table, conn.seat = None, None
        conn.send(Left(table_id=self.id, reason="your daily game waits for you: daily resumes it"))
        self.home.enter(conn)
        self._schedule()
        self._broadcast()

    async def _play_again(self, conn: Conn, seat: int, rid: int) -> None:
        conn.send(
            Error(
                code="daily_again",
                message="a daily game is played once; the daily command starts a practice game",
                rid=rid,
            )
        )

    async def _settle_deal(self) -> None:
        await super()._settle_deal()
        game = self.game
        assert game is not None
        if len(game.results) >= self.tag.deals and self.state.status != "finished":
            self.state.status = "finished"
            self.state.next_deal_at = None
        if self.state.status == "finished":
            service = getattr(self.home, "daily", None)
            if service is not None:
                await service.finished(self)

    async def _close_if_idle(self) -> None:
        if self.state.status != "finished" and not is_closed(self.tag.day, time.time()):
            return
        await super()._close_if_idle()

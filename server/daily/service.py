"""The daily game and player identity, as the server's front door sees them.

Owns: who a connection is (``identify``: the ``hello`` key), renaming, the
``daily`` command (start, take back, or practise today's game), the end of a
daily game (record the result, tell the player how each deal compares) and
leaderboard pages (the ``leaderboard`` command and ``GET /leaderboard``).
It holds the player store, the daily board and the day's secret; the lobby
and the network layer call it, and it hears the end of every daily table
(``game_over``: the daily game's ``GameEnds``, server/table/ending.py).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from protocol.messages import (
    Daily,
    DailyResult,
    Error,
    GetLeaderboard,
    Hello,
    Leaderboard,
    PlayerInfo,
    Rename,
    StartGame,
)
from protocol.views import (
    PAGE_SIZE,
    DailyDealLine,
    DailyResultView,
    LeaderboardLine,
    LeaderboardView,
)
from server.base.clock import WALL
from server.base.players import BadName, Player, clean_name, key_digest, valid_key
from server.daily.board import PERIODS, BoardLine, DailyBoard, MemoryBoard, Period, board_days
from server.daily.deals import DailySpec, DailyTag, daily_spec, new_secret, utc_day
from server.daily.mode import DailyMode
from server.daily.ranking import compare
from server.store.base import StoreError, TableStore
from server.store.players import MemoryPlayers, NameTaken, PlayerStore
from server.table import Act, Join, Reclaim, TableState, new_state
from server.table.ending import GameOver, Told
from server.table.modes import assign

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.link.conn import Conn
    from server.lobby.directory import Place

log = structlog.get_logger()

RENAME_EVERY = 10.0
"""Seconds between two name changes of one connection."""


class Seating(Protocol):
    """How the daily game opens tables and seats players (the lobby, server/lobby/lobby.py)."""

    def find(self, table_id: str | None, code: str | None = None) -> Place | None:
        """An open table, served here or elsewhere."""
        ...

    async def open(
        self, conn: Conn, rid: int, state: Callable[[str, str, float], TableState], table_id: str
    ) -> Place | None:
        """Open a table whose first state is ``state(table_id, code, now)``; None
        (``conn`` was told why) if it cannot be."""
        ...

    async def sit(self, conn: Conn, table: Place, msg: Join | Reclaim) -> None:
        """Seat ``conn`` as ``msg`` asks (refused: back in the lobby)."""

    def table_of(self, conn: Conn) -> Place | None:
        """The table ``conn``'s commands go to."""
        ...


class DailyService:
    def __init__(
        self,
        settings: Settings,
        players: PlayerStore,
        board: DailyBoard,
        secret: str,
        clock: Callable[[], float] = WALL.time,
    ) -> None:
        self.settings = settings
        self.players = players
        self.board = board
        self.secret = secret
        self.clock = clock
        """Now, in seconds since the epoch: the server's clock (``Clock.time``) sets
        the day, the results' times and the rename limit."""

    @classmethod
    async def open(
        cls, settings: Settings, store: TableStore, clock: Callable[[], float] = WALL.time
    ) -> DailyService:
        """Beside ``store``: in its Redis when it is a ``RedisStore``, else in memory.

        The secret is ``daily_secret`` if set; else, with Redis, the one
        stored there (made by the first server to need it, so every process
        and every restart deals the same day); else one for this process.
        """
        from server.store.redis import RedisStore

        if isinstance(store, RedisStore):
            from server.daily.redis_board import RedisBoard
            from server.store.redis_players import RedisPlayers

            secret = settings.daily_secret
            if not secret:
                async with store.request("daily secret"):
                    key = store.keys.daily_secret
                    await store.pool.set_if_absent(key, new_secret().encode())
                    stored = await store.pool.get(key)
                assert stored is not None  # set just before, never deleted
                secret = stored.decode()
            return cls(settings, RedisPlayers(store), RedisBoard(store), secret, clock)
        secret = settings.daily_secret or new_secret()
        return cls(settings, MemoryPlayers(), MemoryBoard(), secret, clock)

    def spec(self, now: float | None = None) -> DailySpec:
        now = self.clock() if now is None else now
        return daily_spec(self.secret, utc_day(now), self.settings.daily_deals)

    # -- identity ---------------------------------------------------------------

    async def identify(self, hello: Hello) -> Player | Error | None:
        """The player saying ``hello``: ``None`` for a guest (no key), an
        ``Error`` to refuse the connection with (nothing is stored then)."""
        if hello.key is None:
            return None
        if not valid_key(hello.key):
            return Error(code="bad_key", message="a player key is 32 hex digits", rid=hello.rid)
        digest = key_digest(hello.key)
        known = await self.players.find(digest)
        if known is not None:
            return known
        if not hello.register:
            return Error(
                code="unknown_key",
                message="this server does not know your player key (import the right one, "
                "or make a new one)",
                rid=hello.rid,
            )
        try:
            name = clean_name(hello.name)
        except BadName as e:
            return Error(code="bad_name", message=str(e), rid=hello.rid)
        try:
            player = await self.players.register(digest, name)
        except NameTaken as e:
            return Error(
                code="name_taken",
                message=f"{e}: choose another name (your key was not registered)",
                rid=hello.rid,
            )
        log.info("player_registered", player=player.id)
        return player

    # -- commands -----------------------------------------------------------------

    async def command(
        self, lobby: Seating, conn: Conn, msg: Rename | Daily | GetLeaderboard
    ) -> None:
        try:
            match msg:
                case Rename():
                    await self._rename(conn, msg)
                case Daily():
                    await self.start(lobby, conn, msg.rid)
                case GetLeaderboard():
                    await self._leaderboard(conn, msg)
        except StoreError:
            log.warning("daily_store_error", exc_info=True)
            conn.send(
                Error(
                    code="unavailable",
                    message="the server's store is not answering; try again",
                    rid=msg.rid,
                )
            )

    async def _rename(self, conn: Conn, msg: Rename) -> None:
        if conn.player is None:
            conn.send(
                Error(
                    code="guest",
                    message="guests have no name to keep; connect with a player key",
                    rid=msg.rid,
                )
            )
            return
        now = self.clock()
        if now - conn.renamed_at < RENAME_EVERY:
            conn.send(
                Error(code="rate_limited", message="one name change every 10 seconds", rid=msg.rid)
            )
            return
        # The limit is on name *changes*: a refused name (or a store that did
        # not answer) changes nothing, so it does not start the wait. Taken
        # before the store is asked, so two renames in flight cannot both pass.
        before, conn.renamed_at = conn.renamed_at, now
        try:
            player = await self.players.rename(conn.player.id, clean_name(msg.name))
        except BadName as e:
            conn.renamed_at = before
            conn.send(Error(code="bad_name", message=str(e), rid=msg.rid))
            return
        except NameTaken as e:
            conn.renamed_at = before
            conn.send(Error(code="name_taken", message=str(e), rid=msg.rid))
            return
        except StoreError:
            conn.renamed_at = before
            raise
        conn.player, conn.name = player, player.name
        conn.send(PlayerInfo(player_id=player.id, name=player.name, rid=msg.rid))

    async def _leaderboard(self, conn: Conn, msg: GetLeaderboard) -> None:
        if msg.period not in PERIODS or msg.page < 0:
            conn.send(
                Error(
                    code="bad_period",
                    message="period: today, yesterday, week or all; page >= 0",
                    rid=msg.rid,
                )
            )
            return
        view = await self.leaderboard(msg.period, msg.page, conn.player)
        conn.send(Leaderboard(view=view, rid=msg.rid))

    async def leaderboard(
        self, period: Period, page: int, player: Player | None = None
    ) -> LeaderboardView:
        now = self.clock()
        lines, total = await self.board.page(period, now, page * PAGE_SIZE, PAGE_SIZE)
        own = await self.board.position(period, now, player.id) if player else None
        names = await self.players.names(
            {x.player for x in lines} | ({own.player} if own else set())
        )
        first, last = board_days(period, now)

        def line(x: BoardLine) -> LeaderboardLine:
            return LeaderboardLine(
                position=x.position,
                name=names.get(x.player, "?"),
                percent=x.percent,
                points=x.points,
                days=x.days,
                you=player is not None and x.player == player.id,
            )

        return LeaderboardView(
            period=period,
            page=page,
            pages=math.ceil(total / PAGE_SIZE),
            total=total,
            lines=[line(x) for x in lines],
            own=line(own) if own else None,
            first_day="" if period == "all" else first.isoformat(),
            last_day=last.isoformat(),
        )

    # -- the daily game -------------------------------------------------------------

    async def start(self, lobby: Seating, conn: Conn, rid: int) -> None:
        """Sit ``conn``'s player at its daily table: the attempt in progress,
        else a new ranked attempt, else (already played) a practice game."""
        player = conn.player
        if player is None:
            conn.send(
                Error(
                    code="guest",
                    message="the daily game is for players with a key (atout makes one for you)",
                    rid=rid,
                )
            )
            return
        spec = self.spec()
        table_id = secrets.token_hex(4)
        earlier = await self.board.claim(spec.day, player.id, table_id)
        ranked = earlier is None
        if earlier is not None and await self.board.result(spec.day, player.id) is None:
            found = lobby.find(earlier)  # served here or elsewhere
            if found is not None:
                await lobby.sit(conn, found, Join(conn, spec.seat, rid, player=player.id))
                return
            # The attempt's table is gone (an in-memory server restarted):
            # what is left is practice.
        tag = DailyTag(
            day=spec.day, player=player.id, seat=spec.seat, deals=spec.deals, ranked=ranked
        )

        def state(table_id: str, code: str, now: float) -> TableState:
            state = new_state(
                table_id,
                code,
                f"Daily {spec.day}" + ("" if ranked else " (practice)"),
                now=now,
                private=True,
                deals=spec.deals,
                bot_level="normal",
                turn_timer=0.0,
                seed=spec.seed,
                result_wait=self.settings.result_wait,
            )
            assign(state, DailyMode(tag))  # the table's daily rules: server/daily/mode.py
            return state

        table = await lobby.open(conn, rid, state, table_id)
        if table is None:
            return
        log.info("daily_started", table=table_id, player=player.id, ranked=ranked)
        await lobby.sit(conn, table, Join(conn, spec.seat, rid, creator=True, player=player.id))
        if lobby.table_of(conn) is table:
            table.inbox.put_nowait(Act(conn, StartGame(rid=rid)))

    async def game_over(self, over: GameOver, log: Any) -> list[Told]:
        """A daily table's game is over: record its player's result, and
        send it its ``daily_result`` if it is there."""
        if not isinstance(over.mode, DailyMode):
            raise TypeError(f"not a daily table: {over.mode.name}")
        tag = over.mode.tag
        # The player's points in each of the day's deals (0 for an annulled one).
        result = await self.finished(tag, [s[tag.seat] for s in over.scores[: tag.deals]], log)
        to = over.seats[tag.seat]
        return [(to, result)] if result is not None and to is not None else []

    async def finished(
        self, tag: DailyTag, scores: list[int], table_log: Any = log
    ) -> DailyResult | None:
        """A daily game is over with ``scores`` (the player's points per deal):
        record it; the ``daily_result`` for its player (None if not recorded)."""
        try:
            ranked = tag.ranked and await self.board.record(
                tag.day, tag.player, scores, self.clock()
            )
            counts = await self.board.deal_counts(tag.day)
        except StoreError:
            table_log.error("daily_result_not_saved", player=tag.player, scores=scores)
            return None
        lines = []
        for k, score in enumerate(scores):
            deal: dict[Any, int] = dict(counts[k]) if k < len(counts) else {}
            if not ranked:  # compare as if it were one more result
                deal[score] = deal.get(score, 0) + 1
            against = compare(score, deal)
            lines.append(
                DailyDealLine(
                    deal=k + 1,
                    points=score,
                    percent=round(against.percent, 2),
                    players=sum(deal.values()),
                    others=against.others,
                    beaten=against.beaten,
                    tied=against.tied,
                )
            )
        view = DailyResultView(
            day=tag.day,
            ranked=ranked,
            deals=lines,
            percent=round(sum(x.percent for x in lines) / max(1, len(lines)), 2),
            points=sum(scores),
        )
        table_log.info("daily_finished", player=tag.player, ranked=ranked, points=view.points)
        return DailyResult(result=view)

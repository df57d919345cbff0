"""The table's decisions, apart from all I/O: ``TableCore.handle(message, now)``.

This is the one place that decides what a message does to a table: who sits
where, whether a command is carried out, when timers run, what each seat is
then told. Like the ``Protocol`` of ``websockets``, it holds its state and
answers each input with the outputs it calls for, here a list of effects
(``server.table.effects``) that the actor carries out in order. No socket,
store, event loop or clock in here: ``now`` comes with each message, and a
test drives every path, timers included, by choosing it.

Like ``h11``, a refused input changes nothing: a command that breaks a rule
gets a ``Send`` of an ``Error`` and leaves the state, version and streams
exactly as they were (the engine refuses before it mutates, see
``server.game.errors``).

The state (``TableState``) is mutated in place rather than copied: a table
changes a few fields per move and copying its game per move would cost more
than the rest of the move (docs/LOAD.md). ``handle`` is the only entry point.

The rules that differ from one kind of table to another (a daily game's,
say) are not here: the core asks the table's mode (``TableMode``,
``server.table.mode``) at each of those points, and has no branch of its own
for any mode. The other rules it consults live apart too (``seats``,
``pace``, ``fanout``, the engine); this module is the one dispatch over
every message a table takes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.errors import ErrorCode
from protocol.messages import (
    Bid,
    Call,
    Chat,
    Chelem,
    Ecart,
    Error,
    GetHistory,
    Hint,
    Leave,
    Left,
    Play,
    PlayAgain,
    Poignee,
    Ready,
    Seated,
    SnapshotRequest,
    StartGame,
    bye,
)
from protocol.views import TableSummary, TableView
from server.base.config import Settings
from server.bots import RandomBot
from server.game import Game, RuleError
from server.game.commands import apply_command
from server.table import pace
from server.table.chat import say
from server.table.effects import (
    Answer,
    Close,
    Effect,
    Listing,
    Log,
    Record,
    Refused,
    Route,
    Save,
    Send,
    SendHistory,
    Think,
)
from server.table.ending import GameOver
from server.table.fanout import Fanout
from server.table.gather import gathered, gathering, may_start, rehost
from server.table.hints import hint
from server.table.inbox import Act, BotMove, Gone, Hurry, Join, Message, Peer, Reclaim, Sweep, Wake
from server.table.mode import TableMode
from server.table.modes import policy_of
from server.table.refusals import NO_CALL, REFUSALS
from server.table.seats import (
    deserted,
    free_seat,
    new_game,
    seat_error,
    seat_of_token,
    summary,
    to_bots,
    vacate,
)
from server.table.state import StateWriter, TableState, digest
from server.table.stream import Stream
from server.table.timers import bot_seed, schedule

_MOVES = frozenset((Bid, Call, Ecart, Chelem, Poignee, Play))  # GameCommand's classes


class TableCore:
    """One table's state and the rules of the table (seats, turns, timers, chat).

    Use: ``effects = core.handle(message, now)`` for each inbox message, and
    ``core.start(now)`` once when a table is created or restored (it arms the
    timer the state calls for). Carry out the effects in order.
    """

    def __init__(self, state: TableState, settings: Settings) -> None:
        self.state = state
        self.settings = settings
        self.mode: TableMode = policy_of(state)
        """The rules of the table's kind (fixed for a table): see ``server.table.mode``."""
        self.game: Game | None = Game.restore(state.game) if state.game else None
        self.fan = Fanout(state.players, self.mode.every_deal_counts)
        self.seat_of: dict[Peer, int | None] = {}
        """The connections at this table and their seat (``None``: watching)."""
        self.chat_next: dict[int, float] = {}
        """When each seat may chat again (the chat rate limit)."""
        self.listed: TableSummary | None = None
        """What the lobby was last told of this table (see ``_commit``)."""
        self.closed = False
        """The table closed for good (idle): the actor stops after this message."""
        self.game_ended = False
        """The game just ended: ``_commit`` tells its mode (``GameOver``)."""
        self.asked: tuple[int, int] | None = None
        """The (seat, version) whose decision a ``Think`` last asked for."""
        self.held: BotMove | None = None
        """A bot's decision that came before its timer: it waits for the ``Wake``."""
        self.due: tuple[int, int] | None = None
        """The (seat, version) whose timer fired: its decision applies on arrival."""
        self.writer = StateWriter()
        """The state's encoder for the save after each move (``StateWriter``)."""

    @property
    def id(self) -> str:
        return self.state.table_id

    def start(self, now: float) -> list[Effect]:
        """The table is served (new, or restored: timers re-arm from the deadlines)."""
        out: list[Effect] = []
        self._schedule(now, out)
        self._list(out, force=True)
        return out

    def handle(self, msg: Message, now: float) -> list[Effect]:
        """Decide what ``msg`` does to the table at time ``now``."""
        out: list[Effect] = []
        match msg:
            case Act(peer=peer, command=command):
                self._act(peer, command, now, out)
            case Wake():
                self._wake(msg, now, out)
            case BotMove():
                self._bot_move(msg, now, out)
            case Join():
                self._join(msg, now, out)
            case Reclaim():
                self._reclaim(msg, now, out)
            case Gone(peer=peer):
                self._gone(peer, now, out)
            case Sweep():
                self._sweep(now, out)
            case Hurry(reason=reason) if taken := to_bots(self.state):
                for seat in taken:  # their players are sent off
                    stream = self.fan.streams[seat]
                    if stream is not None and stream.peer is not None:
                        self.seat_of.pop(stream.peer, None)
                        out.append(Send((stream.peer,), Left(table_id=self.id, reason=reason)))
                        out.append(Route(stream.peer, here=False, to_lobby=True))
                        stream.peer = None
                self._commit(now, out)
        return out

    # -- the outcome of a change ---------------------------------------------------

    def _commit(self, now: float, out: list[Effect]) -> None:
        """Save the new state (before anyone is told), then tell everyone."""
        st = self.state
        if st.status == "playing" and self.game is not None and self.game.deal_over:
            self._settle_deal(now, out)
        pace.pace(st, now, self.settings.deal_pause)
        st.version += 1
        st.game = self.game.state() if self.game else None
        out.append(Save(st.version, self.writer.encode(st), st.status != "closed"))  # (open_)
        self._schedule(now, out)
        quick = self.fan.quick
        self.fan.broadcast(st, self.game, out)
        if self.fan.quick == quick:
            # (A card the fan-out patched from the move left the table's
            # status, seats and spectators, all the lobby lists, as they were.)
            self._list(out)
        if self.game_ended and self.game is not None:
            # After the final view, as every event after a save.
            self.game_ended = False
            peers = tuple(stream.peer if stream else None for stream in self.fan.streams)
            scores = tuple(tuple(r.scores) for r in self.game.results)
            out.append(GameOver(self.id, self.mode, scores, peers))

    def _list(self, out: list[Effect], force: bool = False) -> None:
        # Most moves change nothing the lobby lists: telling it only when the
        # listing changed spares it a walk over every table per move.
        listed = self.summary()
        if force or listed != self.listed or self.closed:
            self.listed = listed
            st = self.state
            out.append(Listing(listed, st.private, st.code, closed=self.closed))

    def _tell(self, out: list[Effect], now: float) -> None:
        """Something only the views show changed (no save): tell everyone."""
        self._schedule(now, out)
        self.fan.broadcast(self.state, self.game, out)
        self._list(out, force=True)

    def summary(self) -> TableSummary:
        return summary(self.state, len(self.fan.spectators))

    def view_for(self, seat: int | None) -> TableView:
        """Exactly what ``seat`` may see now (``None``: a spectator)."""
        return self.fan.view_for(self.state, self.game, seat)

    def _settle_deal(self, now: float, out: list[Effect]) -> None:
        """A deal is over (played out, or annulled as it was dealt): score it,
        keep its record, and wait for the players before the next one (or end
        the game: there is nothing to wait for, the last result stays above
        the standings)."""
        game = self.game
        assert game is not None
        game.record_deal()
        key = f"{self.state.games_played}/{game.attempt}"  # once, even if replayed
        out.append(Record(msgspec.json.encode(game.deal.record()), key))
        if self.mode.game_over(game):
            self.state.status = "finished"
            pace.dealt(self.state)
            self.game_ended = True
            out.append(Log("game_finished", fields=(("totals", game.totals()),)))
        else:
            pace.deal_ended(self.state, now, self.settings.deal_pause)

    # -- seats -------------------------------------------------------------------

    def _join(self, msg: Join, now: float, out: list[Effect]) -> None:
        peer = msg.peer
        if self.closed or self.state.status == "closed":
            if not msg.quiet:
                out.append(
                    Send(
                        (peer,),
                        Error(code="table_closed", message="this table is closed", rid=msg.rid),
                    )
                )
            out.append(Answer(msg, "table_closed"))
            return
        refusal = self.mode.join_refusal(self.state.status, msg.player, msg.spectator)
        if refusal is not None:
            code, message = refusal
            if not msg.quiet:
                out.append(Send((peer,), Error(code=code, message=message, rid=msg.rid)))
            out.append(Answer(msg, code))
            return
        wanted = msg.seat
        held = None if msg.spectator else self.mode.held_seat(msg.player)
        if held is not None:
            if self.state.seats[held].kind == "human":
                self._take_back(msg, held, now, out)
                return
            wanted = held
        if msg.spectator:
            self.fan.spectators.add(peer)
            self.seat_of[peer] = None
            out.append(Route(peer, here=True))
            out.append(Send((peer,), Seated(table_id=self.id, seat=None, rid=msg.rid)))
            self.fan.snapshot(peer, None, self.state, self.game, out)
            out.append(Answer(msg, None))
            self.fan.broadcast(self.state, self.game, out)
            self._list(out, force=True)
            return
        seat = free_seat(self.state, wanted)
        if isinstance(seat, str):
            if not msg.quiet:
                out.append(
                    Send(
                        (peer,), Error(code=seat, message=seat_error(self.state, seat), rid=msg.rid)
                    )
                )
            out.append(Answer(msg, seat))
            return
        token = f"{self.id}.{msg.token}"
        st = self.state.seats[seat]
        st.kind, st.name, st.token_digest = "human", peer.name, digest(token)
        if seat in self.state.ready:
            # A newcomer (in a seat a bot took over) has not read the result yet.
            self.state.ready.remove(seat)
        if msg.creator or self.state.creator is None:
            self.state.creator = seat
        self.state.last_human_at = now
        self._bind(peer, seat, out)
        rehost(self.state, self.fan.away_seats(self.state))
        out.append(Send((peer,), Seated(table_id=self.id, seat=seat, token=token, rid=msg.rid)))
        out.append(Answer(msg, None))
        if gathered(self.state):  # a quick-play table full of people starts now
            self._start(now, out)
            return
        self._commit(now, out)

    def _take_back(self, msg: Join, seat: int, now: float, out: list[Effect]) -> None:
        """A player sits again without its token at the seat its table's mode
        holds for it: a new token (the old one stops working), the seat, a snapshot."""
        peer = msg.peer
        token = f"{self.id}.{msg.token}"
        st = self.state.seats[seat]
        st.token_digest, st.name = digest(token), peer.name
        self.state.last_human_at = now
        self._bind(peer, seat, out)
        out.append(Send((peer,), Seated(table_id=self.id, seat=seat, token=token, rid=msg.rid)))
        out.append(Answer(msg, None))
        self.fan.snapshot(peer, seat, self.state, self.game, out)
        self._commit(now, out)

    def _bind(self, peer: Peer, seat: int, out: list[Effect]) -> None:
        stream = self.fan.streams[seat]
        if stream is None:
            stream = self.fan.streams[seat] = Stream()
        old = stream.peer
        if old is not None and old is not peer:
            # One connection per seat: the newest wins.
            out.append(
                Send(
                    (old,),
                    bye("replaced", "your seat was taken back from another connection"),
                )
            )
            self.seat_of.pop(old, None)
            out.append(Route(old, here=False))
            out.append(Close(old, "replaced", "replaced by a newer connection"))
        stream.peer = peer
        self.seat_of[peer] = seat
        out.append(Route(peer, here=True))

    def _reclaim(self, msg: Reclaim, now: float, out: list[Effect]) -> None:
        peer = msg.peer
        seat = seat_of_token(self.state, msg.token)
        if seat is None or self.state.status == "closed":
            out.append(
                Send(
                    (peer,),
                    Error(
                        code="bad_token",
                        message="this token holds no seat here any more",
                        rid=msg.rid,
                    ),
                )
            )
            out.append(Answer(msg, "bad_token"))
            return
        self._bind(peer, seat, out)
        # The token proves the seat; the name is the one the player connects
        # with now (a rename shows in everyone's view).
        self.state.seats[seat].name = peer.name
        self.state.last_human_at = now
        out.append(Send((peer,), Seated(table_id=self.id, seat=seat, token=msg.token, rid=msg.rid)))
        out.append(Answer(msg, None))
        patches = self.fan.catch_up(peer, seat, msg.last_seq, self.state, self.game, out)
        out.append(
            Log(
                "seat_resumed",
                fields=(("seat", seat), ("patches", patches), ("conn", peer.id)),
            )
        )
        self._tell(out, now)

    def _gone(self, peer: Peer, now: float, out: list[Effect]) -> None:
        if peer in self.fan.spectators:
            self.fan.spectators.discard(peer)
            self.seat_of.pop(peer, None)
            self.fan.broadcast(self.state, self.game, out)
            self._list(out, force=True)
            return
        seat = self.seat_of.get(peer)
        if seat is None:
            return
        stream = self.fan.streams[seat]
        if stream is not None and stream.peer is peer:
            stream.peer = None
            del self.seat_of[peer]
            rehost(self.state, self.fan.away_seats(self.state))
            out.append(Log("seat_away", fields=(("seat", seat),)))
            self._tell(out, now)

    def _leave(self, peer: Peer, seat: int | None, now: float, out: list[Effect]) -> None:
        self.seat_of.pop(peer, None)
        if seat is None:
            self.fan.spectators.discard(peer)
            out.append(Send((peer,), Left(table_id=self.id, reason="you stopped watching")))
            out.append(Route(peer, here=False, to_lobby=True))
            self.fan.broadcast(self.state, self.game, out)
            self._list(out, force=True)
            return
        kept = self.mode.kept_seat(self.state.status, seat)
        if kept is not None:
            # The seat is kept as if the connection dropped.
            stream = self.fan.streams[seat]
            if stream is not None and stream.peer is peer:
                stream.peer = None
            out.append(Send((peer,), Left(table_id=self.id, reason=kept)))
            out.append(Route(peer, here=False, to_lobby=True))
            self._tell(out, now)
            return
        vacate(self.state, seat)
        self.fan.streams[seat] = None
        out.append(Send((peer,), Left(table_id=self.id, reason="you left the table")))
        out.append(Route(peer, here=False, to_lobby=True))
        if deserted(self.state):
            # Nobody is left to start it, play it again or play on with the
            # bots: it goes from the lobby now rather than after ``idle_close``.
            # An away player's seat is still held: a drop never closes a table.
            self._close("table_deserted", now, out)
            return
        self._commit(now, out)

    # -- commands ----------------------------------------------------------------

    def _start(self, now: float, out: list[Effect]) -> None:
        st = self.state
        self.game = new_game(st, self.mode.deal_seed(st.seed, st.games_played))
        self._commit(now, out)

    def _refuse(
        self, peer: Peer, rid: int, out: list[Effect], code: ErrorCode, message: str = ""
    ) -> None:
        message = message or REFUSALS[code]
        out.append(Send((peer,), Error(code=code, message=message, rid=rid)))

    def _act(self, peer: Peer, cmd: Any, now: float, out: list[Effect]) -> None:
        rid: int = getattr(cmd, "rid", 0)
        if peer not in self.seat_of:
            self._refuse(peer, rid, out, "not_at_table")
            return
        seat = self.seat_of[peer]
        st = self.state
        if seat is not None and type(cmd) in _MOVES:
            # Most of what a table hears: before the class patterns below (on a
            # Struct each costs an isinstance through its metaclass, ~0.3 µs).
            if st.status != "playing" or self.game is None:
                self._refuse(peer, rid, out, "wrong_phase")
                return
            if type(cmd) is Call and st.variant.camps != "called_partner":
                self._refuse(peer, rid, out, "wrong_phase", NO_CALL.format(st.variant.players))
                return
            try:
                apply_command(self.game.deal, seat, cmd)
            except RuleError as e:
                out.append(Refused("rule"))
                self._refuse(peer, rid, out, e.code, e.message)
                return
            self._commit(now, out)
            return
        match cmd:
            case SnapshotRequest():
                self.fan.snapshot(peer, seat, self.state, self.game, out)
                return
            case Leave():
                self._leave(peer, seat, now, out)
                return
            case GetHistory():
                out.append(SendHistory(peer, rid))
                return
        if seat is None:
            self._refuse(peer, rid, out, "spectator")
            return
        match cmd:
            case StartGame():
                if st.status != "waiting":
                    self._refuse(peer, rid, out, "already_started")
                elif not may_start(st, seat):
                    self._refuse(peer, rid, out, "not_creator")
                else:
                    self._start(now, out)
            case PlayAgain():
                again = self.mode.again_refusal()
                if again is not None:
                    self._refuse(peer, rid, out, *again)
                elif st.status != "finished":
                    self._refuse(peer, rid, out, "not_finished")
                else:
                    st.games_played += 1
                    self.game = new_game(st, self.mode.deal_seed(st.seed, st.games_played))
                    self._commit(now, out)
            case Ready():
                if st.status != "between_deals":
                    self._refuse(peer, rid, out, "not_between_deals")
                elif seat not in st.ready:
                    st.ready.append(seat)
                    st.ready.sort()
                    self._commit(now, out)
            case Chat():
                rate = self.settings.chat_rate
                if refused := say(st, self.chat_next, seat, peer.name, cmd.text, now, rate):
                    self._refuse(peer, rid, out, refused)
                else:
                    self._commit(now, out)
            case Hint():
                out.extend(hint(self.mode, st, self.game, peer, seat, rid, self.view_for(seat)))
            case _:  # (the game's own commands were carried out above)
                self._refuse(
                    peer, rid, out, "unexpected", f"{type(cmd).__name__} is not for a table"
                )

    # -- timers and bots ---------------------------------------------------------

    def _schedule(self, now: float, out: list[Effect]) -> None:
        """Arm the one timer the table needs now, from the state (``timers``).

        A bot's turn is asked for at once, when its timer is armed: the bot
        decides during its ``bot_think`` and its move is held until the timer
        fires (``_bot_move``), so when a move goes out tells nobody how long
        the bot took over it, nor so anything of its hand (the hidden partner).
        """
        armed = schedule(self.state, self.game, self.settings, self.fan.is_away, now)
        out.append(armed)
        seat = armed.wake.seat if armed.wake is not None else None
        if seat is not None and self.state.seats[seat].kind == "bot":
            self._ask(seat, out)

    def _ask(self, seat: int, out: list[Effect]) -> None:
        """Ask for ``seat``'s decision at this version, once (a re-armed timer
        at the same version, a resume say, asks nothing again)."""
        st, game = self.state, self.game
        if self.asked == (seat, st.version) or game is None:
            return
        self.asked = (seat, st.version)
        out.append(
            Think(seat, st.version, self.view_for(seat), st.bot_level, bot_seed(st, game, seat))
        )

    def _wake(self, wake: Wake, now: float, out: list[Effect]) -> None:
        st = self.state
        if wake.version != st.version:
            return  # the table moved on since this timer was armed
        if wake.kind == "gather" and gathering(st):
            self._start(now, out)  # the wait for people is over: bots fill the free seats
        elif wake.kind == "deal" and self.game is not None and st.status == "between_deals":
            self.game.next_deal()
            pace.dealt(st)
            st.status = "playing"
            self._commit(now, out)
        elif wake.kind == "auto" and wake.seat is not None and st.status == "playing":
            seat, game = wake.seat, self.game
            if game is None or game.deal.turn != seat:
                return
            self.due = (seat, st.version)
            held, self.held = self.held, None
            if held is not None and (held.seat, held.version) == self.due:
                self._bot_move(held, now, out)
            else:
                # Not decided yet (or a human's turn ran out: asked only now).
                self._ask(seat, out)

    def _bot_move(self, move: BotMove, now: float, out: list[Effect]) -> None:
        st = self.state
        game = self.game
        if move.version != st.version or game is None or game.deal.turn != move.seat:
            return  # asked for a decision the table no longer waits for
        if self.due != (move.seat, move.version):
            self.held = move  # decided within its think time: goes out when it ends
            return
        try:
            apply_command(game.deal, move.seat, move.command)
        except RuleError as e:
            # A bot bug must not stall the game: fall back to a random legal move.
            out.append(Log("bot_error", "error", (("seat", move.seat), ("code", e.code))))
            apply_command(game.deal, move.seat, RandomBot(move.seat).decide(move.view))
        self._commit(now, out)

    def _sweep(self, now: float, out: list[Effect]) -> None:
        """Remember when a human was last here; close the table if none came for long."""
        st = self.state
        if self.fan.humans_connected():
            st.last_human_at = now
            return
        if st.status == "closed" or now - st.last_human_at < self.settings.idle_close:
            return
        if not self.mode.may_close(st.status, now):
            return  # the mode keeps it (a daily attempt waits for its day to close)
        self._close("table_idle_closed", now, out)

    def _close(self, event: str, now: float, out: list[Effect]) -> None:
        """Close the table for good: spectators are sent to the lobby, the
        listing goes, the state is saved closed (no longer open)."""
        out.append(Log(event))
        self.state.status = "closed"
        for peer in list(self.fan.spectators):
            out.append(Send((peer,), Left(table_id=self.id, reason="the table closed")))
            out.append(Route(peer, here=False, to_lobby=True))
            self.seat_of.pop(peer, None)
        self.fan.spectators.clear()
        self.closed = True
        self._commit(now, out)

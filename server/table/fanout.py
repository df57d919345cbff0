"""View fan-out: what each recipient of a table sees, and the patches it gets.

Every recipient (a seat, or all spectators together) has a ``Stream``: a
sequence number, the last view it was sent and its recent patches (kept
msgpack-encoded for resumes). After each change the table's public parts are
built once, each seat's own parts (hand, écart, legal moves) are added, and
the new view is diffed against the stream's last one. The public half of that
diff is the same for every stream built from the same public parts: it is
diffed and encoded once per broadcast. A card played that does not end the
deal (most moves) is not built nor diffed: its patches are written straight
from the move (``Fanout._played``); another move of a deal (a bid, the
écart...) has the deal's view alone rebuilt (``deal_moves``). Pure: it
returns ``Send`` effects.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec
from msgspec.structs import astuple, replace

from protocol.cards import CODES
from protocol.diff import Op, Patch, diff
from protocol.messages import TablePatch, TableSnapshot
from protocol.msgpack_arrays import joined_arrays
from protocol.positional import MadePatch
from protocol.views import DealView, SeatView, TableView, TrickView
from server.game import Game
from server.table import deal_moves, pace
from server.table.effects import Effect, Send
from server.table.inbox import Peer
from server.table.last import TRICK_WON, Last, deal_key
from server.table.own_ops import (
    HAND_REMOVES,
    TRICK_OPS,
    TURN_OPS,
    hand_ops,
    legal_ops,
    seat_cards_op,
    trick_won_ops,
)
from server.table.seat_view import (
    NOTHING_LEGAL,
    Reuse,
    deal_view,
    ecart_view,
    legal_view,
    public_partner,
    taker_bouts_after,
    tricks_won,
)
from server.table.state import TableState
from server.table.stream import Stream, version

OWN_FIELDS = ("you", "invite_code", "hand", "ecart", "legal")
"""The fields of a ``TableView`` that differ between recipients (``Fanout.view_for``)."""
PUBLIC_FIELDS = tuple(f for f in TableView.__struct_fields__ if f not in OWN_FIELDS)

encode_patch = msgspec.msgpack.Encoder().encode

_AT: Final = {name: i for i, name in enumerate(TableState.__struct_fields__)}
# Where ``astuple`` has each field of a table's state (Final: constants, compiled).
_TABLE_ID: Final = _AT["table_id"]
_NAME: Final = _AT["name"]
_STATUS: Final = _AT["status"]
_PRIVATE: Final = _AT["private"]
_CREATOR: Final = _AT["creator"]
_BOT_LEVEL: Final = _AT["bot_level"]
_TURN_TIMER: Final = _AT["turn_timer"]
_DEALS: Final = _AT["deals"]
_NEXT_DEAL_AT: Final = _AT["next_deal_at"]
_GATHER_UNTIL: Final = _AT["gather_until"]
_RESULT_WAIT: Final = _AT["result_wait"]
_CHAT: Final = _AT["chat"]
decode_patch = msgspec.msgpack.Decoder(Patch).decode


class Fanout:
    """The streams of one table: one per seated human, one for all spectators."""

    __slots__ = (
        "_last",
        "_seats",
        "every_deal_counts",
        "quick",
        "quick_other",
        "reuse",
        "spectator_stream",
        "spectators",
        "streams",
    )

    def __init__(self, players: int, every_deal_counts: bool = False) -> None:
        self.every_deal_counts = every_deal_counts
        """How the table's mode numbers deals (``TableMode.every_deal_counts``)."""
        self.streams: list[Stream | None] = [None] * players
        self.spectators: set[Peer] = set()
        self.spectator_stream = Stream()
        self.reuse = Reuse()
        self._seats: tuple[tuple[Any, ...], list[SeatView]] = ((), [])
        """The last seats' views and what they were built from."""
        self._last: Last | None = None
        self.quick = 0
        """Broadcasts made from the move (``_played``, ``deal_moves``), not by the full build."""
        self.quick_other = 0
        """Of ``quick``, the moves of a deal that are not a card (``deal_moves``)."""

    def away_seats(self, st: TableState) -> set[int]:
        """Human seats with no connection (a bot plays their turns after ``grace``)."""
        return {i for i in range(len(st.seats)) if self.is_away(st, i)}

    def is_away(self, st: TableState, seat: int) -> bool:
        """``seat`` is a human's with no connection (one of ``away_seats``)."""
        stream = self.streams[seat]
        return st.seats[seat].kind == "human" and (stream is None or stream.peer is None)

    def humans_connected(self) -> int:
        return sum(1 for st in self.streams if st is not None and st.peer is not None)

    # -- building views -------------------------------------------------------------

    def seat_views(self, st: TableState, game: Game | None) -> list[SeatView]:
        hands = game.deal.hands if game is not None else None
        level = st.bot_level
        seats_key = []
        for i, (s, stream) in enumerate(zip(st.seats, self.streams, strict=True)):
            kind = s.kind
            on = stream is not None and stream.peer is not None
            seats_key.append(
                (
                    kind,
                    s.name,
                    on or kind == "bot",  # connected
                    not on and kind == "human",  # away
                    level if kind == "bot" else None,
                    hands[i].bit_count() if hands is not None else 0,
                )
            )
        key = tuple(seats_key)
        old_key, old_seats = self._seats
        if key == old_key:
            # Most moves change one seat's count of cards, some nothing:
            # the same list when nothing changed (the diff skips it on "is").
            return old_seats
        # The seats that did not change keep their very views (the same).
        same = len(old_key) == len(key)
        seats = [
            old_seats[i]
            if same and old_key[i] == k
            else SeatView(
                seat=i, kind=k[0], name=k[1], connected=k[2], away=k[3], bot_level=k[4], cards=k[5]
            )
            for i, k in enumerate(key)
        ]
        self._seats = (key, seats)
        return seats

    def table_parts(self, st: TableState) -> dict[str, Any]:
        """The public fields read off the table's state alone (``TABLE_FIELDS``)."""
        return {
            "table_id": st.table_id,
            "name": st.name,
            "status": st.status,
            "private": st.private,
            "creator": st.creator,
            "bot_level": st.bot_level,
            "turn_timer": st.turn_timer,
            "deals": st.deals,
            "deadline": st.deadline,
            "next_deal_at": st.next_deal_at,
            "gather_until": st.gather_until if st.status == "waiting" else None,
            "ready": pace.ready_seats(st),
            "result_wait": st.result_wait,
            "spectators": len(self.spectators),
            "chat": list(st.chat),
        }

    def _table_key(self, st: TableState) -> tuple[Any, ...]:
        """``TABLE_FIELDS`` but the deadline, as ``table_parts`` reads them,
        cheaper: to tell that none changed (the chat by its length and last
        line: it only ever grows at the end, trimmed at the start)."""
        # Every field at once, in C (compiled code read each with a getattr
        # of ~160 instructions: ~2,400 a move).
        at = astuple(st)
        status = at[_STATUS]
        chat = at[_CHAT]
        return (
            at[_TABLE_ID],
            at[_NAME],
            status,
            at[_PRIVATE],
            at[_CREATOR],
            at[_BOT_LEVEL],
            at[_TURN_TIMER],
            at[_DEALS],
            at[_NEXT_DEAL_AT],
            at[_GATHER_UNTIL] if status == "waiting" else None,
            pace.ready_seats(st),
            at[_RESULT_WAIT],
            len(self.spectators),
            len(chat),
            chat[-1] if chat else None,
        )

    def public_parts(self, st: TableState, game: Game | None) -> dict[str, Any]:
        parts = self.table_parts(st)
        parts["seats"] = self.seat_views(st, game)
        if game is not None:
            every_deal_counts = self.every_deal_counts
            parts["scores"] = game.totals()
            parts["sheet"] = self.reuse.sheet(game, every_deal_counts)
            parts["deal"] = deal_view(game, self.reuse, every_deal_counts)
            if game.finished or st.status == "finished":
                # The table's end too: a mode may end the game before the
                # engine does (a daily game, after its deals dealt).
                parts["ranking"] = game.ranking()
        else:
            parts["scores"] = st.variant.no_scores()  # before the first deal: one per seat
        return parts

    def _played(self, st: TableState, game: Game | None, out: list[Effect]) -> bool:
        """A card played that does not end the deal (the commonest move by
        far), sent straight from the move: the public ops written from it
        (made once and shared: ``own_ops``) onto the last broadcast's parts,
        the own ops of the two seats whose own fields it changes (the seat
        that played: its hand and legal moves; the next: its legal moves).
        False, having done nothing, for any other change (the full build
        then). What it leaves out (bids, the score sheet...) such a card does
        not change: ``deal_key``, the table's key, the seats' states, links
        and the other hands say it did not. tests/test_fanout.py checks it
        against the full build over whole games."""
        last = self._last
        if last is None or game is None:
            return False
        deal = game.deal
        played = last.turn
        if deal is not last.deal or played is None or deal.phase != "play":
            return False
        count = len(deal.trick)
        players = deal.variant.players
        if count == last.trick + 1:
            ended = False  # inside a trick
            if len(deal.tricks) != last.tricks or deal.leader != last.leader:
                return False
        elif count == 0 and last.trick == players - 1:
            ended = True  # the trick's last card: the trick is won
            if len(deal.tricks) != last.tricks + 1 or deal.leaders[-1] != last.leader:
                return False
        else:
            return False
        if (last.leader + last.trick) % players != played or deal_key(deal) != last.deal_key:
            return False
        table_key = self._table_key(st)
        hands = deal.hands
        others = last.hands
        if (
            table_key != last.table_key or st.seats != last.seat_states
            or [x and x.peer for x in self.streams] != last.links
            or hands[:played] != others[:played] or hands[played + 1 :] != others[played + 1 :]
        ):  # fmt: skip
            return False
        old = last.parts
        deadline = st.deadline
        # The seats: only the count of the seat that played.
        seats_key, seats = last.seats_key, old["seats"]
        cards = hands[played].bit_count()
        was = seats_key[played]
        public: Patch = []
        if was[5] != cards:
            k = (*was[:5], cards)
            seats_key = (*seats_key[:played], k, *seats_key[played + 1 :])
            seats = list(seats)
            seats[played] = SeatView(
                seat=played, kind=k[0], name=k[1], connected=k[2], away=k[3], bot_level=k[4],
                cards=cards,
            )  # fmt: skip
            self._seats = (seats_key, seats)
            public.append(seat_cards_op(played, cards))
        old_deal: DealView = old["deal"]
        assert old_deal.trick is not None  # in play
        turn = deal.turn
        if ended:
            number = deal.tricks[-1][-1]
            partner = public_partner(deal)
            new_deal = replace(
                old_deal,
                turn=turn,
                tricks=self.reuse.tricks(deal),
                trick=TrickView(leader=deal.leader, cards=[]),
                tricks_won=tricks_won(deal, partner),
                # (The partner as the last view's: deal_key says so.)
                taker_bouts=taker_bouts_after(old_deal.taker_bouts, deal, partner),
            )
            # Rarer (one card a trick), more fields: their ops written from
            # the two deal views (or their diff), in the order diff() gives.
            won = trick_won_ops(old_deal, new_deal)
            if won is None:
                won = diff(old_deal, new_deal, only=TRICK_WON, at=("deal",))
            public += won
        else:
            number = deal.trick[-1]
            new_deal = replace(
                old_deal,
                turn=turn,
                trick=TrickView(leader=deal.leader, cards=[*old_deal.trick.cards, CODES[number]]),
            )
            # In the order diff() gives them: seats before deal before deadline.
            if turn != old_deal.turn:
                public.append(TURN_OPS[turn] if turn is not None else Op(("deal", "turn"), "set"))
            public.append(TRICK_OPS[number])
        if deadline != old["deadline"]:
            public.append(Op(("deadline",), "set", deadline))
        parts = dict(old)
        parts["seats"], parts["deadline"], parts["deal"] = seats, deadline, new_deal
        base = replace(last.base, seats=seats, deal=new_deal, deadline=deadline)
        ops = MadePatch(public)
        ops.base, ops.bodies = None, [None, None]
        kept = encode_patch(ops)
        # Every stream whose last view came from the last broadcast's parts
        # gets these ops (others diff their own last view).
        public_ops: dict[int, tuple[Patch, bytes]] = {id(old): (ops, kept)}
        code = CODES[number]
        for seat, stream in enumerate(self.streams):
            if stream is None:
                continue
            peer = stream.peer
            to = (peer,) if peer is not None else ()
            own = stream.own
            moved = seat in (played, turn)
            if stream.parts is not old or own is None or (moved and "legal" not in own):
                own = self.own_parts(st, game, seat)
                self._send_view(stream, parts, own, base, public_ops, to, out)
                continue
            patch, encoded = ops, kept
            if moved:
                # Its hand and legal moves: their ops from those two alone.
                removes = stream.reads_removes
                mine = dict(own)
                own_ops: Patch | None = []
                if seat == played:
                    hand = own["hand"]
                    i = hand.index(code) if code in hand else -1
                    if i >= 0:
                        mine["hand"] = after = self.reuse.hand_less(deal, seat, hand, i)
                        if not removes:
                            own_ops = [Op(("hand",), "set", after[:])]
                        elif i < len(HAND_REMOVES):
                            own_ops = [HAND_REMOVES[i]]
                        else:
                            own_ops = [Op(("hand",), "remove", i)]
                    else:
                        mine["hand"] = self.reuse.hand_after(deal, seat, hand, code)
                        own_ops = hand_ops(hand, mine["hand"], removes)
                legal = mine["legal"] = legal_view(deal, seat) if seat == turn else NOTHING_LEGAL
                if own_ops is None:  # (its stream as the last broadcast left it)
                    self._send_view(stream, parts, mine, base, public_ops, to, out)
                    continue
                more = legal_ops(own["legal"], legal, removes)
                if more is None:
                    more = diff(own["legal"], legal, removes=removes, at=("legal",))
                own_ops += more
                stream.own = mine
                if mine != own:
                    # Kept encoded from the public ops' encoding and theirs.
                    stream.removes |= removes
                    patch = MadePatch(public + own_ops)
                    patch.base, patch.bodies = ops, [None, None]
                    encoded = joined_arrays(kept, len(ops), encode_patch(own_ops), len(own_ops))
            # (Stream.made and the view's setter, inline, as _send_view does.)
            stream._view, stream.base, stream.parts = None, base, parts
            if patch:
                stream.kept(encoded)
                if to:
                    out.append(Send(to, TablePatch(seq=stream.seq, patch=patch)))
        if self.spectators:
            stream = self.spectator_stream
            own = stream.own if stream.parts is old and stream.own is not None else None
            if own is None:
                own = self.own_parts(st, game, None)
            self._send_view(stream, parts, own, base, public_ops, tuple(self.spectators), out)
        # What this broadcast was built from: the last one's, but for these
        # (its table, deal key, seats' states and links the same: checked).
        last.parts, last.base, last.seats_key, last.hands = parts, base, seats_key, list(hands)
        last.trick, last.tricks, last.leader, last.turn = (
            len(deal.trick), len(deal.tricks), deal.leader, turn,
        )  # fmt: skip
        self.quick += 1
        return True

    def own_parts(self, st: TableState, game: Game | None, seat: int | None) -> dict[str, Any]:
        """The fields of ``seat``'s view that are its own (``OWN_FIELDS``)."""
        own: dict[str, Any] = {"you": seat}
        if seat is not None:
            own["invite_code"] = st.code
        if game is not None and seat is not None:
            deal = game.deal
            own["hand"] = self.reuse.hand(deal, seat)
            own["ecart"] = ecart_view(deal, seat)
            if st.status == "playing":
                own["legal"] = legal_view(deal, seat)
        return own

    def view_for(self, st: TableState, game: Game | None, seat: int | None) -> TableView:
        """Exactly what ``seat`` may see (``None``: a spectator)."""
        return TableView(**self.public_parts(st, game), **self.own_parts(st, game, seat))

    # -- sending ----------------------------------------------------------------------

    def broadcast(self, st: TableState, game: Game | None, out: list[Effect]) -> None:
        """Bring every stream up to date with the table (a patch each, if it changed)."""
        if self._played(st, game, out):
            return
        if deal_moves.sent(self, st, game, out):  # a bid, the écart... (not a card)
            self.quick += 1
            self.quick_other += 1
            return
        public_ops: dict[int, tuple[Patch, bytes]] = {}
        parts = self.public_parts(st, game)
        seats_key = self._seats[0]  # (of parts["seats"]: seat_views just made or kept it)
        table_key = self._table_key(st)
        # The public fields once; each recipient's view is that with its own
        # fields replaced (a C copy, ten times cheaper than building it anew).
        base = TableView(**parts)
        for seat, stream in enumerate(self.streams):
            if stream is None:
                continue
            to = (stream.peer,) if stream.peer is not None else ()
            self._send_view(
                stream, parts, self.own_parts(st, game, seat), base, public_ops, to, out
            )
        if self.spectators:
            own = self.own_parts(st, game, None)
            stream = self.spectator_stream
            self._send_view(stream, parts, own, base, public_ops, tuple(self.spectators), out)
        deal = game.deal if game is not None else None
        seat_states = list(map(replace, st.seats))  # copies (a C loop)
        links = [x and x.peer for x in self.streams]
        hands = list(deal.hands) if deal is not None else []
        self._last = Last(
            parts, base, deal, table_key, None, (seats_key, seat_states, links, hands)
        )

    def _send_view(
        self,
        stream: Stream,
        parts: dict[str, Any],
        own: dict[str, Any],
        base: TableView,
        public_ops: dict[int, tuple[Patch, bytes]],
        to: tuple[Peer, ...],
        out: list[Effect],
        own_ops: Patch | None = None,
    ) -> None:
        """The recipient's new view is ``base`` (the public view) with ``own``'s
        fields. ``own_ops``: the ops of the recipient's own fields, when the
        caller knows them (else they are diffed)."""
        if stream._view is None and stream.base is None:  # (Stream.empty, inline)
            snapshot = replace(base, **own)
            stream.snapshot_sent(snapshot, parts, own)
            if to:
                out.append(Send(to, TableSnapshot(seq=stream.seq, view=snapshot)))
            return
        encoded: bytes | None = None
        view: TableView | None = None
        # The last view (made now if it was not: only a diff reads it).
        if stream.parts is None:
            view = replace(base, **own)
            patch = diff(stream.last(), view)
        else:
            # Every stream whose last view came from the same public parts
            # gets the same public ops: diff those once per broadcast.
            key = id(stream.parts)  # kept alive by stream.parts meanwhile
            shared = public_ops.get(key)
            if shared is None:
                public = diff(stream.last(), base, only=PUBLIC_FIELDS)  # base's are the view's
                shared = public_ops[key] = (public, encode_patch(public))
            # Most moves leave a seat's own parts as they were (often the
            # very same objects): one dict compare, then no diff at all.
            public, encoded = shared
            if own == stream.own:
                patch = public
            else:
                # A version 2 seat gets a card played as "remove" rather
                # than its whole new hand (public ops never use it).
                removes = len(to) == 1 and version(to[0]) >= 2
                if own_ops is None:
                    view = replace(base, **own)
                    own_ops = diff(stream.last(), view, only=OWN_FIELDS, removes=removes)
                patch = public + own_ops
                stream.removes |= removes
                # Kept encoded as encode_patch(patch) would, from the public
                # ops' encoding and the own ops' alone.
                encoded = joined_arrays(encoded, len(public), encode_patch(own_ops), len(own_ops))
        # (Stream.made and the view's setter, inline: once per stream and move.)
        stream._view, stream.base = view, None if view is not None else base
        stream.parts, stream.own = parts, own
        if not patch:
            return
        stream.kept(encoded or encode_patch(patch))
        if to:
            out.append(Send(to, TablePatch(seq=stream.seq, patch=patch)))

    def catch_up(
        self,
        peer: Peer,
        seat: int,
        last_seq: int,
        st: TableState,
        game: Game | None,
        out: list[Effect],
    ) -> int:
        """A seat resumed from ``last_seq``: exactly the patches it missed if
        they are all kept, else a snapshot. Returns how many patches were sent."""
        stream = self.streams[seat]
        assert stream is not None  # bound before
        readable = not stream.removes or version(peer) >= 2
        if not stream.empty() and last_seq >= 0 and readable:
            missing = stream.missed(last_seq)
            if missing is not None:
                # Only what the client missed, then carry on with patches.
                for s, p in missing:
                    out.append(Send((peer,), TablePatch(seq=s, patch=decode_patch(p))))
                return len(missing)
        if stream.empty() and last_seq > stream.seq:
            # A table served anew (a restart, a takeover by another process)
            # goes on from the client's sequence number.
            stream.seq = last_seq
        self.snapshot(peer, seat, st, game, out)
        return 0

    def snapshot(
        self,
        peer: Peer,
        seat: int | None,
        st: TableState,
        game: Game | None,
        out: list[Effect],
    ) -> None:
        """A fresh snapshot for one recipient (joins, gaps, resumes)."""
        stream = self.spectator_stream if seat is None else self.streams[seat]
        assert stream is not None
        if not stream.empty() and seat is None:
            # Spectators share one stream: send its current view and seq.
            out.append(Send((peer,), TableSnapshot(seq=stream.seq, view=stream.last())))
            return
        view = self.view_for(st, game, seat)
        stream.snapshot_sent(view)
        out.append(Send((peer,), TableSnapshot(seq=stream.seq, view=view)))

"""A move of a deal that is not a card played (a bid, the call, the écart,
the chelem, a poignée), sent from the move rather than by the full build.

Such a move changes the deal's view, at most one seat's count of cards, the
deadline, and the own fields of a few seats (the seat that moved, the next
one, the seat whose hand changed, the taker's écart); nothing else of the
table. ``sent`` checks that, then starts from the last broadcast's parts
(``server/table/last.py``): the deal's view is made anew and diffed alone
(a bid that does not end the bidding: its two ops written at once), and only
those seats' own fields are read again. Any other change (a deal's end, a
new deal, a chat line, a seat leaving, a spectator) is left to the full
build. ``tests/test_fanout.py`` checks it against the full build over whole
games.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec
from msgspec.structs import replace

from protocol.diff import Op, Patch, diff
from protocol.positional import MadePatch
from protocol.views import DealView, Legal, SeatView, TableView
from server.game import Game
from server.table.effects import Effect
from server.table.inbox import Peer
from server.table.last import Last, deal_key
from server.table.own_ops import TURN_OPS, legal_ops, seat_cards_op
from server.table.seat_view import NOTHING_LEGAL, Reuse, deal_view, legal_view
from server.table.state import TableState
from server.table.stream import Stream

_encode = msgspec.msgpack.Encoder().encode
_BIDS: dict[tuple[int, str], Op] = {}
NO_TURN = Op(("deal", "turn"), "set")
"""``deal.turn`` set to nobody (``TURN_OPS`` has a seat's)."""
BIDS_ENDED = Op(("legal", "bids"), "set", [])
BID_REMOVED = Op(("legal", "bids"), "remove", 0)
"""A turn to bid ended: version 1's op, and version 2's when one bid was left."""


class Fan(Protocol):
    """What of ``Fanout`` a move of a deal is sent through."""

    _last: Last | None
    _seats: tuple[tuple[Any, ...], list[SeatView]]
    streams: list[Stream | None]
    spectators: set[Peer]
    spectator_stream: Stream
    reuse: Reuse
    every_deal_counts: bool

    def _table_key(self, st: TableState) -> tuple[Any, ...]: ...

    def own_parts(self, st: TableState, game: Game | None, seat: int | None) -> dict[str, Any]: ...

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
    ) -> None: ...


def bid_op(seat: int, bid: str) -> Op:
    """A bid added to the deal's, as ``diff`` gives it (made once per seat and bid)."""
    op = _BIDS.get((seat, bid))
    if op is None:
        op = _BIDS[seat, bid] = Op(("deal", "bids"), "append", [{"seat": seat, "bid": bid}])
    return op


def sent(fan: Fan, st: TableState, game: Game | None, out: list[Effect]) -> bool:
    """Every stream brought up to date with a move of the deal that is not a
    card (``Fanout.broadcast``'s patches, byte for byte); False, having done
    nothing, when anything but the deal, one seat's count of cards, the
    deadline and own fields changed (the full build then)."""
    last = fan._last
    if last is None or game is None:
        return False
    deal = game.deal
    old = last.parts
    if (
        deal is not last.deal or game.finished or game.totals() is not old["scores"]
        or fan._table_key(st) != last.table_key or st.seats != last.seat_states
        or [x and x.peer for x in fan.streams] != last.links
    ):  # fmt: skip
        # (The scores are the same list until a deal is recorded: no new
        # line in the sheet either.)
        return False
    hands = deal.hands
    was = last.hands
    changed = [i for i, (h, w) in enumerate(zip(hands, was, strict=True)) if h != w]
    if len(changed) > 1:
        return False  # (not one move's: the diff may set the whole list)
    public: Patch = []
    seats_key, seats = last.seats_key, old["seats"]
    for seat in changed:  # (one at most) the count of the seat whose hand changed
        k = (*seats_key[seat][:5], hands[seat].bit_count())
        if k != seats_key[seat]:
            seats_key = (*seats_key[:seat], k, *seats_key[seat + 1 :])
            seats = list(seats)
            seats[seat] = SeatView(
                seat=seat, kind=k[0], name=k[1], connected=k[2], away=k[3], bot_level=k[4],
                cards=k[5],
            )  # fmt: skip
            fan._seats = (seats_key, seats)
            public.append(seat_cards_op(seat, k[5]))
    old_deal: DealView = old["deal"]
    turn = deal.turn
    key = deal_key(deal)
    # In the order diff() gives them: seats before deal before deadline.
    bid = (
        key == last.deal_key and deal.phase == "bidding" and not changed
        and len(deal.bids) == len(old_deal.bids) + 1
    )  # fmt: skip
    if bid:
        # A bid that does not end the bidding: the turn and the bid.
        bids = fan.reuse.bids(deal)
        new_deal = replace(old_deal, turn=turn, bids=bids)
        if turn != old_deal.turn:
            public.append(TURN_OPS[turn] if turn is not None else NO_TURN)
        public.append(bid_op(bids[-1].seat, bids[-1].bid))
    else:
        new_deal = deal_view(game, fan.reuse, fan.every_deal_counts)
        public += diff(old_deal, new_deal, at=("deal",))
    deadline = st.deadline
    if deadline != old["deadline"]:
        public.append(Op(("deadline",), "set", deadline))
    parts = dict(old)
    parts["seats"], parts["deadline"], parts["deal"] = seats, deadline, new_deal
    base = replace(last.base, seats=seats, deal=new_deal, deadline=deadline)
    ops = MadePatch(public)
    ops.base, ops.bodies = None, [None, None]
    # Every stream whose last view came from the last broadcast's parts gets
    # these ops (others diff their own last view).
    public_ops: dict[int, tuple[Patch, bytes]] = {id(old): (ops, _encode(ops))}
    # The seats whose own fields may have changed: whose turn it was and is
    # (legal moves), whose hand changed, the taker (its écart).
    moved = {last.turn, turn, *changed}
    if deal.taker >= 0:
        moved.add(deal.taker)
    for seat, stream in enumerate(fan.streams):
        if stream is None:
            continue
        peer = stream.peer
        to = (peer,) if peer is not None else ()
        own = stream.own
        if stream.parts is not old or own is None:
            fan._send_view(stream, parts, fan.own_parts(st, game, seat), base, public_ops, to, out)
        elif seat not in moved:
            fan._send_view(stream, parts, own, base, public_ops, to, out)
        else:
            if bid and "legal" in own:  # (a bid changes no hand nor écart)
                mine = dict(own)
                mine["legal"] = legal_view(deal, seat)
            else:
                mine = fan.own_parts(st, game, seat)
            own_ops = _own_ops(own, mine, stream.reads_removes)
            fan._send_view(stream, parts, mine, base, public_ops, to, out, own_ops)
    if fan.spectators:
        stream = fan.spectator_stream
        own = stream.own if stream.parts is old and stream.own is not None else None
        if own is None:
            own = fan.own_parts(st, game, None)
        fan._send_view(stream, parts, own, base, public_ops, tuple(fan.spectators), out)
    # What this broadcast was built from: the last one's, but for these (its
    # table, seats' states and links the same: checked).
    last.parts, last.base, last.seats_key, last.hands = parts, base, seats_key, list(hands)
    last.deal_key, last.turn, last.leader = key, turn, deal.leader
    last.trick, last.tricks = len(deal.trick), len(deal.tricks)
    return True


def _own_ops(old: dict[str, Any], new: dict[str, Any], removes: bool) -> Patch | None:
    """The ops of a seat's own fields when only its legal moves changed, as
    ``diff`` gives them; None (``diff`` the views then) for any other change."""
    if new.get("hand") is not old.get("hand") or new.get("ecart") != old.get("ecart"):
        return None  # (a hand with the chien, an écart made: rare)
    legal, was = new.get("legal"), old.get("legal")
    if legal is was:
        return []
    if legal is None or was is None:
        return None
    if _bids_only(was) and _bids_only(legal):
        # A turn to bid begun or ended (to or from nothing to do), as the
        # diff of the lists gives it.
        if not was.bids:
            return [Op(("legal", "bids"), "append", list(legal.bids))]
        if not legal.bids:
            return [BID_REMOVED if removes and len(was.bids) == 1 else BIDS_ENDED]
    # A turn to play begun (after the chelem), a poignée's sizes gone: as a card's.
    ops = legal_ops(was, legal, removes)
    return ops if ops is not None else diff(was, legal, removes=removes, at=("legal",))


def _bids_only(legal: Legal) -> bool:
    """Nothing to do but (maybe) bid: all but the bids as in ``NOTHING_LEGAL``."""
    return not (
        legal.cards or legal.ecart or legal.calls or legal.chelem or legal.ecart_trumps
        or legal.poignee_sizes or legal.poignee_cards
    ) and legal.ecart_size == NOTHING_LEGAL.ecart_size  # fmt: skip

"""The ops a card played makes, straight from the move rather than by
``protocol.diff``: the public ones (a seat's count of cards, the turn, the
trick) and a seat's own (the hand lost one card, a turn to play began or
ended). Each gives exactly what ``diff`` would, or ``None`` for ``diff`` to
do it. The commonest ops are made once and shared (``Op``s are frozen and
their values never mutated), so that their encodings are found by identity
(``protocol.positional.TableWire``) and no op is built per move."""

from __future__ import annotations

from typing import Any, Final

from msgspec.structs import astuple

from protocol.cards import CODES
from protocol.diff import Op, Patch, document
from protocol.views import DealView, Legal
from server.table.seat_view import NOTHING_LEGAL

TURN_OPS: Final = tuple(Op(("deal", "turn"), "set", seat) for seat in range(8))
"""``deal.turn`` set to a seat, by seat."""
TRICK_OPS: Final = tuple(Op(("deal", "trick", "cards"), "append", [code]) for code in CODES)
"""A card added to the trick, by card number."""
HAND_REMOVES: Final = tuple(Op(("hand",), "remove", i) for i in range(32))
"""A version 2 hand's card at an index removed, by index."""
_SEAT_CARDS: dict[int, Op] = {}
_EMPTIED: Final = {
    name: (Op(("legal", name), "set", []), Op(("legal", name), "remove", 0))
    for name in ("cards", "poignee_sizes", "poignee_cards")
}
"""What a turn to play a card fills, emptied: set to [], or its one item
removed (made once: a tuple key built and looked up was ~800 instructions)."""


def seat_cards_op(seat: int, cards: int) -> Op:
    """``seats[seat].cards`` set to ``cards`` (made once per seat and count)."""
    key = seat * 256 + cards
    op = _SEAT_CARDS.get(key)
    if op is None:
        op = _SEAT_CARDS[key] = Op(("seats", seat, "cards"), "set", cards)
    return op


def _emptied(name: str, removes: bool) -> Op:
    """A field of the legal moves emptied: its one item removed (``removes``) or set to []."""
    return _EMPTIED[name][1 if removes else 0]


def hand_ops(old: list[str], new: list[str], removes: bool) -> Patch | None:
    """The ops of a hand that lost one card, as ``diff`` gives them (None:
    some other change, for ``diff`` itself)."""
    if old is new:
        return []
    if len(new) != len(old) - 1:
        return None
    if not removes:
        return [Op(("hand",), "set", list(new))]
    i = 0
    while i < len(new) and old[i] == new[i]:
        i += 1
    if old[i + 1 :] != new[i:]:
        return None
    return [HAND_REMOVES[i] if i < len(HAND_REMOVES) else Op(("hand",), "remove", i)]


_FIELD: Final = {name: i for i, name in enumerate(Legal.__struct_fields__)}
# (Final: compiled, each a constant rather than a lookup in the module's dict.)
_BIDS: Final = _FIELD["bids"]
_CARDS: Final = _FIELD["cards"]
_ECART: Final = _FIELD["ecart"]
_ECART_SIZE: Final = _FIELD["ecart_size"]
_ECART_TRUMPS: Final = _FIELD["ecart_trumps"]
_CHELEM: Final = _FIELD["chelem"]
_CALLS: Final = _FIELD["calls"]
_TURN_FILLS: Final = tuple(
    (name, _FIELD[name]) for name in ("cards", "poignee_sizes", "poignee_cards")
)
"""What a turn to play a card fills, in field order, and where ``astuple`` has each."""


def legal_ops(old: Legal, new: Legal, removes: bool) -> Patch | None:
    """The ops of a turn to play a card begun or ended (to or from nothing
    to do), as ``diff`` gives them; None: some other change, for ``diff``."""
    if old is new:
        return []
    # Every field at once, in C (compiled code read each with a getattr of
    # ~160 instructions, 15 a call).
    was, now = astuple(old), astuple(new)
    if (
        new is NOTHING_LEGAL and was[_CARDS] and was[_ECART_SIZE] == now[_ECART_SIZE]
        and not (was[_BIDS] or was[_ECART] or was[_CALLS] or was[_CHELEM] or was[_ECART_TRUMPS])
    ):  # fmt: skip
        # A turn to play ended (the commonest change, as the loop below gives it).
        ops: Patch = []
        for name, i in _TURN_FILLS:
            if was[i]:
                ops.append(_emptied(name, removes and len(was[i]) == 1))
        return ops
    if (
        was[_BIDS] or now[_BIDS] or was[_ECART] or now[_ECART] or was[_CALLS] or now[_CALLS]
        or was[_ECART_SIZE] != now[_ECART_SIZE] or was[_ECART_TRUMPS] != now[_ECART_TRUMPS]
        or was[_CHELEM] != now[_CHELEM]
    ):  # fmt: skip
        return None
    ops = []
    for name, i in _TURN_FILLS:
        before, after = was[i], now[i]
        if before == after:
            continue
        if not before:  # an empty list grew: appended
            ops.append(Op(("legal", name), "append", list(after)))
        elif after:
            return None  # one list for another
        else:
            ops.append(_emptied(name, removes and len(before) == 1))
    return ops


_TRICKS: Final = ("deal", "tricks")
_TRICKS_WON: Final = ("deal", "tricks_won")
_TAKER_BOUTS: Final = ("deal", "taker_bouts")
_TRICK_CARDS_EMPTIED: Final = Op(("deal", "trick", "cards"), "set", [])


def trick_won_ops(old: DealView, new: DealView) -> Patch | None:
    """The ops of a card that won a trick, as ``diff(old, new,
    only=TRICK_WON, at=("deal",))`` gives them (field by field, in the
    view's order: the turn, the tricks, the trick, the tricks won, the
    taker's bouts); None: some other change, for ``diff``. The diff, in
    Python, was ~50,000 instructions a trick."""
    ops: Patch = []
    turn = new.turn
    if turn != old.turn:
        ops.append(TURN_OPS[turn] if turn is not None else Op(("deal", "turn"), "set"))
    tricks, was = new.tricks, old.tricks
    n = len(was)
    if tricks is not was:
        if len(tricks) != n + 1 or tricks[:n] != was:
            return None
        # The trick won, as a document (fresh: nothing of the view shared).
        ops.append(Op(_TRICKS, "append", document(tricks[n:])))
    trick, before = new.trick, old.trick
    if trick is not before:
        if trick is None or before is None or trick.cards or before.winner != trick.winner:
            return None
        if trick.leader != before.leader:
            ops.append(Op(("deal", "trick", "leader"), "set", trick.leader))
        if before.cards:
            ops.append(_TRICK_CARDS_EMPTIED)
    scalar_list_ops(old.tricks_won, new.tricks_won, _TRICKS_WON, ops)
    scalar_list_ops(old.taker_bouts, new.taker_bouts, _TAKER_BOUTS, ops)
    return ops


def scalar_list_ops(old: list[Any], new: list[Any], path: tuple[str, str], ops: Patch) -> None:
    """The ops of a list of scalars, as ``protocol.diff.diff_arrays`` gives
    them into a plain list of ops (tests/test_own_ops.py holds them equal),
    written for scalars: its general code (a document made of each value)
    cost ~2,000 instructions a move more (1.1%, callgrind, whole server)."""
    if old is new or old == new:
        return
    n = len(old)
    if len(new) >= n:
        if new[:n] == old:
            ops.append(Op(path, "append", new[n:]))
            return
        changed = [i for i in range(n) if old[i] != new[i]]
        if len(changed) <= max(1, n // 2):
            for i in changed:
                ops.append(Op((*path, i), "set", new[i]))
            if len(new) > n:
                ops.append(Op(path, "append", new[n:]))
            return
    ops.append(Op(path, "set", list(new)))

"""The ops of a seat's own parts that a card played changes, made straight
from the move rather than by ``protocol.diff`` (the hand lost one card, a
turn to play began or ended). Each gives exactly what ``diff`` would, or
``None`` for ``diff`` to do it."""

from __future__ import annotations

from protocol.diff import Op, Patch
from protocol.views import Legal


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
    return [Op(("hand",), "remove", i)] if old[i + 1 :] == new[i:] else None


def legal_ops(old: Legal, new: Legal, removes: bool) -> Patch | None:
    """The ops of a turn to play a card begun or ended (to or from nothing
    to do), as ``diff`` gives them; None: some other change, for ``diff``."""
    if old is new:
        return []
    if (
        old.bids or new.bids or old.ecart or new.ecart or old.calls or new.calls
        or old.ecart_size != new.ecart_size or old.ecart_trumps != new.ecart_trumps
        or old.chelem != new.chelem
    ):  # fmt: skip
        return None
    ops: Patch = []
    for name, was, now in (  # what a turn to play a card fills, in field order
        ("cards", old.cards, new.cards),
        ("poignee_sizes", old.poignee_sizes, new.poignee_sizes),
        ("poignee_cards", old.poignee_cards, new.poignee_cards),
    ):
        if was == now:
            continue
        if not was:  # an empty list grew: appended
            ops.append(Op(("legal", name), "append", list(now)))
        elif now:
            return None  # one list for another
        elif removes and len(was) == 1:
            ops.append(Op(("legal", name), "remove", 0))
        else:
            ops.append(Op(("legal", name), "set", []))
    return ops

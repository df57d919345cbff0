"""The ops written from a move (server/table/own_ops.py) are the ops the
diff gives (protocol/diff.py): here the lists of scalars of a won trick
(the tricks won, the taker's bouts), for any two lists."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.diff import Patch, diff_arrays
from server.table.own_ops import scalar_list_ops

PATH = ("deal", "tricks_won")
scalars = st.lists(st.integers(0, 4), max_size=8) | st.lists(st.sampled_from(["1", "21", "E"]))


@given(scalars, scalars)
def test_a_list_of_scalars_gets_the_diffs_own_ops(old: list[object], new: list[object]) -> None:
    written: Patch = []
    scalar_list_ops(old, new, PATH, written)
    diffed: Patch = []
    if old != new:
        diff_arrays(old, new, PATH, diffed)
    assert written == diffed


def test_a_trick_won_counted_is_one_element_set() -> None:
    ops: Patch = []
    scalar_list_ops([3, 1], [4, 1], PATH, ops)
    assert [(op.path, op.op, op.value) for op in ops] == [((*PATH, 0), "set", 4)]

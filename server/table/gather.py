"""A quick-play table gathers people before it starts, and who may start a
table: pure functions of its state.

A table opened by quick play waits a short while (the server's
``quick_gather``) for more people: a second quick player in that while sits
at the same table. It starts by itself when every seat has a human, or when
the while is over (bots take the free seats), and anyone seated may start it
sooner. Any other table waits for its host (``creator``): the player who
opened it, and when the host leaves or drops, the next human who is there.
"""

from __future__ import annotations

from collections.abc import Collection

from server.table.state import TableState


def gathering(st: TableState) -> bool:
    """A quick-play table waits for people, with someone seated to wait with
    (a deadline armed before its opener sits would start it without them)."""
    return (
        st.status == "waiting"
        and st.gather_until is not None
        and any(s.kind == "human" for s in st.seats)
    )


def gathered(st: TableState) -> bool:
    """A quick-play table every seat of which has a human: it starts now."""
    return gathering(st) and all(s.kind == "human" for s in st.seats)


def may_start(st: TableState, seat: int) -> bool:
    """``seat`` may start the game: the host, or anyone at a quick-play table."""
    return st.creator == seat or st.gather_until is not None


def rehost(st: TableState, away: Collection[int]) -> None:
    """A waiting table's host is someone there to start it: the host while
    connected, else the first human seat whose player is (not ``away``),
    else the host still (it starts the table when back)."""
    if st.status != "waiting" or (st.creator is not None and st.creator not in away):
        return
    for i, s in enumerate(st.seats):
        if s.kind == "human" and i not in away:
            st.creator = i
            return

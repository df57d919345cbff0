"""Between deals: the result waits for the players, as pure functions of the state.

A deal's result stays on screen until every human seated at the table has
pressed Continue (the ``ready`` command), or until the table's
``result_wait`` runs out, counted from the end of the deal. Bots are always
ready; an away human is not, so it holds the table no longer than the wait.
``deal_pause`` is the least pause: a table whose humans are all ready at
once (or that has none) still shows the result that long.

Every time is absolute and in the state (``deal_ended_at``, ``ready``,
``next_deal_at``): a restarted server arms the same timer again.
"""

from __future__ import annotations

from server.table.state import TableState


def ready_seats(st: TableState) -> list[int]:
    """The seats ready for the next deal (between deals only; else none)."""
    if st.status != "between_deals":
        return []
    return [i for i, s in enumerate(st.seats) if s.kind == "bot" or i in st.ready]


def all_ready(st: TableState) -> bool:
    return all(s.kind != "human" or i in st.ready for i, s in enumerate(st.seats))


def deal_ended(st: TableState, now: float, deal_pause: float) -> None:
    """A deal just ended and another follows: nobody has read its result yet."""
    st.status = "between_deals"
    st.deal_ended_at = now
    st.ready = []
    st.next_deal_at = None
    pace(st, now, deal_pause)


def pace(st: TableState, now: float, deal_pause: float) -> None:
    """Set ``next_deal_at`` from who is ready now (call after each change between deals).

    Not everyone ready: the end of the wait. Everyone ready: at once, but
    not before ``deal_pause`` after the deal ended, and never later than a
    time already set (a chat line after all are ready must not push it back).
    """
    if st.status != "between_deals" or st.deal_ended_at is None:
        return
    ended = st.deal_ended_at
    wait_over = ended + max(st.result_wait, deal_pause)
    if all_ready(st):
        soonest = now if st.next_deal_at is None else min(now, st.next_deal_at)
        st.next_deal_at = min(wait_over, max(ended + deal_pause, soonest))
    else:
        st.next_deal_at = wait_over


def dealt(st: TableState) -> None:
    """The next deal is dealt (or a game starts): nothing is waited for."""
    st.next_deal_at = None
    st.deal_ended_at = None
    st.ready = []

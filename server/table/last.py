"""What a table's last broadcast was built from (``Last``), and the keys
that tell whether a card played changed anything else (``deal_key``, the
field lists): for ``Fanout`` to make the next broadcast from the move."""

from __future__ import annotations

from typing import Any

from protocol.views import TableView
from server.game import Deal
from server.table.seat_view import public_partner


class Last:
    """What the last broadcast was built from, for the next one to start from."""

    __slots__ = (
        "base",
        "deal",
        "deal_key",
        "hands",
        "leader",
        "links",
        "parts",
        "seat_states",
        "seats_key",
        "table_key",
        "trick",
        "tricks",
        "turn",
    )

    def __init__(
        self,
        parts: dict[str, Any],
        base: TableView,
        deal: Deal | None,
        table_key: tuple[Any, ...],
        key: tuple[Any, ...] | None,
        seats: tuple[tuple[Any, ...], list[Any], list[Any], list[int]],
    ) -> None:
        self.parts = parts
        self.table_key = table_key
        self.base = base
        """The public view (own fields at their defaults)."""
        self.deal = deal
        # (A card patched from the move left the deal's key as it was: given.)
        self.deal_key = key or (deal_key(deal) if deal is not None else None)
        self.trick = len(deal.trick) if deal is not None else 0
        self.tricks = len(deal.tricks) if deal is not None else 0
        self.leader = deal.leader if deal is not None else None
        self.turn = deal.turn if deal is not None else None
        # What of the seats a card played leaves as it was, but the count of
        # the seat that played: the key ``Fanout.seat_views`` made
        # ``parts["seats"]`` from, copies of the seats' states, each seat's
        # stream's peer, the hands (masks).
        self.seats_key, self.seat_states, self.links, self.hands = seats


def deal_key(deal: Deal) -> tuple[Any, ...]:
    """What of a deal's public view a card played that does not end the deal
    leaves as it was: any change here is no such card (the full build then)."""
    return (
        deal.phase,
        public_partner(deal),
        len(deal.poignees),
        deal.chelem_declared,
        deal.annulled_reason,
    )


TABLE_FIELDS = (
    "table_id",
    "name",
    "status",
    "private",
    "creator",
    "bot_level",
    "turn_timer",
    "deals",
    "deadline",
    "next_deal_at",
    "gather_until",
    "ready",
    "result_wait",
    "spectators",
    "chat",
)
"""The public fields read off the table's state alone (``Fanout.table_parts``)."""
TRICK_WON = ("turn", "tricks", "trick", "tricks_won", "taker_bouts")
"""The fields of the deal's view a card that wins a trick may change
(``Fanout._played``: with the seats' and the deadline, nothing else)."""
GAME_FIELDS = ("seats", "scores", "sheet", "deal", "ranking")
"""The public fields read off the game (with ``TABLE_FIELDS``: ``PUBLIC_FIELDS``)."""

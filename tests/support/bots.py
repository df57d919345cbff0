"""Playing bots against each other without a server: views from a ``Game``, whole deals.

``table_view(game, seat)`` builds the ``TableView`` a seat would receive,
with the server's own filtering functions (``server.table.seat_view``), so a bot
here sees exactly what it would see at a real table, at any table size.
``play_deal`` asks each seat's bot whenever it is that seat's turn and turns the command back
into an engine call (``server.game.commands``, as a table does), until the
deal is over. Tests and ``bench/bots.py`` use them; test scaffolding, so it
lives with the tests and is not shipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol.messages import GameCommand
from protocol.views import SeatView, TableView
from server.bots import Bot
from server.game import Deal, DealResult, Game
from server.game.commands import apply_command
from server.table.seat_view import deal_view, ecart_view, hand_view, legal_view

MAX_DECISIONS = 200
"""More asks than a deal can need at any size (at five: 5 bids, a call, an
écart, a chelem, 5 poignées, 75 cards): past it a bot is looping."""


def table_view(game: Game, seat: int) -> TableView:
    """What ``seat`` sees of ``game`` (the game part of a server's TableView)."""
    deal = game.deal
    return TableView(
        table_id="harness",
        name="harness",
        status="playing",
        you=seat,
        seats=[
            SeatView(seat=s, kind="bot", cards=deal.hands[s].bit_count())
            for s in deal.variant.seats
        ],
        hand=hand_view(deal, seat),
        ecart=ecart_view(deal, seat),
        legal=legal_view(deal, seat),
        deals=game.deals,
        scores=game.totals(),
        deal=deal_view(game),
    )


Observer = Callable[[int, TableView, GameCommand], None]


def view_at(deal: Deal, seat: int, seed: str) -> TableView:
    """What ``seat`` sees of a constructed position: ``deal`` as the only
    deal of a game seeded ``seed``."""
    game = Game(deals=1, seed=seed)
    game.deal = deal
    return table_view(game, seat)


def play_deal(game: Game, bots: Sequence[Bot], observe: Observer | None = None) -> DealResult:
    """Play ``game``'s current deal to its end, each seat asking its bot.

    ``observe(seat, view, command)`` is called after every decision (tests
    use it to check what bots were shown and what they chose). Returns the
    deal's result; the caller decides whether to move on (``next_deal``).
    """
    deal = game.deal
    for _ in range(MAX_DECISIONS):
        seat = deal.turn
        if seat is None:
            break
        view = table_view(game, seat)
        command = bots[seat].decide(view)
        if observe is not None:
            observe(seat, view, command)
        apply_command(deal, seat, command)
    else:
        raise RuntimeError("the bots did not finish the deal")
    result = deal.result()
    assert result is not None
    return result

"""A hint on request (``hint``): what the strong bot would do in the asker's seat.

Pure: the core hands the request here and gets back the effects, a refusal
or an ``Advise`` that the actor carries out (the search runs beside the
table, as a bot's does, and its answer goes to the asker alone). The bot
decides from the asker's own view, so a hint tells nothing the seat does
not already see. Only casual tables give hints (``TableMode.hints``): at a
daily or tournament table, whose games are ranked, the answer is
``no_hints``.
"""

from __future__ import annotations

from protocol.messages import Error
from protocol.views import TableView
from server.game import Game
from server.table.effects import Advise, Effect, Send
from server.table.inbox import Peer
from server.table.mode import TableMode
from server.table.state import TableState
from server.table.timers import bot_seed

NO_HINTS = "hints are given at casual tables only, not at daily or tournament ones"
NOT_YOURS = "a hint is for your own decision: wait for your turn"


def hint(
    mode: TableMode,
    st: TableState,
    game: Game | None,
    peer: Peer,
    seat: int,
    rid: int,
    view: TableView,
) -> list[Effect]:
    """The effects of ``peer``'s ``hint`` at ``seat`` (its view ``view``)."""
    if not mode.hints:
        return [Send((peer,), Error(code="no_hints", message=NO_HINTS, rid=rid))]
    if st.status != "playing" or game is None or game.deal.turn != seat:
        return [Send((peer,), Error(code="not_your_turn", message=NOT_YOURS, rid=rid))]
    return [Advise(peer, rid, view, "hint/" + bot_seed(st, game, seat))]

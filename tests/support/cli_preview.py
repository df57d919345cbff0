"""Scripted tables without a server, for screenshots and snapshot tests.

``scripted_view(moment)`` plays a seeded deal with the real rules engine up
to a chosen moment (bidding, écart, chelem, poignée, play, done, finished,
annulled) and builds the ``TableView`` seat 0 would receive, with the same
functions the server uses (``server.seat_view``). ``PreviewApp`` draws such
a view (or a ``LobbyView``) without connecting, and records what the screen
would have sent.

    python -m tests.support.cli_preview play /tmp/play.svg    # save a screenshot
"""

from __future__ import annotations

import sys
from typing import Any

from protocol.cards import cards_of, is_trump
from protocol.views import ChatLine, LobbyView, SeatView, TableSummary, TableView
from server.game import Game
from server.seat_view import deal_view, ecart_view, hand_view, legal_view, sheet

MOMENTS = (
    "waiting",
    "bidding",
    "ecart",
    "chelem",
    "poignee",
    "play",
    "done",
    "finished",
    "annulled",
)
NAMES = ("Alice", "Bot Blaise", "Bot Colette", "Bot Denis")


def _poignee_seed() -> str:
    """The first seed whose deal gives seat 0 ten trumps or more."""
    for n in range(2000):
        seed = f"poignee-{n}"
        game = Game(deals=1, seed=seed, first_dealer=3)
        trumps = [c for c in range(78) if game.deal.hands[0] >> c & 1 and is_trump(c)]
        if len(trumps) >= 10:
            return seed
    raise RuntimeError("no seed with a poignée")


def _play_one(game: Game) -> None:
    """The seat to play plays its first legal card."""
    deal = game.deal
    assert deal.turn is not None
    deal.play(deal.turn, deal.legal_cards()[0])


def _ecart_for(game: Game) -> list[int]:
    deal = game.deal
    candidates = cards_of(deal.ecart_candidates())
    need = deal.ecart_trumps_needed()
    suits = [c for c in candidates if not is_trump(c)]
    trumps = [c for c in candidates if is_trump(c)]
    return (suits + trumps[:need]) if need else suits[:6]


def scripted_game(moment: str, seed: str = "atout-preview") -> tuple[Game, str]:
    """A game played up to ``moment``; returns it with the table status."""
    if moment not in MOMENTS:
        raise ValueError(f"moment is one of {', '.join(MOMENTS)}")
    if moment == "poignee":
        seed = _poignee_seed()
    # Dealer 3: seat 0 speaks first and leads the first trick.
    game = Game(deals=1, seed=seed, first_dealer=3)
    deal = game.deal
    if moment == "waiting":
        return game, "waiting"
    if moment == "bidding":
        return game, "playing"
    if moment == "annulled":
        for seat in (0, 1, 2, 3):
            deal.bid(seat, "pass")
        return game, "between_deals"
    contract = "garde_sans" if moment == "poignee" else "garde"
    deal.bid(0, contract)
    for seat in (1, 2, 3):
        deal.bid(seat, "pass")
    if moment == "ecart":
        return game, "playing"
    if deal.phase == "ecart":
        deal.ecart(0, _ecart_for(game))
    if moment == "chelem":
        return game, "playing"
    deal.declare_chelem(0, False)
    if moment == "poignee":
        return game, "playing"
    if moment == "play":
        # Three tricks, then the fourth until it is seat 0's turn mid-trick.
        while len(deal.tricks) < 3 or deal.turn != 0 or not deal.trick:
            _play_one(game)
        return game, "playing"
    while deal.phase == "play":
        _play_one(game)
    if moment == "done":
        return game, "between_deals"
    game.next_deal()
    return game, "finished"


def scripted_view(moment: str, you: int | None = 0, seed: str = "atout-preview") -> TableView:
    """What seat ``you`` (None: a spectator) sees at ``moment``."""
    game, status = scripted_game(moment, seed)
    started = status != "waiting"
    deal = game.deal
    seats = [
        SeatView(
            seat=i,
            kind="human" if i == 0 else ("bot" if started else "empty"),
            name=NAMES[i] if i == 0 or started else None,
            connected=i == 0 or started,
            bot_level="normal" if started and i else None,
            cards=deal.hands[i].bit_count() if started else 0,
        )
        for i in range(4)
    ]
    view = TableView(
        table_id="preview",
        name="Alice's table",
        status=status,  # type: ignore[arg-type]
        you=you,
        invite_code="K7M2QX" if you is not None else None,
        creator=0,
        bot_level="normal",
        deals=game.deals,
        seats=seats,
        chat=[
            ChatLine(seat=0, name="Alice", text="Bonne chance !", at=0.0),
            ChatLine(seat=1, name="Bot Blaise", text="Merci", at=1.0),
        ],
    )
    if not started:
        return view
    view.hand = hand_view(deal, you)
    view.ecart = ecart_view(deal, you)
    view.legal = legal_view(deal, you) if status == "playing" else view.legal
    view.scores = game.totals()
    view.sheet = sheet(game)
    view.deal = deal_view(game)
    view.ranking = game.ranking() if game.finished else None
    if status == "between_deals":
        # The bots are ready; the player has the result to read. No
        # ``next_deal_at``: a countdown from the real clock would change the shot.
        view.ready = [1, 2, 3]
        view.result_wait = 60.0
    return view


def lobby_view() -> LobbyView:
    return LobbyView(
        players_online=5,
        tables=[
            TableSummary(
                table_id="t1",
                name="Alice's table",
                status="waiting",
                humans=1,
                bots=0,
                free=3,
                deals=8,
                bot_level="normal",
            ),
            TableSummary(
                table_id="t2",
                name="Le club du jeudi",
                status="playing",
                humans=3,
                bots=1,
                free=0,
                deals=16,
                bot_level="strong",
                spectators=2,
            ),
            TableSummary(
                table_id="t3",
                name="Quick play",
                status="playing",
                humans=1,
                bots=3,
                free=0,
                deals=8,
                bot_level="easy",
            ),
        ],
    )


def _preview_app() -> Any:
    # Imported late: the scripting above needs no Textual.
    from clients.cli.app import AtoutApp
    from clients.cli.link import LinkStatus

    class PreviewApp(AtoutApp):
        """Draws one view, connects nowhere, records what it would send."""

        def __init__(self, view: TableView | None = None, lobby: LobbyView | None = None) -> None:
            super().__init__(url="ws://preview.invalid:8765", name="Alice")
            self.preview_view = view
            self.preview_lobby = lobby
            self.sent: list[Any] = []
            self.link_status = LinkStatus("online")

        def begin(self) -> None:
            if self.preview_view is not None:
                self.table_screen.view = self.preview_view
                self.switch_mode("table")
            else:
                self.lobby_screen.lobby = self.preview_lobby
                self.switch_mode("lobby")

        def send(self, cmd: Any) -> None:
            self.sent.append(cmd)

        def show(self, view: TableView) -> None:
            self.table_screen.update_view(view)

    return PreviewApp


def PreviewApp(view: TableView | None = None, lobby: LobbyView | None = None) -> Any:
    """An app drawing ``view`` (or the ``lobby``) with no server behind it."""
    return _preview_app()(view, lobby)


def main(argv: list[str]) -> None:
    moment = argv[0] if argv else "play"
    out = argv[1] if len(argv) > 1 else f"atout-{moment}.svg"
    app = PreviewApp(lobby=lobby_view()) if moment == "lobby" else PreviewApp(scripted_view(moment))

    async def shoot(pilot: Any) -> None:
        await pilot.pause(0.2)
        app.save_screenshot(out)
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=shoot)
    print(out)


if __name__ == "__main__":
    main(sys.argv[1:])

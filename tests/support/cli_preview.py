"""Scripted tables without a server, for screenshots and snapshot tests.

``scripted_view(moment)`` plays a seeded deal with the real rules engine up
to a chosen moment (bidding, écart, chelem, poignée, play, done, finished,
annulled) and builds the ``TableView`` seat 0 would receive, with the same
functions the server uses (``server.table.seat_view``). ``PreviewApp`` draws such
a view (or a ``LobbyView``) without connecting, and records what the screen
would have sent.

    python -m tests.support.cli_preview play /tmp/play.svg    # save a screenshot
"""

from __future__ import annotations

import random
import sys
from typing import Any

from protocol.cards import cards_of, code, is_trump
from protocol.views import (
    BidView,
    ChatLine,
    DealLine,
    DealView,
    Legal,
    LobbyView,
    SeatView,
    TableSummary,
    TableView,
    TrickView,
)
from server.game import Game
from server.table.seat_view import deal_view, ecart_view, hand_view, legal_view, sheet

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


VARIANT_MOMENTS = ("waiting", "bidding", "call", "play", "partner", "done", "alone", "finished")
"""The moments ``variant_view`` draws: at five, ``call`` (the taker's call),
``play`` (the partner unknown), ``partner`` (the called card played, the
partner known), ``done`` (a result with a partner) and ``alone`` (the taker
called their own King and lost)."""
VARIANT_NAMES = ("Alice", "Bob", "Bot Colette", "Bot Denis", "Bot Eliott")


def variant_view(players: int, moment: str, you: int | None = 0) -> TableView:
    """A 3- or 5-seat table built by hand (no engine plays those yet here):
    seat 0 (Alice) took a garde; at five she holds the King of hearts and
    calls the King of spades, which Bob holds. The cards are dealt from a
    seeded shuffle; only what the screen draws has to be true."""
    if moment not in VARIANT_MOMENTS:
        raise ValueError(f"moment is one of {', '.join(VARIANT_MOMENTS)}")
    hand_size = {3: 24, 4: 18, 5: 15}[players]
    rng = random.Random(f"variant-{players}")
    deck = [code(c) for c in range(78)]
    rng.shuffle(deck)
    if players == 5:
        # Alice holds the King of hearts, Bob the King of spades.
        for card, seat in (("KH", 0), ("KS", 1)):
            i, j = deck.index(card), seat * hand_size
            deck[i], deck[j] = deck[j], deck[i]
    hands = [deck[s * hand_size : (s + 1) * hand_size] for s in range(players)]
    chien = deck[players * hand_size :]
    started = moment != "waiting"
    humans = (0, 1) if players == 5 else (0, 1, 2)
    seats = [
        SeatView(
            seat=i,
            kind="human" if i in humans and (started or i == 0) else "bot" if started else "empty",
            name=VARIANT_NAMES[i] if started or i == 0 else None,
            connected=started or i == 0,
            bot_level="normal" if started and i not in humans else None,
            cards=hand_size if started else 0,
        )
        for i in range(players)
    ]
    if players == 3:
        seats[2].name = "Chloé"
    view = TableView(
        table_id="preview",
        name="Alice's table",
        status="waiting" if not started else "playing",
        you=you,
        invite_code="K7M2QX" if you is not None else None,
        creator=0,
        deals=2 * players,
        seats=seats,
        scores=[0] * players,
        chat=[ChatLine(seat=1, name=seats[1].name or "Bob", text="On y va !", at=0.0)],
    )
    if not started:
        return view
    dealer = players - 1
    deal = DealView(
        number=1, dealer=dealer, phase="bidding", turn=0, players=players, hand_size=hand_size
    )
    view.deal = deal
    if moment == "bidding":
        view.legal = Legal(bids=["pass", "prise", "garde", "garde_sans", "garde_contre"])
        view.hand = sort_codes(hands[0]) if you is not None else []
        return view
    deal.bids = [BidView(seat=0, bid="garde")] + [
        BidView(seat=s, bid="pass") for s in range(1, players)
    ]
    deal.taker, deal.contract = 0, "garde"
    if moment == "call":
        deal.phase = "call"
        if players == 5 and you == 0:
            view.legal = Legal(calls=["KS", "KH", "KC", "KD"])
        view.hand = sort_codes(hands[you]) if you is not None else []
        return view
    deal.called = "KS" if players == 5 else None
    deal.chien = chien
    # Three tricks, each led by the seat after the last leader; Bob plays
    # the called King in the second one when the partner is to be known.
    leader = 0
    for t in range(3):
        cards = []
        for i in range(players):
            seat = (leader + i) % players
            called = players == 5 and moment == "partner" and t == 1 and seat == 1
            card = "KS" if called else None
            card = card or next(c for c in hands[seat] if c not in ("KS", "KH"))
            hands[seat].remove(card)
            cards.append(card)
        winner = (leader + 1) % players
        deal.tricks.append(TrickView(leader=leader, cards=cards, winner=winner))
        leader = winner
    attack = {0, 1} if moment == "partner" else {0}
    won = sum(1 for t in deal.tricks if t.winner in attack)
    deal.tricks_won = [won, len(deal.tricks) - won]
    if moment == "partner":
        deal.partner = 1
    view.hand = sort_codes(hands[you]) if you is not None else []
    view.ecart = chien if you == 0 else []
    deal.chien = []
    if moment in ("play", "partner"):
        deal.phase = "play"
        cards = []
        seat = leader
        while seat != 0:
            card = next(c for c in hands[seat] if c not in ("KS", "KH"))
            hands[seat].remove(card)
            cards.append(card)
            seat = (seat + 1) % players
        deal.trick = TrickView(leader=leader, cards=cards)
        deal.turn = 0
        if you == 0:
            view.legal = Legal(cards=list(view.hand))
        return view
    deal.phase, deal.turn = "done", None
    scores = _variant_scores(players, moment)
    deal.result = {
        "contract": "garde",
        "taker": 0,
        "made": moment != "alone",
        "margin": 3 if moment == "alone" else 7,
        "points": 38 if moment == "alone" else 48,
        "target": 41,
        "bouts": 2,
        "scores": scores,
    }
    if players == 5:
        deal.result["partner"] = None if moment == "alone" else 1
    view.sheet = [
        DealLine(
            number=1,
            dealer=dealer,
            taker=0,
            contract="garde",
            made=moment != "alone",
            scores=scores,
            partner=deal.result.get("partner"),
        )
    ]
    view.scores = list(scores)
    if moment == "finished":
        view.status = "finished"
        view.ranking = sorted(range(players), key=lambda s: -scores[s])
        view.deals = 1
    else:
        view.status = "between_deals"
        view.ready = [s for s in range(players) if s not in humans]
        view.result_wait = 60.0
    return view


def _variant_scores(players: int, moment: str) -> list[int]:
    """Scores that sum to 0 (VARIANTS.md's worked examples)."""
    if players == 3:
        return [120, -60, -60]
    if moment == "alone":
        return [-224, 56, 56, 56, 56]
    return [128, 64, -64, -64, -64]


def sort_codes(cards: list[str]) -> list[str]:
    """A hand in the client's own order."""
    from clients.cli.cards_text import sort_hand

    return sort_hand(cards)


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
            TableSummary(
                table_id="t4",
                name="À cinq",
                status="waiting",
                humans=2,
                bots=0,
                free=3,
                deals=10,
                bot_level="normal",
                players=5,
            ),
            TableSummary(
                table_id="t5",
                name="Trio",
                status="playing",
                humans=3,
                bots=0,
                free=0,
                deals=6,
                bot_level="normal",
                players=3,
            ),
        ],
    )


def _preview_app() -> Any:
    # Imported late: the scripting above needs no Textual.
    from clients.cli.app import AtoutApp
    from clients.cli.link import LinkStatus
    from clients.cli.tokens import MemoryTokens

    class PreviewApp(AtoutApp):
        """Draws one view, connects nowhere, records what it would send."""

        def __init__(self, view: TableView | None = None, lobby: LobbyView | None = None) -> None:
            # Kept in memory: a preview never writes the user's config folder.
            super().__init__(url="ws://preview.invalid:8765", name="Alice", tokens=MemoryTokens())
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

        @property
        def seated_at(self) -> str | None:
            view = self.table_screen.view
            return view.table_id if view is not None else None

        def show(self, view: TableView) -> None:
            self.table_screen.update_view(view)

    return PreviewApp


def PreviewApp(view: TableView | None = None, lobby: LobbyView | None = None) -> Any:
    """An app drawing ``view`` (or the ``lobby``) with no server behind it."""
    return _preview_app()(view, lobby)


def main(argv: list[str]) -> None:
    moment = argv[0] if argv else "play"
    out = argv[1] if len(argv) > 1 else f"atout-{moment}.svg"
    if moment == "lobby":
        app = PreviewApp(lobby=lobby_view())
    elif ":" in moment:  # 5:call, 3:play: a table of three or five
        players, at = moment.split(":")
        app = PreviewApp(variant_view(int(players), at))
    else:
        app = PreviewApp(scripted_view(moment))

    async def shoot(pilot: Any) -> None:
        await pilot.pause(0.2)
        app.save_screenshot(out)
        app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=shoot)
    print(out)


if __name__ == "__main__":
    main(sys.argv[1:])

"""The table and lobby screens driven with Textual's Pilot, without a server:
scripted views (real rules engine, ``tests.support.cli_preview``) go in, the
commands the screen would send come out. Checks that only legal choices are
offered and that what is on screen says what it should, at 80×24.

Text on screen is read from the rendered screen (what a person sees).
"""

from __future__ import annotations

from typing import Any

import pytest

from clients.cli import table_facts as facts
from clients.cli.cards_text import label
from clients.cli.cards_widget import HandWidget
from clients.cli.dialogs import Confirm, NewTable
from clients.cli.sheet_dialog import ScoreSheet
from protocol.messages import (
    Bid,
    Chelem,
    CreateTable,
    Ecart,
    Error,
    GetHistory,
    JoinTable,
    Play,
    Poignee,
    StartGame,
    Watch,
)
from tests.support.cli_preview import PreviewApp, lobby_view, scripted_view
from tests.support.pilot import SIZE, screen_text, until


def hand_of(app: Any) -> HandWidget:
    return app.table_screen.query_one("#hand", HandWidget)


# -- bidding ----------------------------------------------------------------------------


async def test_only_legal_bids_are_offered_and_one_is_sent_once() -> None:
    view = scripted_view("bidding")
    view.legal.bids = ["pass", "garde_sans", "garde_contre"]
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = [b.name for b in app.screen.query(".bid")]
        assert names == ["bid:pass", "bid:garde_sans", "bid:garde_contre"]
        text = screen_text(app)
        assert "Prise" not in text.split("Your bid")[1]
        await pilot.click(".bid-garde_sans")
        await pilot.pause()
        assert app.sent == [Bid(bid="garde_sans", rid=0)]
        # Answered: the buttons are gone until the view moves on.
        assert not list(app.screen.query(".bid"))


# -- playing ------------------------------------------------------------------------------


async def test_illegal_cards_cannot_be_chosen_by_keys_click_or_code() -> None:
    view = scripted_view("play")
    illegal = [c for c in view.hand if c not in view.legal.cards]
    assert illegal and view.legal.cards, "the scripted moment must restrict the cards"
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = hand_of(app)
        assert hand.has_focus
        # Arrow keys visit the legal cards only.
        seen = set()
        for _ in range(len(view.hand) + 2):
            seen.add(hand.cursor)
            await pilot.press("right")
        assert seen == set(view.legal.cards)
        # Typing an illegal card's code: refused with the reason, nothing sent.
        await pilot.press(*illegal[0])
        if hand.typed:
            await pilot.press("enter")
        await pilot.pause()
        assert app.sent == []
        message = screen_text(app)
        assert label(illegal[0]) in message and "must" in message
        # Clicking an illegal card: refused too.
        span = next(s for line in hand._lines for s in line if s.card == illegal[-1])
        left, top = hand.gutter.left, hand.gutter.top
        await pilot.click(HandWidget, offset=(left + span.x0, top + span.y))
        await pilot.pause()
        assert app.sent == []
        # A legal card by its code is played, once.
        await pilot.press(*view.legal.cards[0])
        if hand.typed:
            await pilot.press("enter")
        await pilot.pause()
        assert app.sent == [Play(card=view.legal.cards[0], rid=0)]
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.sent) == 1


async def test_the_trick_shows_who_played_what_and_the_last_trick_on_demand() -> None:
    view = scripted_view("play")
    assert view.deal is not None and view.deal.trick is not None
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        for _seat, card in facts.trick_seats(view.deal.trick):
            assert label(card) in text
        assert f"Trick {len(view.deal.tricks) + 1}" in text
        assert "Last:" in text
        await pilot.press("l")
        await pilot.pause()
        assert f"Last trick ({len(view.deal.tricks)})" in screen_text(app)
        await pilot.press("l")
        await pilot.pause()
        assert "Last trick (" not in screen_text(app)


async def test_the_taker_sees_the_points_needed_and_the_trump_tracker() -> None:
    view = scripted_view("play")
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        need = facts.need(view)
        assert need is not None and f"You need {need.target}" in text
        assert "Garde ×2" in text and "Tricks: taker" in text
        assert "trumps not seen yet" in text


# -- écart, chelem, poignée ------------------------------------------------------------


async def test_the_ecart_is_picked_among_legal_candidates_and_confirmed() -> None:
    view = scripted_view("ecart")
    legal = view.legal
    assert legal.ecart and legal.ecart_trumps == 0
    forbidden = [c for c in view.hand if c not in legal.ecart]
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "Chien:" in screen_text(app)
        hand = hand_of(app)
        assert not hand.choose(forbidden[0])  # a trump, a King or a bout: refused
        pick = [c for c in legal.ecart if not c.startswith("T")][:6]
        for card in pick[:5]:
            assert hand.choose(card)
        await pilot.pause()
        assert "Discard (5/6)" in screen_text(app)
        assert hand.choose(pick[5])
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == [Ecart(cards=pick, rid=0)]


async def test_the_chelem_question() -> None:
    app = PreviewApp(scripted_view("chelem"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "Declare a chelem" in screen_text(app)
        await pilot.click(".chelem-yes")
        await pilot.pause()
        assert app.sent == [Chelem(declare=True, rid=0)]


async def test_a_poignee_is_offered_before_the_first_card_and_shown() -> None:
    view = scripted_view("poignee")
    assert view.legal.poignee_sizes == [10] or 10 in view.legal.poignee_sizes
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "Show poignée simple" in screen_text(app)
        await pilot.press("p")
        await pilot.pause()
        picked = list(hand_of(app).picked)
        assert len(picked) == 10 and "T1" not in picked
        await pilot.click(".poignee-go")
        await pilot.pause()
        assert app.sent == [Poignee(cards=picked, rid=0)]


# -- the rest of the table ---------------------------------------------------------------


async def test_waiting_room_shows_the_invite_code_and_the_creator_starts() -> None:
    app = PreviewApp(scripted_view("waiting"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Invite code: K7M2QX" in text and "free seat" in text
        await pilot.click(".start")
        await pilot.pause()
        assert app.sent == [StartGame(rid=0)]


async def test_score_sheet_and_annulment_and_game_over() -> None:
    app = PreviewApp(scripted_view("done"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "down by" in screen_text(app) or "made by" in screen_text(app)
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheet)
        assert "Score sheet" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        app.show(scripted_view("annulled"))
        await pilot.pause()
        assert "everyone passed" in screen_text(app)
        app.show(scripted_view("finished"))
        await pilot.pause()
        text = screen_text(app)
        assert "Game over" in text and "1. " in text and "Play again" in text


async def test_a_spectator_sees_no_hand_and_cannot_chat() -> None:
    app = PreviewApp(scripted_view("play", you=None))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "hands stay hidden" in screen_text(app)
        await pilot.press("m")
        await pilot.pause()
        assert "Spectators read the chat" in screen_text(app)


async def test_server_errors_are_shown_with_their_code_never_a_traceback() -> None:
    app = PreviewApp(scripted_view("play"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        app.on_server(Error(code="illegal_card", message="you must follow suit", rid=3))
        await pilot.pause()
        assert app.errors == ["You must follow suit [illegal_card]"]
        assert "You must follow suit [illegal_card]" in screen_text(app)
        assert "Traceback" not in screen_text(app)


async def test_no_color_terminals_still_show_every_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = PreviewApp(scripted_view("play"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.no_color
        text = screen_text(app)
        assert "♠" in text or "♥" in text or "♦" in text or "♣" in text
        assert "▶" in text and "★" in text and "trumps not seen yet" in text


# -- the lobby ------------------------------------------------------------------------------


async def test_lobby_lists_tables_and_offers_every_way_to_a_seat() -> None:
    app = PreviewApp(lobby=lobby_view())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Le club du jeudi" in text and "5 online" in text
        await pilot.press("enter")
        await pilot.press("down", "w")
        await pilot.pause()
        assert app.sent == [JoinTable(table_id="t1", rid=0), Watch(table_id="t2", rid=0)]
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NewTable)
        await pilot.click("#private")
        await pilot.press("down", "enter")  # private: invite code only
        deals = app.screen.query_one("#deals")
        deals.value = "3"  # type: ignore[attr-defined]
        await pilot.click("#create")
        await pilot.pause()
        created = app.sent[-1]
        assert isinstance(created, CreateTable)
        assert created.private and created.deals == 3 and created.bot_level == "normal"
        await pilot.press("i")
        await pilot.pause()
        await pilot.press(*"abc234", "enter")
        await pilot.pause()
        assert app.sent[-1] == JoinTable(code="ABC234", rid=0)


# -- typed codes, the message bar ------------------------------------------------------------


async def test_a_typed_code_waits_for_enter_and_enter_has_no_second_effect() -> None:
    view = scripted_view("ecart")
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = hand_of(app)
        card = next(c for c in view.legal.ecart if not c.startswith("T"))
        await pilot.press(*card)
        await pilot.pause()
        assert hand.picked == [] and hand.typed == card  # nothing picked yet
        assert "Enter to choose it" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert hand.picked == [card] and hand.typed == ""
        # In play, a typed code is not played until Enter either.
    view = scripted_view("play")
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*view.legal.cards[0])
        await pilot.pause()
        assert app.sent == []
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == [Play(card=view.legal.cards[0], rid=0)]


async def test_h_asks_for_the_past_deals_while_the_hand_has_the_focus() -> None:
    """h is a suit letter too, but no card code starts with one: with nothing
    typed, the hand lets it through to the table's key (issue 37: h at the
    end of a game, before the focus left the hand, said "no card H" and
    opened nothing; in play it never worked). After a rank it is the suit."""
    view = scripted_view("play")
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = hand_of(app)
        assert app.focused is hand
        await pilot.press("h")
        await pilot.pause()
        assert app.sent == [GetHistory()] and hand.typed == ""
        assert "no card" not in screen_text(app)
        # A suit letter after a rank (S, H or D: a letter that starts no code).
        suited = [c for c in view.hand if c[-1] in "SHD" and not c.startswith("T")]
        await pilot.press(*suited[0])
        await pilot.pause()
        assert hand.typed == suited[0] and app.sent == [GetHistory()]


async def test_r_reconnects_while_the_hand_has_the_focus_even_in_french() -> None:
    """In French R is a rank (Roi), so the hand took r as the start of a card
    code and the table's r (Reconnect) never ran while the link was down
    (issue 37). Offline r now reconnects; online it is still the hand's R."""
    from clients.cli import i18n
    from clients.cli.link import LinkStatus

    i18n.use("fr")
    try:
        view = scripted_view("play")
        view.hand = ["KS", *view.hand]
        app = PreviewApp(view)
        retried: list[bool] = []
        app.retry_now = lambda: retried.append(True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            hand = hand_of(app)
            assert app.focused is hand
            app.link_status = LinkStatus("reconnecting")
            await pilot.press("r")
            await pilot.pause()
            assert retried == [True] and hand.typed == ""
            app.link_status = LinkStatus("online")
            await pilot.press("r")
            await pilot.pause()
            assert retried == [True] and hand.typed == "K"  # R, Roi: a King's code
    finally:
        i18n.use("en")


async def test_the_message_bar_drops_news_of_an_earlier_phase() -> None:
    app = PreviewApp(scripted_view("ecart"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.table_screen.say("T3: never a King or a bout", error=True)
        app.show(scripted_view("poignee"))  # the écart is done: a new phase
        await pilot.pause()
        assert "never a King" not in screen_text(app)


async def test_a_long_name_never_pushes_the_connection_state_out_of_the_header() -> None:
    app = PreviewApp(lobby=lobby_view())
    app.player_name = "Alexandrine-Marguerite-X"  # 24 characters, the most a server keeps
    app.url = "wss://a-rather-long-host-name.example.org:8765"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "● online" in header and len(header) <= SIZE[0]


# -- the first lobby and the first resize ------------------------------------------------------


@pytest.mark.parametrize("first", ["lobby_then_resize", "resize_then_lobby"])
async def test_the_first_lobby_stays_on_screen_whatever_the_first_resize(first: str) -> None:
    """The server's first lobby message may come before or after the
    terminal's first resize (its redraw runs after the next refresh): either
    way the tables and the online count stay on screen."""
    app = PreviewApp(lobby=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.lobby_screen
        assert " online" not in screen_text(app).split("●")[0]  # no count yet
        if first == "lobby_then_resize":
            screen.update_lobby(lobby_view())
            await pilot.resize_terminal(140, 40)
        else:
            # What Textual does on a resize, then the lobby in the same turn
            # of the loop, before the refresh the resize waits for.
            screen.on_resize()
            screen.update_lobby(lobby_view())
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        assert "5 online" in text and "Le club du jeudi" in text
        assert screen.query_one("#tables").row_count == 5  # type: ignore[attr-defined]


@pytest.mark.languages  # words and fit: CI runs them on one Python
@pytest.mark.parametrize("lang", ["en", "fr", "zh", "ko"])
async def test_the_lobby_footer_lists_what_the_lobby_offers(lang: str) -> None:
    """d (daily), l (leaderboard), u (profile) have no button: the footer
    always lists them, t too when there is room (issue 33, item 8)."""
    from clients.cli import i18n

    i18n.use(lang)
    try:
        for size, keys in ((SIZE, ("d ", "l ", "u ", "^q ")), ((140, 40), ("t ", "d ", "p "))):
            app = PreviewApp(lobby=lobby_view())
            async with app.run_test(size=size) as pilot:
                # Laid out after a pause or more (a busy machine takes longer).
                await until(pilot, lambda a=app, ks=keys: _footer_has(a, ks), what=f"{size}")
    finally:
        i18n.use("en")


def _footer_has(app: Any, keys: tuple[str, ...]) -> bool:
    footer = screen_text(app).rstrip().split("\n")[-1]
    return all(f" {k}" in footer for k in keys)


async def test_a_new_tables_name_is_the_players_name() -> None:
    """The name the server knows the player by (a player key's), not the
    login name the client first said hello with (issue 33, item 8)."""
    app = PreviewApp(lobby=lobby_view())
    async with app.run_test(size=SIZE) as pilot:
        app.player_name = "Alice Bernard"  # as the server's welcome names us (daily_screen.py)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NewTable)
        assert app.screen.query_one("#name").value == "Alice Bernard's table"  # type: ignore[attr-defined]


def _long_sheet(deals: int = 24) -> Any:
    """A game of ``deals`` deals, two of them annulled before being dealt again."""
    import msgspec

    from protocol.views import DealLine

    lines, number = [], 0
    for i in range(deals + 2):
        if i in (3, 9):
            lines.append(DealLine(number=number + 1, dealer=i % 4, annulled="all_pass"))
            continue
        number += 1
        scores = [60, -20, -20, -20]
        lines.append(
            DealLine(
                number=number, dealer=i % 4, taker=0, contract="garde", made=True, scores=scores
            )
        )
    return msgspec.structs.replace(scripted_view("play"), sheet=lines, deals=deals)


async def test_a_long_score_sheet_scrolls_at_80x24_and_marks_annulled_deals() -> None:
    """Issue 33, item 6: 24 deals at 80×24 — the last deals and the total
    are reached with the keys the foot names; an annulled deal's number is
    in brackets, beside "annulled", never a second deal of that number."""
    app = PreviewApp(_long_sheet())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheet)
        text = screen_text(app)
        assert "(4)  annulled: all passed" in text and "PgUp PgDn" in text
        assert "   24  Garde" not in text  # below: to scroll to
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "   24  Garde" in text and "Total" in text
        await pilot.press("pageup", "pageup", "home")
        await pilot.pause()
        assert "    1  Garde" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ScoreSheet)

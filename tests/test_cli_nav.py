"""Keys behave the same everywhere (issue 27, item 4; clients/cli/screen_keys.py):
←/→ move between the buttons of every dialog and button row, ↑/↓ leave a
row for the widget above or below it, and Esc closes the innermost open
thing — an overlay, the last trick, the poignée picker, a dialog — before
it ever asks to leave the table. Driven with Textual's Pilot, no server.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Button, DataTable, Input

from clients.cli import wording
from clients.cli.cards_widget import HandWidget
from clients.cli.dialogs import (
    ChatBox,
    Confirm,
    Help,
    History,
    JoinByCode,
    NewTable,
    Replay,
)
from clients.cli.sheet_dialog import ScoreSheet
from protocol.messages import Bid, CreateTable
from tests.support.cli_preview import PreviewApp, lobby_view, scripted_game, scripted_view

SIZE = (80, 24)


def focused(app: Any) -> Any:
    return app.screen.focused


def focused_button(app: Any) -> str:
    widget = app.screen.focused
    assert isinstance(widget, Button), widget
    return str(widget.id or widget.name)


async def test_arrows_move_between_the_buttons_of_a_question() -> None:
    app = PreviewApp(scripted_view("play"))
    answers: list[bool | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # The quit question as Ctrl-Q asks it: "Stay" has the focus.
        question = Confirm(wording.QUIT_QUESTION, yes=wording.QUIT, no=wording.STAY)
        app.push_screen(question, answers.append)
        await pilot.pause()
        assert focused_button(app) == "no"
        await pilot.press("left")
        assert focused_button(app) == "yes"
        await pilot.press("left")  # the ends stop the arrows: no wrapping round
        assert focused_button(app) == "yes"
        await pilot.press("right")
        assert focused_button(app) == "no"
        await pilot.press("right")
        assert focused_button(app) == "no"
        await pilot.press("left", "enter")
        await pilot.pause()
        assert answers == [True]


@pytest.mark.parametrize("kind", ["new table", "invite code"])
async def test_arrows_move_along_a_form_s_buttons_and_up_to_its_fields(kind: str) -> None:
    app = PreviewApp(lobby=lobby_view())
    answers: list[Any] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = NewTable("Alice's table") if kind == "new table" else JoinByCode()
        app.push_screen(dialog, answers.append)
        await pilot.pause()
        assert isinstance(focused(app), Input)
        # In a field, ← → move the cursor in the text, as they should.
        first = "create" if kind == "new table" else "join"
        buttons = [b.id for b in dialog.query(Button)]
        assert buttons[0] == first and buttons[-1] == "cancel"
        dialog.query_one(f"#{first}", Button).focus()
        await pilot.pause()
        for expected in buttons[1:]:
            await pilot.press("right")
            assert focused_button(app) == expected
        await pilot.press("right")
        assert focused_button(app) == "cancel"
        for expected in reversed(buttons[:-1]):
            await pilot.press("left")
            assert focused_button(app) == expected
        # ↑ leaves the row for the field above it; ↓ from there is the field's own.
        await pilot.press("up")
        assert isinstance(focused(app), Input)
        assert app.screen is dialog
        # Esc cancels the dialog.
        await pilot.press("escape")
        await pilot.pause()
        assert answers == [None]
    if kind == "new table":
        assert not any(isinstance(a, CreateTable) for a in answers)


async def test_arrows_move_along_the_bid_buttons_and_up_to_the_hand() -> None:
    view = scripted_view("bidding")
    app = PreviewApp(view)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        bids = [b.name for b in app.screen.query(".bid")]
        assert len(bids) >= 3
        assert focused(app).name == bids[0]
        await pilot.press("left")  # the first button stays: the hand is ↑
        assert focused(app).name == bids[0]
        await pilot.press("right", "right")
        assert focused(app).name == bids[2]
        await pilot.press("up")
        assert isinstance(focused(app), HandWidget)
        # On the hand, ← → move among the cards (its own keys), not the buttons.
        await pilot.press("right")
        assert isinstance(focused(app), HandWidget)
        await pilot.press("down")
        assert app.sent == []
        app.screen.query_one(f".bid-{bids[1][4:]}", Button).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.sent == [Bid(bid=bids[1][4:], rid=0)]


async def test_arrows_move_along_the_lobby_buttons() -> None:
    app = PreviewApp(lobby=lobby_view())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(focused(app), DataTable)
        row = [b.name for b in app.screen.query("#buttons Button")]
        app.screen.query_one("#buttons .quick", Button).focus()
        for expected in row[1:]:
            await pilot.press("right")
            assert focused(app).name == expected
        await pilot.press("up")
        assert isinstance(focused(app), DataTable)


async def test_esc_closes_the_last_trick_before_asking_to_leave() -> None:
    app = PreviewApp(scripted_view("play"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table_screen
        await pilot.press("l")
        await pilot.pause()
        assert table.show_last
        assert table.query_one("#trick").border_subtitle == "l or Esc: back"
        await pilot.press("escape")
        await pilot.pause()
        assert not table.show_last and app.screen is table
        assert table.query_one("#trick").border_subtitle == ""
        # Nothing open any more: now Esc asks, and "Stay" has the focus.
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        assert focused_button(app) == "no"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table and app.sent == []


async def test_esc_closes_the_poignee_picker_before_asking_to_leave() -> None:
    app = PreviewApp(scripted_view("poignee"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table_screen
        await pilot.press("p")
        await pilot.pause()
        assert table.pick_kind == "poignee"
        await pilot.press("escape")
        await pilot.pause()
        assert table.pick_kind == "" and app.screen is table
        assert not list(table.query(".poignee-go"))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)


def _history(app: Any) -> None:
    game, _status = scripted_game("done")
    app.table_screen.show_history([game.deal.record()])


@pytest.mark.parametrize(
    ("opens", "kind"),
    [
        ("b", ScoreSheet),
        ("question_mark", Help),
        ("m", ChatBox),
        ("history", History),
    ],
)
async def test_esc_closes_each_overlay_and_nothing_more(opens: str, kind: type) -> None:
    app = PreviewApp(scripted_view("play"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if opens == "history":
            _history(app)
        else:
            await pilot.press(opens)
        await pilot.pause()
        assert isinstance(app.screen, kind)
        if kind is History:
            # The replay over the list: Esc goes back one step at a time.
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, Replay)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, History)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.table_screen
        assert app.sent == []

"""The client's words at the end of a game and around it (issue 27, items 3
and 7), without a server: the daily result's comparisons with the *other*
players, annulled deals, the finished game's header and prompt, a daily
table's name and its practice game, the help laid out at 80 columns in each
language, and the message line (capitalised, never the prompt's twin, an
error gone once play moves on). Screens are read as a person reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from rich.cells import cell_len

from clients.cli import daily_words, i18n, table_facts, table_panels
from clients.cli.daily_screen import DailyResultScreen, annulled_deals
from clients.cli.dialogs import Help
from clients.cli.help_text import help_keys, orphan
from clients.cli.status_line import StatusLine
from clients.cli.table_names import table_name
from protocol.views import DailyDealLine, DailyResultView, DealLine
from tests.support.cli_preview import PreviewApp, lobby_view, scripted_view
from tests.support.pilot import screen_text

LANGS = ("en", "fr", "zh", "ko")


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    yield
    i18n.use("en")


def line(percent: float, players: int, deal: int = 1, points: int = 10) -> DailyDealLine:
    return DailyDealLine(deal=deal, points=points, percent=percent, players=players)


# -- item 3: the daily game's end ---------------------------------------------------


def test_a_deal_is_compared_with_the_other_players_only() -> None:
    words = daily_words.deal_line
    # One other player: the percentage says exactly what happened.
    assert words(line(100, 2)) == "Deal 1: +10 points, better than 1 of 1 other player"
    assert words(line(50, 2)) == "Deal 1: +10 points, tied with the 1 other player"
    assert words(line(0, 2)) == "Deal 1: +10 points, behind the 1 other player"
    assert words(line(100, 5)) == "Deal 1: +10 points, better than 4 of 4 other players"
    assert words(line(0, 5)) == "Deal 1: +10 points, behind all 4 other players"
    assert words(line(50, 1)) == "Deal 1: +10 points, the first result on this deal today"
    # Several others and a percentage in between: beaten and tied are not
    # both known (1 of 2 = one beaten, or both tied), so it says the share.
    assert words(line(50, 3)) == "Deal 1: +10 points, better than 50% of 2 others (ties half)"
    assert daily_words.comparison(line(50, 3)).beaten is None
    # Counts sent by the server (others, beaten, tied) are used as they are:
    # the same 50% of 2 others is then said exactly.
    given = msgspec.structs.replace(line(50, 3), others=2, beaten=0, tied=2)
    assert words(given) == "Deal 1: +10 points, tied with all 2 other players"
    given = msgspec.structs.replace(line(62.5, 5), others=4, beaten=2, tied=1)
    assert words(given) == "Deal 1: +10 points, better than 2 of 4 others, tied with 1"


def test_an_annulled_deal_reads_annulled_in_every_language() -> None:
    view = scripted_view("finished")
    view.sheet = [
        DealLine(number=1, dealer=0, annulled="all_pass"),
        DealLine(number=2, dealer=1, taker=0, contract="garde", made=True),
    ]
    result = DailyResultView(day="2025-06-15", ranked=True, deals=[line(50, 2), line(100, 2, 2)])
    assert annulled_deals(result, view) == [True, False]
    view.sheet = view.sheet[:1]  # not this game's sheet: nothing claimed
    assert annulled_deals(result, view) == []
    expected = {"en": "annulled", "fr": "annulée", "zh": "作废", "ko": "무효"}
    for lang in LANGS:
        i18n.use(lang)
        text = daily_words.deal_line(line(50, 2, points=0), annulled=True)
        assert expected[lang] in text and "+0" not in text, (lang, text)


async def test_the_daily_result_screen_marks_the_annulled_deal() -> None:
    app = PreviewApp(lobby=lobby_view())
    result = DailyResultView(
        day="2025-06-15", ranked=True, deals=[line(50, 2, points=0), line(100, 2, 2)]
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(DailyResultScreen(result, [True, False]))
        await pilot.pause()
        text = screen_text(app)
        assert "Deal 1: annulled, tied with the 1 other player" in text
        assert "Deal 2: +10 points, better than 1 of 1 other player" in text
        assert "Deal 1: +0" not in text


def test_a_finished_game_shows_its_count_not_a_deal_number() -> None:
    view = scripted_view("finished")
    assert "game over · 1 deal" in table_panels.header(view).plain
    assert "deal 1/" not in table_panels.header(view).plain
    # A daily game of 4 deals, one of them annulled: 4 deals (annulled ones
    # count there), whatever number the last deal carried.
    view.name, view.deals = "Daily 2025-06-15", 4
    view.sheet = [DealLine(number=n, dealer=0) for n in (1, 2, 3)]
    view.sheet.insert(1, DealLine(number=2, dealer=0, annulled="all_pass"))
    assert table_facts.deals_played(view) == 4
    # An ordinary table of 2 deals with an annulled attempt: 2 deals.
    view.name, view.deals = "Alice's table", 2
    view.sheet = view.sheet[:3]
    assert table_facts.deals_played(view) == 2
    i18n.use("fr")
    assert "partie finie · 2 donnes" in table_panels.header(view).plain


async def test_a_finished_daily_table_offers_no_play_again_in_words_either() -> None:
    view = scripted_view("finished")
    view.name = "Daily 2025-06-15"
    app = PreviewApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Game over: Esc to leave." in text and "play again" not in text
        assert not app.table_screen.query("Button.again")
    app = PreviewApp(scripted_view("finished"))  # an ordinary table offers it
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "Game over: play again, or Esc to leave." in screen_text(app)
        assert app.table_screen.query("Button.again")


async def test_the_practice_table_says_so_whole_at_80_columns() -> None:
    view = scripted_view("play")
    view.name, view.private = "Daily 2025-06-15 (practice)", True
    for lang, title in (("en", "Practice 2025-06-15"), ("fr", "Entraînement 2025-06-15")):
        i18n.use(lang)
        app = PreviewApp(view)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert title in screen_text(app).splitlines()[0]


def test_server_made_table_names_read_in_each_language() -> None:
    names = {
        "en": ("Alice's table", "Daily game 2025-06-15", "Practice 2025-06-15"),
        "fr": ("Table d’Alice", "Partie du jour du 2025-06-15", "Entraînement 2025-06-15"),
        "zh": ("Alice的牌桌", "2025-06-15 每日牌局", "2025-06-15 练习局"),
        "ko": ("Alice의 테이블", "2025-06-15 오늘의 게임", "2025-06-15 연습 게임"),
    }
    for lang, (own, daily, practice) in names.items():
        i18n.use(lang)
        assert table_name("Alice's table") == own
        assert table_name("Daily 2025-06-15") == daily
        assert table_name("Daily 2025-06-15 (practice)") == practice
        assert table_name("Le club du jeudi") == "Le club du jeudi"  # a person's name stays
    i18n.use("fr")  # French elides "de" before a vowel sound only (issue 34)
    assert table_name("Bob's table") == "Table de Bob"
    assert table_name("Émile's table") == "Table d’Émile"


async def test_the_lobby_lists_a_server_made_name_in_the_language() -> None:
    i18n.use("fr")
    app = PreviewApp(lobby=lobby_view())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Table d’Alice" in text and "Alice's table" not in text


# -- item 7: help and status text ------------------------------------------------------


def help_lines(app: Any) -> list[str]:
    """The help dialog's lines as on screen, inside its border."""
    rows = screen_text(app).splitlines()
    top = next(i for i, r in enumerate(rows) if help_keys() in r)
    out = []
    for row in rows[top:]:
        inside = row.split("│")
        if len(inside) < 3 or "╰" in row:
            break
        out.append(max(inside[1:-1], key=len)[1:])  # the dialog's column, less its padding
    return out


@pytest.mark.languages  # words and fit: CI runs them on one Python
@pytest.mark.parametrize("lang", LANGS)
async def test_help_wraps_cleanly_at_80_columns(lang: str) -> None:
    i18n.use(lang)
    app = PreviewApp(scripted_view("bidding"))
    async with app.run_test(size=(80, 70)) as pilot:  # tall: the whole help in view
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, Help)
        lines = help_lines(app)
        first = lines[0]
        assert help_keys() in first and "Esc" in help_keys(), first  # how to close, on top
        assert any("← → Enter" in x for x in lines)  # the bidding keys
        assert any(x.lstrip().startswith("d ") for x in lines)  # the lobby's daily key
        # A continuation line (indented past an entry's start) is never a lone word.
        continued = [x for x in lines[1:] if x.strip() and len(x) - len(x.lstrip()) >= 4]
        assert continued, lang
        assert not [x for x in continued if orphan(x)], lang
        assert all(cell_len(x.rstrip()) <= 72 for x in lines)


async def test_help_uses_the_height_of_a_large_terminal() -> None:
    for size, least in (((80, 24), 18), ((140, 40), 34)):
        app = PreviewApp(scripted_view("play"))
        async with app.run_test(size=size) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()
            dialog = app.screen.query_one("#help")
            assert least <= dialog.outer_size.height <= size[1], (size, dialog.outer_size)


def test_the_message_line_rules() -> None:
    line = StatusLine()
    assert line.put("it is not your turn", True) and line.text == "It is not your turn"
    assert not line.put("it is not your turn", True)  # the same line twice: nothing to draw
    assert line.moved_on() and line.text == "" and not line.error
    assert not line.moved_on()  # news that is not an error stays
    assert line.put("Your turn.", False) and line.text == "Your turn."
    assert line.put("Deal annulled: x.", False, prompt="Deal annulled: x.")
    assert line.text == ""  # the prompt says it already
    assert line.put("说明", False) and line.text == "说明"


async def test_an_annulled_deal_reads_once_and_says_enter() -> None:
    app = PreviewApp(scripted_view("bidding"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.show(scripted_view("annulled"))
        await pilot.pause()
        text = screen_text(app)
        assert "Deal annulled: everyone passed. Continue (Enter)." in text
        assert text.count("Deal annulled: everyone passed") == 1
        assert app.table_screen.query("Button.continue")


async def test_an_error_goes_once_play_moves_on_and_at_game_over() -> None:
    app = PreviewApp(scripted_view("bidding"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.table_screen
        screen.server_error("too fast: wait a moment and try again [rate_limited]")
        await pilot.pause()
        assert "Too fast: wait" in screen_text(app)  # a sentence starts with a capital
        app.show(scripted_view("finished"))
        await pilot.pause()
        assert "Too fast" not in screen_text(app) and not screen.line.error
        # ...and within a deal, once the next move is seen.
        app.show(scripted_view("play"))
        await pilot.pause()
        screen.server_error("it is not your turn [not_your_turn]")
        later = scripted_view("play")
        assert later.deal is not None and later.deal.trick is not None
        later.deal.trick.cards.append("EX")  # one more card on the table
        app.show(later)
        await pilot.pause()
        assert "not your turn" not in screen_text(app)


def test_the_tracker_counts_trumps_not_seen_yet_in_each_language() -> None:
    view = scripted_view("play")
    tracker = table_facts.trump_tracker(view)
    unseen = sum(1 for c in tracker.out if c != "EX")
    expected = {
        "en": f"{unseen} trumps not seen yet",
        "fr": f"{unseen} atouts pas encore vus",
        "zh": f"还有 {unseen} 张将牌未见",
        "ko": f"아직 못 본 으뜸패 {unseen}장",
    }
    for lang, text in expected.items():
        i18n.use(lang)
        panel = table_panels.tracker_panel(view).plain
        assert text in panel and "trumps out" not in panel
        assert "EX" in panel.split("\n")[3]  # the Excuse in the grid, marked as trumps are
        assert all(cell_len(x) <= 25 for x in panel.splitlines())

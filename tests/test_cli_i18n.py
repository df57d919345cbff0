"""The client in four languages (clients/cli/i18n.py, docs/TRANSLATING.md):
the catalogs cover every message of the code with matching placeholders and
up-to-date ``.mo`` files; the language comes from ``--lang`` or the locale;
French cards read and type R/D/C/V; the table screen in each language at
80×24 (SVG snapshots); and ``atout --lang fr`` plays a few moves against a
real server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from clients.cli import catalogs, daily_words, i18n, wording
from clients.cli.__main__ import lang_arg
from clients.cli.cards_text import label
from clients.cli.cards_widget import HandWidget
from protocol.views import DailyDealLine, DailyResultView, LeaderboardLine, LeaderboardView
from tests.support.pilot import (  # noqa: F401 - the fixture
    STRONG_SEED,
    click,
    client,
    pilot_server,
    screen_text,
    shown,
    sit_and_start,
    table,
    until,
)

TRANSLATED = ("fr", "zh", "ko")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    i18n.use("en")


# -- the catalogs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def problems() -> list[str]:
    return catalogs.problems()


def test_every_message_is_translated_in_every_catalog(problems: list[str]) -> None:
    found = [p for p in problems if "missing" in p or "no translation" in p or "fuzzy" in p]
    assert found == []
    # And the catalogs hold what the code marks: a few hundred messages each.
    for lang in TRANSLATED:
        assert len([m for m in catalogs.read_po(lang) if m.id]) > 300


def test_no_catalog_keeps_a_stale_message(problems: list[str]) -> None:
    assert [p for p in problems if "stale" in p] == []


def test_every_translation_has_the_placeholders_of_its_message(problems: list[str]) -> None:
    assert [p for p in problems if "placeholders" in p] == []


def test_the_compiled_catalogs_are_up_to_date(problems: list[str]) -> None:
    assert [p for p in problems if "out of date" in p or "no catalog" in p] == []


def test_the_check_sees_a_missing_translation_and_a_wrong_placeholder() -> None:
    # The checks above pass only if they can fail: the same reading on a spoilt catalog.
    assert catalogs.fields("{who} takes trick {trick}.") == {"{who}", "{trick}"}
    assert catalogs.fields("argument %(argument_name)s: %(message)s") == {
        "%(argument_name)s",
        "%(message)s",
    }
    assert catalogs.fields("{who} fait le pli.") != catalogs.fields("{who} takes trick {trick}.")


def test_every_sentence_about_a_player_renders_in_every_language() -> None:
    fields = {"deal": 2, "trick": 5, "contract": "Garde", "size": 10, "cards": "T1 T2", "n": 6}
    fields["card"] = "K♥"
    for lang in ("en", *TRANSLATED):
        i18n.use(lang)
        for key in wording.ABOUT:
            mine = wording.about(key, "Bot Ada", True, **fields)
            theirs = wording.about(key, "Bot Ada", False, **fields)
            assert "Bot Ada" not in mine and "Bot Ada" in theirs, (lang, key)
            assert "{" not in mine + theirs


def test_plurals_follow_each_language() -> None:
    i18n.use("fr")
    # French: 0 and 1 are singular.
    assert wording.deals(1) == "1 donne" and wording.deals(0) == "0 donne"
    assert wording.deals(8) == "8 donnes"
    i18n.use("en")
    assert wording.deals(0) == "0 deals" and wording.deals(1) == "1 deal"
    i18n.use("zh")
    assert wording.deals(1) == "1 副" and wording.deals(8) == "8 副"


# -- choosing the language ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LC_ALL": "ko_KR.UTF-8", "LANG": "fr_FR.UTF-8"}, "ko"),
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LANGUAGE": "de:zh_CN:fr", "LANG": "fr_FR.UTF-8"}, "zh"),
        ({"LANGUAGE": "de", "LANG": "ko_KR.UTF-8"}, "ko"),
    ],
)
def test_the_locale_chooses_the_language(env: dict[str, str], expected: str) -> None:
    assert i18n.choose(None, env) == expected


def test_lang_wins_over_the_locale() -> None:
    argv = ["connect", "ws://h:1", "--lang", "ko"]
    assert i18n.choose(lang_arg(argv), {"LANG": "fr_FR.UTF-8"}) == "ko"
    assert lang_arg(["--lang=zh"]) == "zh" and lang_arg(["play"]) is None


def test_atout_help_and_usage_errors_speak_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    from clients.cli.__main__ import main

    with pytest.raises(SystemExit) as done:
        main(["--lang", "fr", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "afficher cette aide et quitter" in out and "jouer en français" in out
    # French sets a space before a colon, argparse's section headings too.
    assert "\noptions\u00a0:\n" in out and "\narguments positionnels\u00a0:\n" in out
    with pytest.raises(SystemExit) as done:
        main(["--lang", "fr", "--deals", "0"])  # `atout --lang fr` is `atout play --lang fr`
    assert done.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["atout play: --deals va de 1 à 40 (voir atout play --help)"]


# -- cards ---------------------------------------------------------------------------------


def test_french_cards_read_r_d_c_v_and_both_letters_type() -> None:
    i18n.use("fr")
    assert [label(c) for c in ("KS", "QH", "CD", "JC", "10S", "T21", "EX")] == [
        "R♠",
        "D♥",
        "C♦",
        "V♣",
        "10♠",
        "T21",
        "EX",
    ]
    assert [i18n.code_rank(x) for x in "RDCVKQJ"] == list("KQCJKQJ")
    assert i18n.local_code("QD") == "DD"
    i18n.use("ko")
    assert label("KS") == "K♠"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_card_letters_never_mean_another_english_rank(lang: str) -> None:
    i18n.use(lang)
    letters = i18n.rank_letters()
    assert len(set(letters)) == 4 and letters.isascii() and letters.isupper()
    for english, local in zip(i18n.ENGLISH_RANKS, letters, strict=True):
        # A local letter may be its own English letter, never another rank's.
        assert local == english or local not in i18n.ENGLISH_RANKS
        assert local not in "TEX0123456789"


# -- the table screen in each language (80×24) -------------------------------------------


@pytest.mark.languages  # words and fit: CI runs them on one Python
@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("moment", ["bidding", "play"])
def test_table_in_each_language(snap_compare: Any, lang: str, moment: str) -> None:
    from tests.support.cli_preview import PreviewApp, scripted_view

    i18n.use(lang)

    async def settle(pilot: Any) -> None:
        await pilot.pause()
        text = screen_text(pilot.app)
        assert all(line.rstrip() == line.rstrip()[:80] for line in text.splitlines())

    assert snap_compare(
        PreviewApp(scripted_view(moment)), terminal_size=(80, 24), run_before=settle
    )


def test_no_line_of_the_table_overflows_80_columns_in_any_language() -> None:
    # Every rendered text of the side panels fits its panel width in cells.
    from rich.cells import cell_len

    from clients.cli import table_panels as panels
    from tests.support.cli_preview import scripted_view

    for lang in ("en", *TRANSLATED):
        i18n.use(lang)
        for moment in ("waiting", "bidding", "ecart", "play", "done", "finished"):
            view = scripted_view(moment)
            for line in panels.tracker_panel(view).plain.splitlines():
                assert cell_len(line) <= 25, (lang, moment, line)
            for line in panels.seats_panel(view, 24).plain.splitlines():
                assert cell_len(line) <= 24, (lang, moment, line)


# -- atout --lang fr against a real server ---------------------------------------------------


async def test_atout_lang_fr_plays_a_few_moves_against_a_real_server(
    server: Any,
    tmp_path: Path,
) -> None:
    from tests.support.pilot import url_of

    i18n.use(i18n.choose(lang_arg(["connect", url_of(server), "--lang", "fr"]), {}))
    app = client(url_of(server), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await sit_and_start(pilot, app, deals=1, bot_level="normal", seed=STRONG_SEED)
        await shown(pilot, app, "Votre main (18)", "Scores")
        # The bid buttons carry the French contract names.
        await until(pilot, lambda: table(app).legal.bids, what="our bid")
        await shown(pilot, app, "Garde ×2")
        await click(pilot, ".bid-garde")
        await until(pilot, lambda: table(app).legal.ecart, what="the écart")
        await shown(pilot, app, "Écartez 6")
        view = table(app)
        hand = app.table_screen.query_one("#hand", HandWidget)
        suits = [c for c in view.legal.ecart if not c.startswith("T")]
        for card in suits[:5]:
            assert hand.choose(card)
        # The sixth card typed with its French letters (R, D, V) when it has one.
        sixth = suits[5]
        await pilot.press(*i18n.local_code(sixth))
        assert hand.typed == sixth
        await pilot.press("enter")
        await pilot.pause()
        await shown(pilot, app, "Écarter ces 6 cartes ?")
        await pilot.press("enter")
        await until(pilot, lambda: table(app).legal.chelem, what="the chelem question")
        await click(pilot, ".chelem-no")
        played = 0
        while played < 3:
            await until(pilot, lambda: table(app).legal.cards, what="our turn to play")
            view = table(app)
            card = view.legal.cards[0]
            tricks = len(view.deal.tricks) if view.deal else 0
            await pilot.press(*i18n.local_code(card), "enter")
            await until(
                pilot,
                lambda card=card: card not in table(app).hand,
                what=f"{card} played",
            )
            played += 1
            assert tricks <= 18
        await shown(pilot, app, "Pli")
        text = screen_text(app)
        assert "Your hand" not in text and "Trick" not in text
        assert app.errors == []
        await app.aclose()


# -- the daily game, the leaderboard and the profile in each language ----------------------

BOARD_LINES = [
    LeaderboardLine(position=1, name="Bot Colette", percent=81.25, points=312),
    LeaderboardLine(position=2, name="Alice", percent=73.5, points=164, you=True),
    LeaderboardLine(position=3, name="Marguerite-Héloïse de la Tour", percent=50.0, points=-48),
    LeaderboardLine(position=4, name="王小明", percent=12.0, points=-1164),
]
BOARD = LeaderboardView(
    period="today",
    page=0,
    pages=2,
    total=41,
    lines=BOARD_LINES,
    own=BOARD_LINES[1],
    first_day="2025-06-15",
    last_day="2025-06-15",
)
RESULT = DailyResultView(
    day="2025-06-15",
    ranked=False,
    deals=[
        DailyDealLine(deal=1, points=-1164, percent=0.0, players=1),
        DailyDealLine(deal=2, points=164, percent=73.4, players=41),
        DailyDealLine(deal=3, points=1, percent=50.0, players=2),
    ],
    percent=41.13,
    points=-999,
)
CONTENT = 78
"""Cells inside a one-line Static of the leaderboard (80 less its padding)."""
DIALOG_CONTENT = 72
"""Cells inside the daily result and Help dialogs (max-width 76, a border and padding)."""


def _preview() -> Any:
    from tests.support.cli_preview import PreviewApp, lobby_view

    app = PreviewApp(lobby=lobby_view())
    app.daily.player_id = "p-alice"  # a player, not a guest
    return app


async def _fits(pilot: Any, *texts: str) -> None:
    """Every line of the screen within 80 cells, and each text shown whole."""
    from rich.cells import cell_len

    await pilot.pause()
    shown_text = screen_text(pilot.app)
    assert all(cell_len(line.rstrip()) <= 80 for line in shown_text.splitlines())
    for text in texts:
        assert text in shown_text, (i18n.current, text)


@pytest.mark.languages  # words and fit: CI runs them on one Python
@pytest.mark.parametrize("lang", TRANSLATED)
def test_leaderboard_in_each_language(snap_compare: Any, lang: str) -> None:
    from clients.cli.leaderboard_screen import LeaderboardScreen

    i18n.use(lang)

    async def board(pilot: Any) -> None:
        screen = LeaderboardScreen("today")
        await pilot.app.push_screen(screen)
        await pilot.pause()
        screen.take(BOARD)
        await _fits(
            pilot,
            daily_words.own_line(BOARD.own, False, "today"),
            daily_words.BOARD_KEYS,
            daily_words.PERIODS["yesterday"],
        )

    assert snap_compare(_preview(), terminal_size=(80, 24), run_before=board)


@pytest.mark.languages  # words and fit: CI runs them on one Python
@pytest.mark.parametrize("lang", TRANSLATED)
def test_daily_result_in_each_language(snap_compare: Any, lang: str) -> None:
    from clients.cli.daily_screen import DailyResultScreen

    i18n.use(lang)

    async def result(pilot: Any) -> None:
        await pilot.app.push_screen(DailyResultScreen(RESULT))
        await _fits(pilot, *(daily_words.deal_line(d) for d in RESULT.deals))

    assert snap_compare(_preview(), terminal_size=(80, 24), run_before=result)


@pytest.mark.languages
async def test_every_board_and_the_profile_fit_80_columns_in_every_language() -> None:
    # Each period's board, empty and not, and the profile, drawn at 80×24 in
    # every language: the one-line messages whole, nothing past 80 cells.
    from clients.cli.leaderboard_screen import LeaderboardScreen, ProfileScreen

    for lang in ("en", *TRANSLATED):
        i18n.use(lang)
        app = _preview()
        async with app.run_test(size=(80, 24)) as pilot:
            screen = LeaderboardScreen("today")
            await app.push_screen(screen)
            for period in ("today", "yesterday", "week", "all"):
                screen.action_period(period)
                await pilot.pause()
                screen.take(LeaderboardView(period=period))  # nobody listed
                await _fits(
                    pilot,
                    daily_words.BOARD_EMPTY[period],
                    daily_words.own_line(None, False, period),
                    daily_words.PERIODS[period],
                )
                long = LeaderboardLine(position=1041, name="x", percent=99.99, days=365)
                for text in (
                    daily_words.BOARD_EMPTY[period],
                    daily_words.own_line(None, False, period),
                    daily_words.own_line(None, True, period),
                    daily_words.own_line(long, False, period),
                ):
                    assert cell_len(text) <= CONTENT, (lang, text)
            assert cell_len(daily_words.BOARD_KEYS) <= CONTENT
            assert cell_len(daily_words.board_page(11, 12, 1041)) <= 76  # the border's subtitle
            widths = {"position": 4, "name": 28, "percent": 7, "points": 7, "days": 7}
            for key, head in daily_words.COLUMNS.items():
                assert cell_len(head) <= widths[key], (lang, head)
            await app.push_screen(ProfileScreen())
            await _fits(pilot, daily_words.PROFILE_BOARDS, daily_words.period_label("all"))
            await app.aclose()
        # The daily result's lines stay within its dialog at their longest.
        every_form = [  # inexact, all beaten, none, all tied, beaten and tied (given)
            DailyDealLine(deal=12, points=-1164, percent=p, players=1041) for p in (99.6, 100, 0)
        ] + [DailyDealLine(deal=12, points=-1164, percent=50, players=2)]
        # The counts as the server may send them (``daily_words.comparison``).
        given = DailyDealLine(
            deal=12, points=-1164, percent=98.08, players=1041, others=1040, beaten=1000, tied=40
        )
        for text in (
            *(
                daily_words.deal_line(d, annulled)
                for d in [*every_form, given]
                for annulled in (False, True)
            ),
            daily_words.deal_line(DailyDealLine(deal=12, points=-1164, percent=0, players=1)),
            daily_words.result_summary(DailyResultView(day="", ranked=True, points=-1164)),
            daily_words.RESULT_PRACTICE,
            daily_words.RESULT_KEYS,
        ):
            assert cell_len(text) <= DIALOG_CONTENT, (lang, text)


def test_the_daily_words_count_in_each_language() -> None:
    d = DailyDealLine(deal=2, points=164, percent=73.4, players=41)
    i18n.use("en")
    assert (
        daily_words.deal_line(d) == "Deal 2: +164 points, better than 73% of 40 others (ties half)"
    )
    assert daily_words.points(1) == "+1 point" and daily_words.points(0) == "+0 points"
    assert daily_words.board_page(0, 1, 1) == "1 player"
    # Nobody else played today: no average to speak of (issue 34).
    first = DailyResultView(
        day="",
        ranked=True,
        points=-30,
        percent=50,
        deals=[DailyDealLine(deal=1, points=-30, percent=50, players=1)],
    )
    assert daily_words.result_summary(first) == "Your day: first to play today, −30 points in all."
    i18n.use("fr")
    assert (
        daily_words.deal_line(d)
        == "Donne 2 : +164 points, mieux que 73 % des 40 autres (égalités ½)"
    )
    # French: 0 and 1 are singular, -1 too (the count is the number of points).
    assert daily_words.points(1) == "+1 point" and daily_words.points(-1) == "−1 point"
    assert daily_words.points(-2) == "−2 points" and daily_words.days(1) == "1 jour"
    assert daily_words.board_page(0, 1, 1) == "1 joueur"
    assert daily_words.board_page(1, 3, 41) == "page 2 sur 3 · 41 joueurs"
    assert daily_words.percent(73.25) == "73,25 %"  # the French decimal comma
    stats = daily_words.profile_stats(3, 1, 12, 4, 3, -12.5)
    assert stats[0].endswith("3 (1 classée)") and "75 % (3 sur 4)" in stats[2]
    assert stats[3].endswith("−12,5 par donne")
    assert _value_columns(stats, " : ") == 1
    i18n.use("zh")
    assert daily_words.deal_line(d) == "第 2 副：+164 分，胜过其他 40 人中的 73%（平局算一半）"
    # The values line up in cells although each label character takes two.
    assert _value_columns(daily_words.profile_stats(3, 1, 12, 4, 3, 2.25), "：") == 1
    i18n.use("ko")
    assert daily_words.board_page(0, 1, 41) == "플레이어 41명"
    assert daily_words.deal_line(d) == "딜 2: +164점, 다른 40명 중 73%보다 잘함 (동점은 절반)"


def _value_columns(lines: list[str], colon: str) -> int:
    """How many different cell columns the values after ``label colon`` start at."""
    starts = set()
    for line in lines:
        value = line.split(colon, 1)[1].lstrip()
        starts.add(cell_len(line) - cell_len(value))
    return len(starts)


def test_atout_daily_and_key_speak_the_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from clients.cli.__main__ import main

    with pytest.raises(SystemExit) as done:
        main(["daily", "--lang", "fr", "--help"])  # `daily`, not `play daily`
    assert done.value.code == 0
    assert "votre nom la première fois" in capsys.readouterr().out
    monkeypatch.setenv("ATOUT_CONFIG_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as done:
        main(["--lang", "ko", "key", "export", "ws://127.0.0.1:1"])
    assert done.value.code == 1
    assert "플레이어 키가 아직 없습니다" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["--lang", "zh", "key", "import", "ws://127.0.0.1:1", "not-a-key"])
    assert done.value.code == 2
    assert "玩家密钥是 32 位十六进制数字" in capsys.readouterr().err

"""Every screen of the terminal client, in every language, fits 80×24 without
a cut word (issue 27, item 6); and the wide cases at 140×40.

Each test tours one app through its screens — the table in each phase (and
the last trick, the poignée and écart pickers, a spectator's view), its
dialogs (score sheet, past deals and a replay, chat, help, leave and quit
questions, the écart confirmation), the lobby (full and empty) with its
dialogs, the leaderboard, the profile and the daily result — and collects
every cut ``tests.support.cli_cuts`` finds: a word clipped, folded or shortened with
"…", a footer key off the screen. The failure lists them all, each with
where it was seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from clients.cli import i18n, wording
from clients.cli import table_facts as facts
from clients.cli.catalogs import OWN_SCRIPT, french_terms, read_po
from clients.cli.daily_screen import DailyResultScreen
from clients.cli.dialogs import Confirm
from clients.cli.leaderboard_screen import LeaderboardScreen, ProfileScreen
from protocol.views import (
    DailyDealLine,
    DailyResultView,
    DealLine,
    LeaderboardLine,
    LeaderboardView,
    LobbyView,
)
from tests.support.cli_cuts import cuts, intended_ellipses
from tests.support.cli_preview import (
    VARIANT_MOMENTS,
    PreviewApp,
    lobby_view,
    scripted_game,
    scripted_view,
    variant_view,
)
from tests.support.pilot import screen_text

pytestmark = pytest.mark.languages  # words and fit: CI runs them on one Python

LANGS = ("en", "fr", "zh", "ko")
FIVE_ONLY = ("call", "partner", "alone")
"""The called card's moments: a table of three has none."""
SIZES = {"80x24": (80, 24), "140x40": (140, 40)}

BOARD_LINES = [
    LeaderboardLine(position=1, name="Bot Colette", percent=81.25, points=312),
    LeaderboardLine(position=2, name="Alice", percent=73.5, points=164, you=True),
    LeaderboardLine(position=3, name="王小明", percent=12.0, points=-1164),
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
    ranked=True,
    deals=[
        DailyDealLine(deal=1, points=-1164, percent=0.0, players=1),
        DailyDealLine(deal=2, points=164, percent=73.4, players=41),
    ],
    percent=41.13,
    points=-999,
)


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    i18n.use("en")


def english_leftovers(lang: str) -> list[str]:
    """English messages that must not show in ``lang``: whole phrases of two
    words or more, without fields, whose translation differs (issue 34)."""
    if lang == "en":
        return []
    out = []
    for message in read_po(lang):
        msgid = message.id
        if not isinstance(msgid, str) or message.context or "{" in msgid or "%" in msgid:
            continue
        text = message.string
        translated = isinstance(text, str) and text and text != msgid and msgid not in text
        if translated and len(msgid.split()) >= 2 and len(msgid) >= 8 and "\n" not in msgid:
            out.append(msgid)
    return out


DATA_NAMES = [t.name for t in lobby_view().tables]
"""Names the preview's players gave their tables ("Quick play" is one): data,
not the client's words, so no sign of a missing translation."""


class Tour:
    """Looks at each screen in turn and keeps what was cut, what was left in
    English, and numbers written the English way in French, and where."""

    def __init__(self, pilot: Any, lang: str) -> None:
        self.pilot = pilot
        self.lang = lang
        self.allowed = intended_ellipses(lang)
        self.english = [
            (m, re.compile(rf"(?<![\w'’]){re.escape(m)}(?![\w'’])"))
            for m in english_leftovers(lang)
        ]
        self.found: list[str] = []

    async def look(self, what: str) -> None:
        await self.pilot.pause()
        await self.pilot.pause()
        for cut in cuts(self.pilot.app.screen, self.allowed):
            self.found.append(f"{what}: {cut}")
        text = " ".join(screen_text(self.pilot.app).split())
        for name in DATA_NAMES:
            text = text.replace(name, " ")
        self.found += [
            f"{what}: untranslated {m!r}" for m, found in self.english if found.search(text)
        ]
        if self.lang in OWN_SCRIPT:  # Korean writes "Garde" in Hangul, Chinese translates it
            self.found += [f"{what}: {t!r} in Latin letters" for t in french_terms(text)]
        if self.lang == "fr":
            for number in re.findall(r"(?<![\w.:/-])\d+\.\d+(?![\w.])|\d%", text):
                self.found.append(f"{what}: {number!r} written the English way")

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.pilot.pause()

    def check(self) -> None:
        assert self.found == [], "cut, untranslated or English numbers:\n" + "\n".join(self.found)


def _sheet(view: Any) -> Any:
    view.sheet = [
        DealLine(
            number=1, dealer=3, taker=2, contract="garde_contre", made=False,
            scores=[120, 120, -360, 120],
        ),
        DealLine(number=2, dealer=0, annulled="petit_sec"),
        DealLine(
            number=2, dealer=1, taker=0, contract="prise", made=True,
            scores=[150, -50, -50, -50],
        ),
    ]  # fmt: skip
    view.scores = [270, 70, -410, 70]
    return view


def _colette_took_the_last_trick(view: Any) -> Any:
    """The view with its seats' names swapped so that the longest bot name
    (the server's "Bot Colette") is the last trick's taker."""
    last = facts.last_trick(view.deal)
    assert last is not None and last.winner is not None
    seats = view.seats
    colette = next(s for s in seats if s.name == "Bot Colette")
    colette.name, seats[last.winner].name = seats[last.winner].name, "Bot Colette"
    return view


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
async def test_the_table_and_its_dialogs_fit(lang: str, size: str) -> None:
    i18n.use(lang)
    app = PreviewApp(scripted_view("waiting"))
    async with app.run_test(size=SIZES[size]) as pilot:
        tour = Tour(pilot, lang)
        await tour.look("waiting")
        for moment in ("bidding", "ecart", "chelem", "poignee", "play"):
            app.table_screen.reset()
            app.show(scripted_view(moment))
            await tour.look(moment)
        # The longest bot name took the last trick: "→ Bot Colette" whole.
        app.show(_colette_took_the_last_trick(scripted_view("play")))
        await tour.look("play, Bot Colette took the last trick")
        # The play moment: the last trick, then every dialog over it.
        await tour.press("l")
        await tour.look("last trick")
        await tour.press("l")
        app.show(_sheet(scripted_view("play")))
        await tour.press("b")
        await tour.look("score sheet")
        await tour.press("escape")
        await tour.press("question_mark")
        await tour.look("help")
        await tour.press("escape")
        await tour.press("m")
        await tour.look("chat")
        await tour.press("escape")
        await tour.press("escape")
        await tour.look("leave question")
        await tour.press("escape")
        after = wording.QUIT_SEAT_KEPT
        app.push_screen(
            Confirm(f"{wording.QUIT_QUESTION}\n{after}", yes=wording.QUIT, no=wording.STAY)
        )
        await tour.look("quit question")
        await tour.press("escape")
        game, _status = scripted_game("done")
        app.table_screen.show_history([game.deal.record()])
        await tour.look("past deals")
        await tour.press("enter")
        await tour.look("replay")
        await tour.press("right", "right")
        await tour.look("replay, third trick")
        await tour.press("escape", "escape")
        # The poignée picker.
        app.table_screen.reset()
        app.show(scripted_view("poignee"))
        await tour.press("p")
        await tour.look("poignée picker")
        # The écart: six cards picked, the confirmation.
        app.table_screen.reset()
        ecart = scripted_view("ecart")
        app.show(ecart)
        await pilot.pause()
        await tour.look("écart picker")
        hand = app.table_screen.query_one("#hand")
        suits = [c for c in ecart.legal.ecart if not c.startswith("T")]
        for card in suits[:6]:
            hand.choose(card)
        await tour.look("écart confirmation")
        await tour.press("escape")
        for moment in ("done", "finished", "annulled"):
            app.table_screen.reset()
            app.show(scripted_view(moment))
            await tour.look(moment)
        app.table_screen.reset()
        app.show(scripted_view("play", you=None))
        await tour.look("spectator")
        tour.check()


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
async def test_tables_of_three_and_five_fit(lang: str, size: str) -> None:
    """Three and five seats in every moment: the trick area, the seats panel
    (one line a seat at five when two do not fit), the call dialog and the
    button that opens it again, the partner revealed, a taker alone, and the
    score sheet with 3 and 5 columns."""
    i18n.use(lang)
    app = PreviewApp(variant_view(5, "waiting"))
    async with app.run_test(size=SIZES[size]) as pilot:
        tour = Tour(pilot, lang)
        for players in (3, 5):
            for moment in VARIANT_MOMENTS:
                if moment in FIVE_ONLY and players == 3:
                    continue
                app.table_screen.reset()
                app.show(variant_view(players, moment))
                await tour.look(f"{players} seats, {moment}")
                if moment == "call":
                    assert app.screen.id != "_default" and "call" in [
                        w.id for w in app.screen.query("#call")
                    ], "the call dialog opens by itself"
                    await tour.press("escape")
                    await tour.look(f"{players} seats, the call button")
                    await tour.press("enter")
                    await tour.look(f"{players} seats, the call dialog again")
                    await tour.press("escape")
                if moment in ("done", "alone"):
                    await tour.press("b")
                    await tour.look(f"{players} seats, {moment}, score sheet")
                    await tour.press("escape")
            app.table_screen.reset()
            app.show(variant_view(players, "play", you=None))
            await tour.look(f"{players} seats, spectator")
        tour.check()


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
async def test_the_lobby_boards_and_daily_result_fit(lang: str, size: str) -> None:
    i18n.use(lang)
    app = PreviewApp(lobby=lobby_view())
    app.daily.player_id = "p-alice"  # a player, not a guest
    async with app.run_test(size=SIZES[size]) as pilot:
        tour = Tour(pilot, lang)
        await tour.look("lobby")
        await tour.press("n")
        await tour.look("new table")
        await tour.press("escape")
        await tour.press("i")
        await tour.look("invite code")
        await tour.press("escape")
        await tour.press("question_mark")
        await tour.look("help")
        await tour.press("escape")
        board = LeaderboardScreen("today")
        await app.push_screen(board)
        await pilot.pause()
        board.take(BOARD)
        await tour.look("leaderboard")
        for period in ("yesterday", "week", "all"):
            board.action_period(period)
            await pilot.pause()
            board.take(LeaderboardView(period=period))
            await tour.look(f"leaderboard, {period}, empty")
        await app.push_screen(ProfileScreen())
        await tour.look("profile")
        await tour.press("escape")
        await tour.press("escape")
        await app.push_screen(DailyResultScreen(RESULT))
        await tour.look("daily result")
        await tour.press("escape")
        app.lobby_screen.update_lobby(LobbyView(players_online=1, tables=[]))
        await tour.look("empty lobby")
        tour.check()

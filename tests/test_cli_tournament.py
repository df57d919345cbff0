"""Tournaments in the terminal client, driven with Textual's Pilot without a
server: views built by hand (``tests.support.tournament_views``) go in as
``tournament`` events, the commands the client would send come out.

The tournament screen as host and as a player, gathering, in play and
finished (your line highlighted), the host's controls (start, remove,
finish with bots once allowed), following the round to your table, a
finished table waiting for its round, errors, the lobby's way in, and the
command line's checks.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, DataTable

from clients.cli import i18n, tournament_command, tournament_words
from clients.cli.__main__ import DEFAULT_URL, parser
from clients.cli.dialogs import Confirm
from clients.cli.leaderboard_screen import OWN_STYLE
from clients.cli.tournament_dialogs import (
    JoinTournament,
    NewTournament,
    RemovePlayer,
    TournamentEntry,
)
from clients.cli.tournament_memory import FileTournaments
from clients.cli.tournament_screen import TournamentScreen
from protocol.messages import (
    Error,
    JoinTable,
    Leave,
    Left,
    Tournament,
    TournamentCreate,
    TournamentFinish,
    TournamentGet,
    TournamentJoin,
    TournamentLeave,
    TournamentRemove,
)
from protocol.messages import (
    TournamentStart as StartCommand,
)
from protocol.tournaments import TournamentSettings, TournamentView
from tests.support.cli_cuts import cuts, intended_ellipses
from tests.support.cli_preview import PreviewApp, lobby_view, scripted_view
from tests.support.pilot import SIZE, click, screen_text
from tests.support.tournament_views import CODE, YOU, pid, tournament_view


def preview(table: Any = None, you: int = YOU) -> Any:
    """An app with no server, as player ``you`` (on the lobby, or at ``table``)."""
    app = PreviewApp(table) if table is not None else PreviewApp(lobby=lobby_view())
    app.tournaments.player_id = pid(you)
    return app


async def settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.pause()


async def take(pilot: Any, app: Any, view: TournamentView, rid: int | None = None) -> None:
    """The server's ``tournament`` event, through the app as any message."""
    app.on_server(Tournament(view=view, rid=rid))
    await settle(pilot)


async def on_tournament_screen(pilot: Any, app: Any, view: TournamentView) -> TournamentScreen:
    await take(pilot, app, view)
    app.show_mode("tournament")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, TournamentScreen)
    return screen


def shown_buttons(screen: TournamentScreen) -> list[str]:
    return [str(b.name) for b in screen.query("#t-buttons Button").results(Button) if b.display]


async def answer_yes(pilot: Any, app: Any) -> None:
    """The question's "yes" (the focus starts on the safe answer)."""
    assert isinstance(app.screen, Confirm)
    assert focused_answer(app) == "no"
    await pilot.press("left", "enter")
    await settle(pilot)


def focused_answer(app: Any) -> str:
    """Which answer of the open question has the focus: "yes" or "no"."""
    focused = app.screen.focused
    assert isinstance(focused, Button)
    return str(focused.id)


def footer_line(app: Any) -> str:
    return screen_text(app).splitlines()[-1]


def standings_rows(screen: TournamentScreen, which: str = "#t-standings") -> list[list[Any]]:
    grid = screen.query_one(which, DataTable)
    return [grid.get_row_at(i) for i in range(grid.row_count)]


# -- the tournament screen ------------------------------------------------------------


async def test_a_gathering_tournament_as_host_shows_its_code_and_the_host_starts_it() -> None:
    app = preview(you=0)
    async with app.run_test(size=SIZE) as pilot:
        screen = await on_tournament_screen(pilot, app, tournament_view(host=True, you=0))
        text = screen_text(app)
        assert " ".join(CODE) in text  # big: spaced, in reverse video
        # The whole command a friend types: the code and this server's address.
        assert f"{' '.join(CODE)}   atout tournament join {CODE} {app.url}" in text
        assert "Free · 3 rounds · 4 deals a round" in text
        assert "Gathering: 9 players so far; start when everyone is here." in text
        assert "Players (9)" in text and "Alice · host" in text
        # No finish before a round; the host, a player too, may still leave.
        assert shown_buttons(screen) == ["start", "remove", "leave"]
        await pilot.press("f")  # not offered: nothing happens
        assert app.sent == []
        await pilot.press("s")
        await settle(pilot)
        assert "Start the tournament with 9 players?" in screen_text(app)
        # Starting is what the host opened it for: Start has the focus.
        assert focused_answer(app) == "yes"
        await pilot.press("enter")
        await settle(pilot)
        assert app.sent == [StartCommand(code=CODE)]


async def test_a_player_sees_no_host_control_and_may_leave_before_the_start() -> None:
    app = preview()
    async with app.run_test(size=SIZE) as pilot:
        screen = await on_tournament_screen(pilot, app, tournament_view())
        assert shown_buttons(screen) == ["leave"]
        assert "Alice starts the tournament." in screen_text(app)
        await pilot.press("s", "x", "f")
        await settle(pilot)
        assert app.sent == [] and app.screen is screen
        await pilot.click("#t-buttons .leave")
        await settle(pilot)
        await answer_yes(pilot, app)
        assert app.sent == [TournamentLeave(code=CODE)]
        assert app.current_mode == "lobby"
        assert app.tournaments.code is None


async def test_the_host_removes_a_player_picked_from_the_list() -> None:
    app = preview(you=0)
    async with app.run_test(size=SIZE) as pilot:
        await on_tournament_screen(pilot, app, tournament_view(host=True, you=0))
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RemovePlayer)
        names = [p.name for p in app.screen.players]
        assert "Alice" not in names and names[0] == "Bob"  # never the host
        await pilot.press("down", "enter")  # the second: Chloé
        await settle(pilot)
        assert "Remove Chloé from the tournament?" in screen_text(app)
        await answer_yes(pilot, app)
        assert app.sent == [TournamentRemove(code=CODE, player_id=pid(2))]


async def test_finish_with_bots_is_offered_once_the_round_timeout_is_past() -> None:
    app = preview(table=scripted_view("play"), you=0)
    async with app.run_test(size=SIZE) as pilot:
        view = tournament_view("playing", host=True, you=0)
        screen = await on_tournament_screen(pilot, app, view)
        app.sent.clear()  # (the flow went to table t1 first)
        assert view.finish_at is not None
        assert shown_buttons(screen) == ["remove", "finish", "table"]
        finish = screen.query_one("#t-buttons .finish", Button)
        assert finish.disabled
        at = time.strftime("%H:%M", time.localtime(view.finish_at))
        assert f"Finish with bots from {at} (in 10 minutes)." in screen_text(app)
        await pilot.press("f")
        await settle(pilot)
        assert app.sent == [] and app.screen is screen
        # The timeout passes: the button comes alive.
        screen.now = lambda: view.finish_at + 1.0  # type: ignore[operator]
        screen._tick()
        await settle(pilot)
        assert not finish.disabled
        await pilot.press("f")
        await settle(pilot)
        await answer_yes(pilot, app)
        assert app.sent == [TournamentFinish(code=CODE)]


async def test_the_standings_highlight_your_line_and_the_final_ones_say_so() -> None:
    app = preview(table=scripted_view("finished"))
    async with app.run_test(size=SIZE) as pilot:
        view = tournament_view("playing", teams=True)
        screen = await on_tournament_screen(pilot, app, view)
        text = screen_text(app)
        assert "Standings" in text and "Round 2 of 3: 2 tables still playing." in text
        assert "▶ Table 1 · 2 of 4 deals" in text  # our table, and who sits where
        assert "Table 2 · 2 of 4 deals" in text and "5 Inès" in text
        rows = standings_rows(screen)
        ours = [r for r in rows if r[1].plain.startswith("▶")]
        assert len(ours) == 1 and ours[0][1].plain == "▶ Chloé"
        assert all(OWN_STYLE in str(span.style) for cell in ours[0] for span in cell.spans)
        assert all(not r[1].spans for r in rows if r is not ours[0])
        grid = screen.query_one("#t-standings", DataTable)
        assert grid.cursor_type == "row" and grid.cursor_row == YOU  # the whole row lit
        teams = standings_rows(screen, "#t-teams")
        assert [r[1].plain.strip() for r in teams] == ["Rouge", "Bleu"]
        await take(pilot, app, tournament_view("finished", teams=True))
        text = screen_text(app)
        assert "Final standings" in text and "Finished after 3 rounds" in text
        assert shown_buttons(screen) == ["table"]


async def test_the_standings_explain_the_scaling_of_a_table_of_five() -> None:
    app = preview(table=scripted_view("finished"))
    async with app.run_test(size=SIZE) as pilot:
        # Free, with a table of 5: its points count x3/4 in the standings.
        await on_tournament_screen(pilot, app, tournament_view("finished"))
        note = "Standings: points scaled to a table of four (×3/4 at 5)."
        assert note in screen_text(app)
        view = tournament_view("finished")
        view.settings.format = "duplicate"  # percentages: nothing scaled
        await take(pilot, app, view)
        assert "scaled" not in screen_text(app)
        view = tournament_view("finished")
        view.tables = view.tables[:1]  # one table of four: nothing scaled
        await take(pilot, app, view)
        assert "scaled" not in screen_text(app)


async def test_free_scores_read_as_points_and_duplicate_ones_as_percentages() -> None:
    app = preview(table=scripted_view("finished"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await on_tournament_screen(pilot, app, tournament_view("playing"))
        assert [r[2].plain for r in standings_rows(screen)][:3] == ["300", "224.50", "149"]
        view = tournament_view("playing")
        view.settings.format = "duplicate"
        await take(pilot, app, view)
        assert standings_rows(screen)[1][2].plain == "224.50%"


# -- following the rounds ------------------------------------------------------------------


async def test_a_new_round_leads_from_the_finished_table_to_your_new_one() -> None:
    table = scripted_view("finished")
    table.table_id = "t1"
    app = preview(table=table)
    async with app.run_test(size=SIZE) as pilot:
        # Round 2 seats us at t1, where we are: nothing to do.
        await take(pilot, app, tournament_view("playing"))
        assert app.sent == []
        # Round 3 seats us at t2: leave t1 (finished), and once the server
        # says we left it (a join while seated is refused), join t2.
        await take(pilot, app, tournament_view("playing", round=3, your_table="t2"))
        assert app.sent == [Leave()]
        # The round that ended is said with the standings by name: the
        # leaders, then our own line (Chloé is third: no more names).
        said = [n.message for n in app._notifications]
        assert said == [
            "Round 2 is over: 1. Alice 300 · 2. Bob 224.50 · 3. Chloé 149 — o: standings"
        ]
        # The same view again (any other change of the round): no second move.
        await take(pilot, app, tournament_view("playing", round=3, your_table="t2", waiting_for=1))
        assert app.sent == [Leave()]
        app.table_screen.say("Dan takes the last trick (18).")  # the old table's news
        app.table_screen.view = None  # the server's ``left`` as the link takes it
        app.on_server(Left(table_id="t1", reason="you left the table"))
        await settle(pilot)
        # Nothing said at the old table stays for the next one (it did: the
        # last trick, who was the partner, over the next round's bidding).
        assert app.table_screen.line.text == ""
        assert app.sent == [Leave(), JoinTable(table_id="t2")]
        assert app.current_mode == "tournament"
        assert "Round 3: to your seat at table 2…" in screen_text(app)


async def test_resumed_or_fresh_a_player_is_led_to_its_seat() -> None:
    app = preview()
    async with app.run_test(size=SIZE) as pilot:
        # At no table (a restart, before the seat is resumed): join it.
        await take(pilot, app, tournament_view("playing"))
        assert app.sent == [JoinTable(table_id="t1")]


async def test_a_finished_table_waits_for_the_round_and_o_opens_the_standings() -> None:
    table = scripted_view("finished")
    table.table_id = "t1"
    app = preview(table=table)
    async with app.run_test(size=SIZE) as pilot:
        # Our table is over: the view names none to sit at (docs/PROTOCOL.md §12.2).
        await take(pilot, app, tournament_view("playing", your_table=None))
        assert app.current_mode == "table" and app.sent == []
        text = screen_text(app)
        assert "o Tournament" in footer_line(app)  # the key the prompt names is offered
        assert "Round 2 of 3: waiting for 2 tables — o: standings" in text
        assert not list(app.screen.query(".again"))  # no "play again" at a tournament table
        await take(pilot, app, tournament_view("playing", your_table=None, waiting_for=1))
        assert "waiting for 1 table — o: standings" in screen_text(app)
        await pilot.press("o")
        await settle(pilot)
        assert app.current_mode == "tournament" and "Standings" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert app.current_mode == "table"
        # The last round ends: the final standings open by themselves, with
        # no line left from before (the move to a table that is no more).
        app.tournaments.screen.say("Round 3: to your seat at table 2…")
        app.notify("Round 2 is over: 1. Alice 300 — o: standings", timeout=12)
        await settle(pilot)
        assert list(app._notifications)
        await take(pilot, app, tournament_view("finished"))
        assert app.current_mode == "tournament"
        text = screen_text(app)
        assert "Final standings" in text and "to your seat" not in text
        assert "Finished after 3 rounds: the final standings." in text
        # Nothing of the last round is left: neither its tables (the left
        # panel lists the players) nor the toast of the round before.
        assert "Table 1" not in text and "Round 3 of 3" not in text
        assert "Players (" in text
        assert list(app._notifications) == []


async def test_o_at_a_table_outside_any_tournament_says_so() -> None:
    app = preview(table=scripted_view("play"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.table_screen.query_one("#hand").focus()
        assert "o Tournament" not in footer_line(app)  # in Help, not offered here
        await pilot.press("o")
        await settle(pilot)
        assert app.current_mode == "table"
        said = [n.message for n in app._notifications]  # a toast, drawn on its own layer
        assert said == ["You are in no tournament: t in the lobby creates or joins one."]


# -- joining again, and errors -----------------------------------------------------------


def _join_app(you: int = YOU) -> Any:
    app = PreviewApp(lobby=lobby_view())
    app.tournaments.start = TournamentEntry(code=CODE)
    app.tournaments.code = CODE
    return app


async def _joined_again(pilot: Any, app: Any, code: str, view: TournamentView) -> None:
    """``atout tournament join CODE`` once more: refused with ``code``, then the view."""
    app.tournaments.online()
    app.tournaments.player_id = pid(YOU)
    join = app.sent[-1]
    assert join == TournamentJoin(code=CODE)
    join.rid = 7  # as the session numbers it when it sends it
    app.on_server(Error(code=code, message=f"the server says {code}", rid=7))
    assert app.sent[-1] == TournamentGet(code=CODE)
    await take(pilot, app, view)


async def test_joining_again_a_tournament_one_is_in_goes_back_to_it_quietly() -> None:
    app = _join_app()
    async with app.run_test(size=SIZE) as pilot:
        await _joined_again(pilot, app, "tournament_started", tournament_view("playing"))
        assert app.errors == []
        assert app.sent[-1] == JoinTable(table_id="t1")  # back to our seat


async def test_a_started_tournament_one_is_not_in_is_said_with_its_code() -> None:
    app = _join_app()
    async with app.run_test(size=SIZE) as pilot:
        stranger = tournament_view("playing", you=99)
        stranger.players = [p for p in stranger.players if p.player_id != pid(YOU)]
        stranger.your_table = None
        await _joined_again(pilot, app, "tournament_started", stranger)
        assert app.errors == ["The server says tournament_started [tournament_started]"]


async def test_server_errors_show_on_the_tournament_screen_with_their_code() -> None:
    app = preview(you=0)
    async with app.run_test(size=SIZE) as pilot:
        await on_tournament_screen(pilot, app, tournament_view(host=True, you=0))
        app.on_server(Error(code="too_few_players", message="too few players to start", rid=3))
        await settle(pilot)
        assert "Too few players to start [too_few_players]" in screen_text(app)


async def test_errors_read_in_the_language_with_their_code() -> None:
    i18n.use("fr")
    try:
        app = preview(you=0)
        async with app.run_test(size=SIZE) as pilot:
            await on_tournament_screen(pilot, app, tournament_view(host=True, you=0))
            app.on_server(Error(code="not_host", message="only the host", rid=3))
            await settle(pilot)
            assert "[not_host]" in app.errors[-1] and "only the host" not in app.errors[-1]
    finally:
        i18n.use("en")


# -- remembered for the next start --------------------------------------------------------


async def test_the_tournament_one_plays_in_is_followed_again_at_the_next_start() -> None:
    app = preview()
    async with app.run_test(size=SIZE) as pilot:
        flow = app.tournaments
        await take(pilot, app, tournament_view())
        assert flow.memory.get(flow.key) == CODE  # we play in it
        # The next start (any command): the remembered one is asked for.
        flow.code, flow.view = None, None
        flow.online()
        recall = app.sent[-1]
        assert recall == TournamentGet(code=CODE)
        recall.rid = 9
        await take(pilot, app, tournament_view(), rid=9)
        said = [n.message for n in app._notifications]
        assert said == ["You are in the tournament Vendredi: t in the lobby shows it."]
        assert app.current_mode == "lobby"  # nothing to sit at yet: no screen forced
        # Over: forgotten.
        await take(pilot, app, tournament_view("finished"))
        assert flow.memory.get(flow.key) is None


async def test_a_remembered_tournament_that_is_gone_is_forgotten_quietly() -> None:
    app = preview()
    async with app.run_test(size=SIZE) as pilot:
        flow = app.tournaments
        flow.memory.save(flow.key, CODE)
        flow.online()
        app.sent[-1].rid = 5
        app.on_server(Error(code="no_such_tournament", message="no tournament", rid=5))
        await settle(pilot)
        assert app.errors == [] and flow.code is None
        assert flow.memory.get(flow.key) is None


def test_the_remembered_tournaments_are_a_private_file(tmp_path: Path) -> None:
    memory = FileTournaments(tmp_path)
    assert memory.get("ws://a:1 as alice") is None
    memory.save("WS://A:1 as alice", CODE)
    assert FileTournaments(tmp_path).get("ws://a:1 as alice") == CODE
    assert stat.S_IMODE(os.stat(tmp_path / "tournaments.json").st_mode) == 0o600
    memory.forget("ws://a:1 as alice")
    assert memory.get("ws://a:1 as alice") is None
    (tmp_path / "tournaments.json").write_text("{damaged")
    assert memory.get("ws://a:1 as alice") is None  # nothing to follow, no crash
    memory.save("ws://a:1 as alice", CODE)
    assert memory.get("ws://a:1 as alice") == CODE


# -- the lobby's way in ----------------------------------------------------------------------


async def test_the_lobby_joins_a_tournament_by_its_code() -> None:
    app = preview()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Tournament" in screen_text(app)  # the lobby's button
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, JoinTournament)
        await pilot.press("enter")
        await settle(pilot)
        assert "Type the code the host sees" in screen_text(app)
        await pilot.press(*"k7q x2p")
        await pilot.press("enter")
        await settle(pilot)
        assert app.sent == [TournamentJoin(code=CODE)]
        assert app.current_mode == "tournament"
        assert f"Joining tournament {CODE}…" in screen_text(app)
        await take(pilot, app, tournament_view())
        assert "Gathering: 9 players so far" in screen_text(app)


async def test_the_lobby_creates_a_tournament_with_a_checked_form() -> None:
    app = preview()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        await pilot.click("#create")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, NewTournament)
        rounds = form.query_one("#rounds")
        rounds.value = "0"  # type: ignore[attr-defined]
        await pilot.click("#create")
        await settle(pilot)
        assert "A tournament has 1 to 12 rounds." in screen_text(app)
        assert app.sent == []
        rounds.value = "5"  # type: ignore[attr-defined]
        form.query_one("#t-deals").value = "6"  # type: ignore[attr-defined]
        await click(pilot, "#create")
        await settle(pilot)
        assert len(app.sent) == 1 and isinstance(app.sent[0], TournamentCreate)
        settings = app.sent[0].settings
        assert (settings.name, settings.rounds, settings.deals) == ("Alice's tournament", 5, 6)
        assert (settings.format, settings.team_size, settings.round_timeout) == ("free", 0, 1800.0)
        assert app.current_mode == "tournament"
        assert "Creating the tournament…" in screen_text(app)
        # The answer names the code: the host joins it, as its players do.
        app.sent[0].rid = 4  # as the session numbers it when it sends it
        await take(pilot, app, tournament_view(host=True, you=0, players=[]), rid=4)
        assert app.sent[1:] == [TournamentJoin(code=CODE)]


# -- the command line --------------------------------------------------------------------


def _args(*argv: str) -> Any:
    args = parser().parse_args(["tournament", *argv])
    tournament_command.check(args, DEFAULT_URL)
    return args


def test_create_builds_the_settings_the_host_asked_for() -> None:
    args = _args(
        "create", "ws://h:1", "--title", "Vendredi", "--rounds", "5", "--deals", "6",
        "--format", "duplicate", "--teams", "2", "--team", "Rouges", "--bots-fill",
        "--bot-level", "strong", "--round-timeout", "900",
    )  # fmt: skip
    assert args.url == "ws://h:1"
    assert tournament_command.start(args) == TournamentEntry(
        settings=TournamentSettings(
            name="Vendredi",
            rounds=5,
            deals=6,
            format="duplicate",
            team_size=2,
            bot_level="strong",
            bots_fill=True,
            round_timeout=900.0,
        ),
        team="Rouges",
    )
    default = _args("create", "--name", "Bob")
    assert default.url == DEFAULT_URL
    assert default.settings == TournamentSettings(name="Bob's tournament")


def test_join_takes_its_code_and_url_in_either_order() -> None:
    for argv in (["k7qx2p", "ws://h:1"], ["ws://h:1", "K7QX2P"]):
        args = _args("join", *argv, "--team", " Les  Rouges ")
        assert (args.url, args.code, args.team) == ("ws://h:1", CODE, "Les Rouges")
        assert tournament_command.start(args) == TournamentEntry(code=CODE, team="Les Rouges")
    assert _args("join", "abc234").url == DEFAULT_URL


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["create", "--rounds", "0"], "A tournament has 1 to 12 rounds."),
        (["create", "--rounds", "13"], "A tournament has 1 to 12 rounds."),
        (["create", "--deals", "1000"], "A round has 1 to 24 deals."),
        (["create", "--round-timeout", "59"], "60 to 86400 seconds"),
        (["create", "--teams", "2"], "name yours"),
        (["create", "--team", "Rouges"], "has no teams"),
        (["create", "--title", "x" * 41], "at most 40 characters"),
        (["join", "K7-QX"], "letters and digits"),
        (["join", "ws://a:1", "ws://b:2"], "give the tournament's code"),
        (["join", "K7QX2P", "--team", "x" * 25], "at most 24 characters"),
    ],
)
def test_absurd_settings_are_refused_before_any_screen(argv: list[str], says: str) -> None:
    with pytest.raises(tournament_command.TournamentUsage, match=says.replace(".", r"\.")):
        _args(*argv)


def test_the_teams_option_takes_only_the_sizes_there_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        parser().parse_args(["tournament", "create", "--teams", "3"])
    assert stop.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


# -- every screen fits, in every language ----------------------------------------------

LANGS = ("en", "fr", "zh", "ko")
SIZES = {"80x24": (80, 24), "140x40": (140, 40)}


@pytest.fixture
def english_after() -> Any:
    yield
    i18n.use("en")


@pytest.mark.languages  # words and fit: CI runs them on one Python
@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("lang", LANGS)
async def test_the_tournament_screens_and_dialogs_fit(
    lang: str, size: str, english_after: None
) -> None:
    """No word cut (``tests.support.cli_cuts``) on the tournament screen in
    each state, its dialogs, the lobby's way in, and a finished table's line."""
    i18n.use(lang)
    table = scripted_view("finished")
    table.table_id = "t1"
    app = preview(table=table, you=0)
    found: list[str] = []
    allowed = intended_ellipses(lang)
    async with app.run_test(size=SIZES[size]) as pilot:

        async def look(what: str) -> None:
            await settle(pilot)
            found.extend(f"{what}: {cut}" for cut in cuts(app.screen, allowed))

        # The round goes on: the finished table says so.
        await take(pilot, app, tournament_view("playing", host=True, you=0, teams=True))
        await look("a finished table waiting for its round")
        await pilot.press("o")
        await look("in play, as host, with teams")
        await pilot.press("x")
        await look("remove a player")
        await pilot.press("escape")
        screen = app.screen
        assert isinstance(screen, TournamentScreen)
        screen.now = lambda: time.time() + 3600
        screen._tick()
        await pilot.press("f")
        await look("finish question")
        await pilot.press("escape")
        await take(pilot, app, tournament_view("finished", you=0, teams=True))
        await look("final standings")
        await take(pilot, app, tournament_view(host=True, you=0))
        await look("gathering, as host")
        await pilot.press("s")
        await look("start question")
        await pilot.press("escape")
        await take(pilot, app, tournament_view(you=0))
        await look("gathering, as a player")
        await pilot.press("question_mark")
        await look("help")
        await pilot.press("escape")
        app.tournaments.screen.wait_for(str(tournament_words.CREATING))
        await look("creating")
        app.show_mode("lobby")
        await look("lobby")
        await pilot.press("t")
        await look("join a tournament")
        await pilot.click("#create")
        await look("new tournament")
    assert found == [], "cut words:\n" + "\n".join(found)


def test_a_usage_mistake_is_one_line_before_any_screen() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "clients.cli", "tournament", "create", "--deals", "25"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "ATOUT_LOG": os.devnull},
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "atout tournament: A round has 1 to 24 deals. (see atout tournament --help)\n"
    )

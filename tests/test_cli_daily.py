"""The daily game from the terminal client, against a real in-process server
(memory store) driven with Textual's Pilot: players with keys, today's game
to its results, the same deals for two players, one leaderboard with our
own line highlighted, the profile, and a key carried to a second config
folder that plays on as the same player.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from clients.cli import daily_words, key_command
from clients.cli.__main__ import DEFAULT_URL, normalize_url, parser
from clients.cli.app import AtoutApp
from clients.cli.daily_history import FileHistory
from clients.cli.daily_screen import DailyResultScreen
from clients.cli.dialogs import Confirm
from clients.cli.keys import FileKeys
from clients.cli.leaderboard_screen import OWN_STYLE, LeaderboardScreen, ProfileScreen
from clients.cli.tokens import FileTokens, seat_key
from protocol.messages import Daily
from server.base.players import key_digest
from server.process.app import Server
from tests.support.clients import choose, wants_decision
from tests.support.pilot import SIZE, click, screen_text, shown, table, until
from tests.support.servers import FAST, running

DAY = 1_750_000_000.0  # 2025-06-15, 15:06 UTC


def player(srv: Server, folder: Path, name: str, **kw: Any) -> AtoutApp:
    """``atout daily URL --name NAME`` with its own config folder."""
    return AtoutApp(
        url=f"ws://127.0.0.1:{srv.port}",
        name=name,
        tokens=FileTokens(folder),
        keys=FileKeys(folder),
        history=FileHistory(folder),
        daily=kw.pop("daily", True),
        base_delay=0.05,
        **kw,
    )


async def first_hand(pilot: Any, app: AtoutApp) -> list[str]:
    await until(
        pilot,
        lambda: app.link and app.link.table and len(app.link.table.hand) == 18,
        what="the first hand",
    )
    return list(table(app).hand)


async def play_out(pilot: Any, app: AtoutApp, rng: random.Random) -> None:
    """Legal moves sent through the app whenever the view asks, to the game's end."""
    while table(app).status != "finished":
        view = table(app)
        if not wants_decision(view):
            await pilot.pause(0.02)
            continue
        seq = app.link.session.table_seq
        app.send(choose(view, rng))
        await until(
            pilot,
            lambda seq=seq: app.link.session.table_seq != seq or app.errors,
            what="the server to take the move",
        )
        assert app.errors == []


def board_rows(app: AtoutApp) -> list[list[Any]]:
    screen = app.screen
    assert isinstance(screen, LeaderboardScreen)
    grid = screen.query_one("#board")
    return [grid.get_row_at(i) for i in range(grid.row_count)]  # type: ignore[attr-defined]


@pytest.fixture
async def server() -> Any:
    # A long grace: bots must not finish a player's game while they move machines.
    async with running(FAST, daily_deals=2, grace=60.0, log_level="warning") as srv:
        srv.daily.clock = lambda: DAY
        yield srv


async def play_daily(srv: Server, folder: Path, name: str, players: int) -> list[str]:
    """``atout daily`` as ``name``, to the result, the leaderboard and the profile."""
    app = player(srv, folder, name)
    async with app.run_test(size=SIZE) as pilot:
        hand = await first_hand(pilot, app)
        assert table(app).name.startswith("Daily")
        assert app.daily.player_id is not None and app.player_name == name
        await play_out(pilot, app, random.Random(name))
        await until(pilot, lambda: isinstance(app.screen, DailyResultScreen), what="the result")
        result = app.daily.results[-1]
        assert result.ranked and len(result.deals) == 2
        assert [d.players for d in result.deals] == [players, players]
        if players > 1:
            # Against the one other player, never against ourselves.
            text = daily_words.deal_line(result.deals[1])
            assert any(w in text for w in ("better than 1 of 1", "tied with the 1", "behind the 1"))
            await shown(pilot, app, text)
        else:
            await shown(pilot, app, "the first result on this deal today")
        await shown(pilot, app, "Deal 1:", "Deal 2:", "Your day:")
        # Then the leaderboard, today's, with our line highlighted.
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await until(pilot, lambda: len(board_rows(app)) == players, what="the board")
        rows = board_rows(app)
        assert len({r[1].plain for r in rows}) == players
        ours = [r for r in rows if r[1].plain.lstrip("▶ ") == name]
        assert len(ours) == 1 and ours[0][1].plain.startswith("▶")
        assert all(OWN_STYLE in str(span.style) for span in ours[0][1].spans)
        others = [r for r in rows if r is not ours[0]]
        assert all(not r[1].plain.startswith("▶") and not r[1].spans for r in others)
        grid = app.screen.query_one("#board")
        assert grid.cursor_type == "row" and grid.cursor_row == rows.index(ours[0])  # type: ignore[attr-defined]
        await shown(pilot, app, "Today", "Yesterday", "7 days", "All time", "You: #")
        # Other periods: nobody has 3 days yet.
        await pilot.press("4")
        await shown(pilot, app, "Nobody has played 3 days yet", "You are not listed yet")
        # The profile: our lines and this computer's statistics.
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await shown(pilot, app, name, "Today:", "Games:         1 (1 ranked)")
        await shown(pilot, app, "Deals:         2", "Taker success:", "per deal")
        # The finished daily table offers Leave, not "Play again" (which the
        # server refuses: one ranked game a day; practice is the lobby's d).
        while len(app.screen_stack) > 1:
            app.pop_screen()
        await until(pilot, lambda: bool(app.table_screen.query("Button.leave")), what="leave")
        assert not app.table_screen.query("Button.again")
        assert app.errors == []
        await app.aclose()
    return hand


async def test_two_players_play_the_same_deals_to_the_results_and_one_leaderboard(
    server: Server, tmp_path: Path
) -> None:
    ann = await play_daily(server, tmp_path / "Ann", "Ann", players=1)
    bob = await play_daily(server, tmp_path / "Bob", "Bob", players=2)
    assert ann == bob  # the same deals for everyone
    _, total = await server.daily.board.page("today", DAY, 0, 20)
    assert total == 2


async def test_after_the_daily_game_d_asks_before_a_practice_game_that_says_what_it_is(
    server: Server, tmp_path: Path
) -> None:
    app = player(server, tmp_path / "Ann", "Ann")
    app.daily.today = lambda: "2025-06-15"  # the server's day (its clock is set to DAY)
    async with app.run_test(size=SIZE) as pilot:
        await first_hand(pilot, app)
        await play_out(pilot, app, random.Random("Ann"))
        await until(pilot, lambda: isinstance(app.screen, DailyResultScreen), what="the result")
        await pilot.press("escape")
        ranked_table = table(app).table_id
        # The finished daily table: its count, and no "play again" in words.
        await shown(pilot, app, "game over · 2 deals", "Game over: Esc to leave.")
        # After the game, Esc leaves: no question (issue 34).
        await pilot.press("escape")
        await until(pilot, lambda: app.current_mode == "lobby", what="the lobby")
        assert not isinstance(app.screen, Confirm)
        assert app.daily.results[-1].ranked
        # d now asks first; No (Esc) starts nothing.
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm), what="the question")
        await shown(pilot, app, "You have played today's daily game.", "It is not ranked.")
        sent: list[Any] = []
        real_send = app.send

        def send(cmd: Any) -> None:
            sent.append(cmd)
            real_send(cmd)

        app.send = send  # type: ignore[method-assign]
        await pilot.press("escape")
        # The answer is acted on as the question closes: nothing was sent.
        await until(pilot, lambda: not isinstance(app.screen, Confirm), what="the question gone")
        app.send = real_send  # type: ignore[method-assign]
        assert not [cmd for cmd in sent if isinstance(cmd, Daily)]
        assert app.current_mode == "lobby"
        assert app.link.table is None or app.link.table.table_id == ranked_table
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Confirm), what="the question")
        await click(pilot, "#yes")
        await until(
            pilot,
            lambda: app.link.table is not None and app.link.table.table_id != ranked_table,
            what="the practice table",
        )
        table_id = table(app).table_id
        # Its title says it is practice, whole at 80 columns.
        await shown(pilot, app, "Atout │ Practice 2025-06-15")
        await first_hand(pilot, app)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, Confirm), what="leave?")
        await click(pilot, "#yes")
        await until(pilot, lambda: app.current_mode == "lobby", what="the lobby")
        # Leaving it does not promise that a daily game waits.
        await shown(pilot, app, "You left the practice game.")
        assert "waits for you" not in screen_text(app)
        assert table_id != ranked_table and app.errors == []
        await app.aclose()


async def test_a_guest_sees_the_board_without_an_own_line(server: Server, tmp_path: Path) -> None:
    app = player(server, tmp_path / "g", "Gus", daily=False)
    app.keys = None  # atout connect --guest
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link and app.link.lobby is not None, what="the lobby")
        assert app.daily.player_id is None
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await shown(pilot, app, "guests enter no leaderboard", "Nobody has finished")
        await pilot.press("escape")
        await pilot.press("u")
        await shown(pilot, app, "You play as a guest")
        await app.aclose()
    assert not (tmp_path / "g" / "keys.json").exists()


async def test_an_exported_key_plays_on_as_the_same_player_elsewhere(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, away = tmp_path / "home", tmp_path / "away"
    url = f"ws://127.0.0.1:{server.port}"
    app = player(server, home, "Ann")
    async with app.run_test(size=SIZE) as pilot:
        await first_hand(pilot, app)
        started = table(app).table_id
        ann = app.daily.player_id
        await app.aclose()
    assert FileKeys(home).get(seat_key(url, "Ann")).registered  # type: ignore[union-attr]

    def atout_key(*argv: str, folder: Path) -> int:
        args = parser().parse_args(["key", *argv])
        return key_command.run(args, DEFAULT_URL, normalize_url, FileKeys(folder))

    assert atout_key("export", url, "--name", "Ann", folder=home) == 0
    out = capsys.readouterr()
    key = out.out.strip()
    assert len(key) == 32 and "secret" in out.err and key not in out.err
    assert atout_key("import", url, key, "--name", "Someone", folder=away) == 0
    # Another name on the other machine: the server knows the key, not the name.
    other = player(server, away, "Someone")
    async with other.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: other.link and other.link.table is not None, what="a seat")
        assert other.daily.player_id == ann and other.player_name == "Ann"
        assert table(other).table_id == started  # the same attempt, taken back
        await other.aclose()


async def test_a_mistyped_imported_key_is_refused_and_nothing_is_registered(
    server: Server, tmp_path: Path
) -> None:
    url = f"ws://127.0.0.1:{server.port}"
    args = parser().parse_args(["key", "import", url, "0" * 32, "--name", "Eve"])
    assert key_command.run(args, DEFAULT_URL, normalize_url, FileKeys(tmp_path)) == 0
    app = player(server, tmp_path, "Eve")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link_status.phase == "stopped", what="the refusal")
        assert "[unknown_key]" in app.link_status.reason
        assert "atout key import" in app.link_status.reason
        await app.aclose()
    assert await server.daily.players.find(key_digest("0" * 32)) is None


async def test_leaderboard_pages_and_the_own_line_below_the_page(
    server: Server, tmp_path: Path
) -> None:
    day = "2025-06-15"
    for i in range(25):
        p = await server.daily.players.register(key_digest(f"{i:032x}"), f"Player {i:02}")
        await server.daily.board.claim(day, p.id, f"t{i}")  # as `daily` does
        assert await server.daily.board.record(day, p.id, [10 * i, 0], DAY)
    app = player(server, tmp_path, "Zed", daily=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.daily.player_id is not None, what="welcome")
        zed = app.daily.player_id
        await server.daily.board.claim(day, zed, "tz")
        assert await server.daily.board.record(day, zed, [-999, -999], DAY)
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await shown(pilot, app, "page 1 of 2 · 26 players", "You: #26")
        rows = board_rows(app)
        assert len(rows) == 20 and not any(r[1].plain.startswith("▶") for r in rows)
        assert app.screen.query_one("#board").cursor_type == "none"  # type: ignore[attr-defined]
        await pilot.press("pagedown")
        await shown(pilot, app, "page 2 of 2")
        rows = board_rows(app)
        assert len(rows) == 6 and rows[-1][1].plain == "▶ Zed"
        await pilot.press("pagedown")  # no page 3
        await pilot.press("pageup")
        await shown(pilot, app, "page 1 of 2")
        assert board_rows(app)[0][1].plain.strip() == "Player 24"
        await app.aclose()

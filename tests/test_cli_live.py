"""The terminal client against a real in-process server, driven with Textual's
Pilot: a whole deal played through the screen, a lost connection and a
server restart repaired without a keystroke, the token that survives the
client, friends joining by invite code, and ``atout play``'s embedded server.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clients.cli import table_facts as facts
from clients.cli.app import AtoutApp
from clients.cli.cards_widget import HandWidget
from clients.cli.dialogs import JoinByCode, NewTable
from clients.cli.tokens import FileTokens, seat_key
from protocol.messages import CreateTable, Ready
from protocol.messages import JoinTable as JoinTableCmd
from protocol.views import TableView
from server.front.door import ABUSE_LIMIT
from server.process.app import Server
from server.store.memory import MemoryStore
from tests.support.clock import ManualClock
from tests.support.pilot import (  # noqa: F401 - server: a fixture
    SIZE,
    STRONG_SEED,
    began,
    click,
    client,
    drive,
    pilot_server,
    screen_text,
    shown,
    sit_and_start,
    table,
    type_card,
    until,
    url_of,
)
from tests.support.ports import HeldPort
from tests.support.servers import for_people, running
from tests.support.waits import Deadline, eventually

# -- a whole deal -------------------------------------------------------------------------


async def test_a_whole_deal_played_through_the_screen(server: Server, tmp_path: Path) -> None:
    app = client(url_of(server), tmp_path)
    done: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await sit_and_start(pilot, app, deals=1, bot_level="normal", seed=STRONG_SEED)
        while table(app).status != "finished":
            view = table(app)
            kind = facts.decision(view) if facts.my_turn(view) else ""
            if not kind:
                await pilot.pause(0.02)
                continue
            key = app.table_screen._decision_key(view)
            await pilot.pause()
            if kind == "bid":
                await click(pilot, ".bid-garde" if "garde" in view.legal.bids else ".bid-pass")
            elif kind == "ecart":
                suits = [c for c in view.legal.ecart if not c.startswith("T")]
                trumps = [c for c in view.legal.ecart if c.startswith("T")]
                need = view.legal.ecart_trumps
                pick = (suits + trumps[:need]) if need else suits[:6]
                hand = app.table_screen.query_one("#hand", HandWidget)
                for card in pick[:5]:
                    assert hand.choose(card)  # what a click or Enter on it does
                await type_card(pilot, app, pick[5])
                await pilot.pause()
                await pilot.press("enter")  # "Discard these 6 cards?" -> Discard
            elif kind == "chelem":
                await click(pilot, ".chelem-no")
            elif kind == "play" and view.legal.poignee_sizes:
                kind = "poignee"
                await click(pilot, f".poignee-{view.legal.poignee_sizes[0]}")
                await pilot.pause()
                await click(pilot, ".poignee-go")
            elif done.count("play") % 2:
                await type_card(pilot, app, view.legal.cards[-1])
            else:
                # Arrow keys and Enter: the cursor only ever rests on a legal card.
                await pilot.press("right", "enter")
            done.append(kind)

            def moved(key: tuple[Any, ...] = key) -> bool:
                v = table(app)
                return v.status == "finished" or app.table_screen._decision_key(v) != key

            await until(pilot, lambda: moved() or app.errors, what=f"the server to take {kind}")
            assert app.errors == []
        view = table(app)
        assert view.deal is not None and view.deal.result is not None
        assert view.deal.taker == 0 and view.deal.contract == "garde"
        assert {"bid", "ecart", "chelem", "poignee", "play"} <= set(done)
        assert done.count("play") == 18
        assert view.deal.poignees and view.deal.poignees[0].seat == 0
        await shown(pilot, app, "Game over", "Play again")
        # Leaving after the game: Esc goes back to the lobby without asking
        # (leaving is what the player wants then), and the token is forgotten.
        await pilot.press("escape")
        await until(pilot, lambda: app.current_mode == "lobby", what="the lobby")
        assert app.link.tokens.get(app.token_key) is None
        await app.aclose()


# -- reconnection ---------------------------------------------------------------------------


async def test_a_lost_connection_is_resumed_without_a_keystroke(
    server: Server, tmp_path: Path
) -> None:
    app = client(url_of(server), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        before = await sit_and_start(pilot, app, deals=1, bot_level="random")
        conn = next(c for c in server.front.conns if c.name == "Alice")
        conn.ws.transport.abort()  # the network drops: no close frame
        await until(pilot, lambda: app.link.connections == 2 and app.link.online, what="resume")
        await until(pilot, lambda: app.link.table is not None and app.link.session.seat == 0)
        after = table(app)
        assert after.table_id == before.table_id and after.you == 0
        assert any(s.reason == "the connection was lost" for s in app.statuses)
        # Said once, on the table's message line; no toast saying it again.
        await shown(pilot, app, "Connected again.")
        assert not [n for n in app._notifications if "Reconnected" in n.message]
        # The missed patches continued the view we held: no snapshot was needed.
        assert app.link.session.snapshots_asked == 0
        # The seat plays on.
        await until(pilot, lambda: facts.my_turn(table(app)), what="our turn")
        assert app.errors == []
        await app.aclose()


async def test_a_server_restart_on_the_same_port_is_resumed(tmp_path: Path) -> None:
    store = MemoryStore()
    first = Server(for_people(), store=store)
    await first.start()
    app = client(url_of(first), tmp_path)
    second: Server | None = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            before = await sit_and_start(pilot, app, deals=1, bot_level="random")
            await until(pilot, lambda: facts.my_turn(table(app)), what="our turn")
            hand = list(table(app).hand)
            await first.stop()  # goodbye with close code 1012
            await until(pilot, lambda: not app.link.online, what="the drop")
            assert any("restarting" in s.reason for s in app.statuses)
            second = Server(for_people(port=first.port), store=store)
            await second.start()
            await until(pilot, lambda: app.link.connections == 2 and app.link.online, what="resume")
            await until(pilot, lambda: app.link.table is not None, what="the table again")
            after = table(app)
            assert after.table_id == before.table_id and after.you == 0
            assert after.hand == hand
            await shown(pilot, app, "● online")
            assert app.errors == []
            await app.aclose()
    finally:
        if second is not None:
            await second.stop()


async def test_the_token_outlives_the_client_and_a_second_window_takes_the_seat(
    server: Server, tmp_path: Path
) -> None:
    url = url_of(server)
    first = client(url, tmp_path)
    async with first.run_test(size=SIZE) as pilot:
        before = await sit_and_start(pilot, first, deals=1, bot_level="random")
        await first.aclose()
    saved = FileTokens(tmp_path / "Alice").get(seat_key(url, "Alice"))
    assert saved is not None and saved.table_id == before.table_id and saved.seat == 0

    again = client(url, tmp_path)
    async with drive(again) as pilot:
        # No key pressed: the saved token brings us back to our seat.
        await until(pilot, lambda: again.link and again.link.table is not None, what="resume")
        assert table(again).table_id == before.table_id and table(again).you == 0
        # The link has the table; the screen follows on the app's next message.
        await until(pilot, lambda: again.current_mode == "table", what="the table screen")
        third = client(url, tmp_path)
        async with drive(third) as pilot3:
            await until(pilot3, lambda: third.link and third.link.table is not None)
            await until(pilot, lambda: again.link_status.phase == "stopped", what="replaced")
            assert "taken back" in again.link_status.reason
            await third.aclose()
        await again.aclose()


# -- friends -----------------------------------------------------------------------------------


async def test_friends_join_by_invite_code_watch_and_the_creator_starts(
    server: Server, tmp_path: Path
) -> None:
    url = url_of(server)
    alice, bob, carol = (client(url, tmp_path, n) for n in ("Alice", "Bob", "Carol"))
    async with (
        drive(alice) as pa,
        drive(bob) as pb,
        drive(carol) as pc,
    ):
        for pilot, app in ((pa, alice), (pb, bob), (pc, carol)):
            await until(pilot, lambda app=app: app.link and app.link.lobby is not None)
        # Alice opens a private table with the form.
        await pa.press("n")
        await until(pa, lambda: isinstance(alice.screen, NewTable))
        await click(pa, "#private")
        await pa.press("down", "enter")  # private: invite code only
        await click(pa, "#create")
        await until(pa, lambda: alice.link.table is not None, what="Alice seated")
        code = table(alice).invite_code
        assert code and table(alice).private
        await shown(pa, alice, f"Invite code: {code}")
        # Bob mistypes the code first: a clear error, then the right one.
        for attempt in ("NOPE99", code):
            await pb.press("i")
            await until(pb, lambda: isinstance(bob.screen, JoinByCode))
            await pb.press(*attempt.lower(), "enter")
            await until(pb, lambda: not isinstance(bob.screen, JoinByCode), what="the form gone")
            if attempt != code:
                await until(
                    pb,
                    lambda: any("[no_such_table]" in e for e in bob.errors),
                    what="the mistyped code refused",
                )
        await until(pb, lambda: bob.link.table is not None, what="Bob seated")
        # Carol watches.
        await pc.press("i")
        await until(pc, lambda: isinstance(carol.screen, JoinByCode))
        await pc.press(*code.lower())
        await click(pc, "#watch")
        await until(pc, lambda: carol.link.table is not None, what="Carol watching")
        await until(
            pa, lambda: table(alice).seats[1].name == "Bob" and table(alice).spectators == 1
        )
        await shown(pa, alice, "Bob")
        # Only the creator starts; the others see it begin.
        assert not list(bob.screen.query(".start"))
        await click(pa, ".start")
        # A table made with the form has no seed: its first deal may be annulled.
        await until(pa, lambda: began(table(alice)), what="the start, seen by Alice")
        await until(pb, lambda: began(table(bob)), what="the start, seen by Bob")
        assert table(bob).you == 1
        assert len(table(bob).hand) == 18 or table(bob).status == "between_deals"
        await until(pc, lambda: began(table(carol)), what="the start, seen by Carol")
        assert table(carol).you is None and table(carol).hand == []
        await shown(pc, carol, "hands stay hidden")
        for app in (alice, bob, carol):
            await app.aclose()


# -- atout play ----------------------------------------------------------------------------------


async def test_atout_play_starts_a_local_server_and_a_game_with_three_bots() -> None:
    app = AtoutApp(
        name="Alice",
        autoplay=CreateTable(
            name="Alice's table", private=True, deals=1, bot_level="random", seed="play"
        ),
        embedded_settings=for_people(host="127.0.0.1"),
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link and app.link.table is not None, what="the table")
        await until(pilot, lambda: table(app).status == "playing" and table(app).hand)
        view = table(app)
        assert view.you == 0 and [s.kind for s in view.seats] == ["human", "bot", "bot", "bot"]
        assert len(view.hand) == 18
        await shown(pilot, app, "Bot Blaise")
        embedded = app.embedded
        assert embedded is not None and embedded.url.startswith("ws://127.0.0.1:")
        await app.aclose()
        assert embedded._thread is None


# -- playing along without the screen (for tests about what follows) ------------------------


def my_move(view: TableView, bid: str = "pass") -> Any:
    """A legal move for our seat now, or None: ``bid`` (or pass), a legal écart,
    no chelem, the first legal card."""
    from protocol.messages import Bid, Chelem, Ecart, Play

    if not facts.my_turn(view):
        return None
    legal = view.legal
    match facts.decision(view):
        case "bid":
            return Bid(bid=bid if bid in legal.bids else "pass")
        case "ecart":
            suits = [c for c in legal.ecart if not c.startswith("T")]
            trumps = [c for c in legal.ecart if c.startswith("T")]
            need = legal.ecart_trumps
            return Ecart(cards=(suits + trumps[:need]) if need else suits[:6])
        case "chelem":
            return Chelem(declare=False)
        case "play":
            return Play(card=legal.cards[0])
    return None


async def play_along(
    pilot: Any,
    app: AtoutApp,
    done: Callable[[TableView], bool],
    timeout: float = 30.0,
    bid: str = "pass",
) -> TableView:
    """Make our moves (through the app's sender) until ``done(view)``, within
    ``timeout`` seconds of an unhurried machine (``Deadline``)."""
    deadline = Deadline(timeout)
    sent: tuple[Any, ...] | None = None
    while not deadline.passed():
        view = table(app)
        if done(view):
            return view
        move = my_move(view, bid)
        if facts.reading_now(view):
            move = Ready()  # the deal's result waits for us: Continue
        key = app.table_screen._decision_key(view)
        if move is not None and key != sent:
            sent = key
            app.send(move)
        await pilot.pause(0.02)
    view = table(app)
    raise AssertionError(
        f"timed out playing along: {view.status} {view.deal and view.deal.phase} "
        f"turn={view.deal and view.deal.turn} errors={app.errors}"
    )


# -- the score sheet --------------------------------------------------------------------------

# Deal 1 is dealt normally; the first attempt at deal 2 is annulled as it is
# dealt (a petit sec), so the sheet holds an annulled line (found by search).
ANNULLED_SECOND_SEED = "sheet-222"
LONG_NAME = "Alexandrine-Marguerite"


async def test_the_score_sheet_shows_every_player_at_80_and_140_columns(
    server: Server, tmp_path: Path
) -> None:
    from clients.cli.sheet_dialog import ScoreSheet

    app = client(url_of(server), tmp_path, LONG_NAME)
    async with app.run_test(size=SIZE) as pilot:
        await sit_and_start(pilot, app, deals=2, bot_level="random", seed=ANNULLED_SECOND_SEED)
        view = await play_along(pilot, app, lambda v: v.status == "finished", timeout=60)
        annulled = [line for line in view.sheet if line.annulled]
        counted = [line for line in view.sheet if not line.annulled]
        assert annulled and len(counted) == 2
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, ScoreSheet), what="the sheet")
        for size in (SIZE, (140, 40)):
            await pilot.resize_terminal(*size)

            def laid_out(size: tuple[int, int] = size) -> bool:
                # The sheet itself on screen (not yet composed, no head is
                # not "names cropped"), at that size.
                found = sheet_head(app)
                full = bool(found) and LONG_NAME in found[0]
                return tuple(app.size) == size and bool(found) and full == (size != SIZE)

            await until(
                pilot, laid_out, what=f"the sheet laid out at {size}", detail=lambda: drawn(app)
            )
            text = screen_text(app)
            lines = text.splitlines()
            assert "2 of 2 deals played" in text
            head = next(line for line in lines if "Contract" in line)
            # Every player's column is there; full names when there is room.
            for seat in (1, 2, 3):
                name = view.seats[seat].name
                assert name is not None
                shown = name if size != SIZE else name[:7]
                assert shown in head, (size, view.scores, head)
            if size == SIZE:
                assert LONG_NAME[:7] in head
            else:
                assert LONG_NAME in head
            # The annulled attempt is labelled with the deal it was an attempt
            # at, in brackets: not a second deal of that number.
            for line in annulled:
                row = next(r for r in lines if "annulled: petit sec" in r)
                number = re.search(r"\((\d+)\)\s+annulled: petit sec", row)
                assert number is not None and number[1] == str(line.number)
            total = next(r for r in lines if "Total" in r)
            for score in view.scores:
                assert facts.signed(score) in total
            assert all(len(r) <= size[0] for r in lines)
        await app.aclose()


def sheet_head(app: AtoutApp) -> list[str]:
    """The score sheet's head on screen (its line of column names)."""
    return [line for line in screen_text(app).splitlines() if "Contract" in line]


def drawn(app: AtoutApp) -> str:
    sheet = app.screen.query_one("#sheet-table")
    return f"the sheet's table {tuple(sheet.size)} asked {sheet.styles.width}: {sheet_head(app)}"


# -- nothing lost by accident -------------------------------------------------------------------


def play_app(tmp_path: Path, **create: Any) -> AtoutApp:
    """``atout play`` as __main__ builds it, with its file and tokens in ``tmp_path``."""
    return AtoutApp(
        name="Alice",
        autoplay=CreateTable(name="Alice's table", private=True, **{"seed": "play", **create}),
        embedded_settings=for_people(host="127.0.0.1"),
        play_file=tmp_path / "data" / "play.sqlite3",
        tokens=FileTokens(tmp_path / "config"),
    )


def focused_id(app: AtoutApp) -> str | None:
    return app.focused.id if app.focused is not None else None


async def test_quitting_mid_trick_asks_and_atout_play_resumes_exactly_there(
    tmp_path: Path,
) -> None:
    from clients.cli.dialogs import Confirm

    create = {"deals": 2, "bot_level": "random", "turn_timer": 120.0, "seed": "resume-1"}
    first = play_app(tmp_path, **create)
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: first.link and first.link.table is not None, what="table")
        before = await play_along(
            pilot,
            first,
            lambda v: (
                facts.my_turn(v)
                and v.deal is not None
                and v.deal.phase == "play"
                and v.deal.trick is not None
                and bool(v.deal.trick.cards)
            ),
        )
        assert before.deadline is not None  # the turn timer runs for us
        # Esc asks whether to leave, with Stay focused: Enter keeps the seat.
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(first.screen, Confirm), what="leave question")
        assert focused_id(first) == "no"
        await pilot.press("enter")
        # ^q mid-game asks too, with Stay focused.
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(first.screen, Confirm), what="quit question")
        assert focused_id(first) == "no"
        assert "atout play again" in screen_text(first)
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(first.screen, Confirm), what="Stay taken")
        assert first.current_mode == "table"
        assert table(first).you == 0  # still seated
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(first.screen, Confirm), what="quit question")
        await click(pilot, "#yes")
        embedded = first.embedded
        assert embedded is not None
        await until(pilot, lambda: embedded._thread is None, what="the local server stopped")

    again = play_app(tmp_path, **create)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(again.screen, Confirm), what="resume offer")
        assert focused_id(again) == "yes"
        assert before.deal is not None
        assert f"deal {before.deal.number} of 2" in screen_text(again)
        await pilot.press("enter")  # Resume
        await until(pilot, lambda: again.link and again.link.table is not None, what="resumed")
        after = table(again)
        assert after.table_id == before.table_id and after.you == 0
        assert after.deal is not None and after.deal.trick is not None
        assert after.deal.number == before.deal.number
        assert after.deal.trick.cards == before.deal.trick.cards  # mid-trick, as we left it
        assert after.deal.tricks == before.deal.tricks
        assert after.hand == before.hand and after.scores == before.scores
        # The turn timer runs again for our turn. (The server drops a deadline
        # while its seat is away, so it restarts in full: server/table.py.)
        assert after.deadline is not None and after.deadline - time.time() <= 120.0
        assert facts.my_turn(after)
        assert [s.kind for s in after.seats] == ["human", "bot", "bot", "bot"]
        await again.aclose()


async def test_a_new_game_instead_of_resuming_drops_the_saved_one(tmp_path: Path) -> None:
    from clients.cli.dialogs import Confirm

    first = play_app(tmp_path, deals=1, bot_level="random")
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: first.link and first.link.table is not None, what="table")
        await until(pilot, lambda: table(first).status == "playing", what="playing")
        old = table(first).table_id
        await first.aclose()
    again = play_app(tmp_path, deals=1, bot_level="random")
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(again.screen, Confirm), what="resume offer")
        await click(pilot, "#no")  # New game
        await until(pilot, lambda: again.link and again.link.table is not None, what="new table")
        await until(pilot, lambda: table(again).status == "playing", what="playing")
        assert table(again).table_id != old
        embedded = again.embedded
        assert embedded is not None
        await again.aclose()
    from server.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "data" / "play.sqlite3")
    assert old not in await store.open_tables()
    await store.close()


# -- seats belong to a player -------------------------------------------------------------------


async def test_two_players_on_one_machine_never_take_each_others_seat(
    server: Server, tmp_path: Path
) -> None:
    url = url_of(server)
    shared = tmp_path / "config"  # one machine: one config folder for both

    def on_this_machine(name: str, profile: str | None = None) -> AtoutApp:
        return AtoutApp(
            url=url, name=name, profile=profile, tokens=FileTokens(shared), base_delay=0.05
        )

    alice, bob = on_this_machine("Alice"), on_this_machine("Bob")
    async with drive(alice) as pa:
        await until(pa, lambda: alice.link and alice.link.lobby is not None, what="lobby")
        alice.send(CreateTable(name="t", private=True, deals=1, bot_level="random", seed="two"))
        await until(pa, lambda: alice.link.table is not None, what="Alice seated")
        code = table(alice).invite_code
        assert code is not None
        async with drive(bob) as pb:
            # Bob starts beside Alice: he lands in the lobby, not in her seat
            # (his link has no seat of hers to ask back: it sent no Resume).
            await until(pb, lambda: bob.link and bob.link.lobby is not None, what="Bob's lobby")
            assert bob.link.resume_rid is None
            assert bob.link.table is None and bob.current_mode == "lobby"
            bob.send(JoinTableCmd(code=code))
            await until(pb, lambda: bob.link.table is not None, what="Bob seated")
            assert table(bob).you == 1 and table(alice).you == 0
            # Alice hears of Bob at her table after anything his link did to
            # her connection before (one connection, in order): still online.
            await until(pa, lambda: table(alice).seats[1].name == "Bob", what="Bob at Alice's")
            assert alice.link_status.phase == "online" and bob.link_status.phase == "online"
            await bob.aclose()
        await alice.aclose()
    # Both come back, side by side, each to their own seat under their own name.
    alice, bob = on_this_machine("Alice"), on_this_machine("Bob")
    async with drive(alice) as pa, drive(bob) as pb:
        await until(pa, lambda: alice.link and alice.link.table is not None, what="Alice back")
        await until(pb, lambda: bob.link and bob.link.table is not None, what="Bob back")
        assert table(alice).you == 0 and table(bob).you == 1
        assert [s.name for s in table(bob).seats[:2]] == ["Alice", "Bob"]
        # Each link asked back its own seat only (one Resume each: you 0 and 1).
        assert alice.link_status.phase == "online" and bob.link_status.phase == "online"
        # A second player with a profile of their own does not take Alice's seat
        # either: their link has none of hers to ask back (it sent no Resume).
        other = on_this_machine("Alice", profile="alice-laptop")
        async with drive(other) as po:
            await until(po, lambda: other.link and other.link.lobby is not None, what="lobby")
            assert other.link.resume_rid is None
            assert other.link.table is None
            assert alice.link_status.phase == "online"
            await other.aclose()
        await alice.aclose()
        await bob.aclose()


# -- start-up ------------------------------------------------------------------------------------


async def test_an_unreachable_server_is_retried_with_a_countdown_and_a_hint(
    tmp_path: Path,
) -> None:
    held = HeldPort()
    port = held.port
    app = AtoutApp(
        url=f"ws://127.0.0.1:{port}",
        name="Alice",
        tokens=FileTokens(tmp_path),
        base_delay=1.5,  # long enough to read a countdown
    )
    srv: Server | None = None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await shown(pilot, app, "cannot reach", "trying again in", "Is atout-server running")
            assert app.link_status.unreachable
            # The server comes up on that address: the next attempt gets in by itself.
            held.release()
            srv = Server(for_people(port=port))
            await srv.start()
            await until(pilot, lambda: app.link and app.link.lobby is not None, what="lobby")
            await shown(pilot, app, "● online")
            assert "Is atout-server running" not in screen_text(app)
            await app.aclose()
    finally:
        held.release()
        if srv is not None:
            await srv.stop()


async def test_quick_play_gathers_friends_then_anyone_seated_starts_now(tmp_path: Path) -> None:
    """Two people press p a moment apart: one table, both see the countdown
    to the bots; the second presses Start now (issue 33, item 2).

    The table gathers for ten minutes here, not the default 15 s: with the
    cores busy, two clients took over 15 s to sit, and the bots had filled the
    seats and started the game before Bob could press Start now."""
    async with (
        running(for_people(quick_gather=600.0)) as server,
        drive(alice := client(url_of(server), tmp_path)) as pa,
        drive(bob := client(url_of(server), tmp_path, "Bob")) as pb,
    ):
        for pilot, app in ((pa, alice), (pb, bob)):
            await until(
                pilot, lambda app=app: app.link and app.link.lobby is not None, what="lobby"
            )
        await pa.press("p")
        await until(pa, lambda: alice.link.table is not None, what="Alice seated")
        await shown(pa, alice, "Waiting for players · bots fill the seats in", "Start now")
        left = re.search(r"bots fill the seats in (\d+) s", screen_text(alice))
        assert left and 0 < int(left[1]) <= 600  # the countdown to the gather's end
        await pb.press("p")
        await until(pb, lambda: bob.link.table is not None, what="Bob seated")
        assert table(bob).table_id == table(alice).table_id
        await shown(pb, bob, "Waiting for players · bots fill the seats in", "Start now")
        # Alice hears of Bob after any start (one connection, in order): not
        # started at once, friends may come.
        await until(pa, lambda: table(alice).seats[1].name == "Bob", what="Bob at Alice's")
        assert table(alice).status == "waiting"
        await click(pb, ".start")
        for pilot, app in ((pa, alice), (pb, bob)):
            await until(pilot, lambda app=app: began(table(app)), what="the game started")
        assert [s.kind for s in table(alice).seats] == ["human", "human", "bot", "bot"]
        assert alice.errors == [] and bob.errors == []
        await alice.aclose()
        await bob.aclose()


# -- words and screens ----------------------------------------------------------------------------

BAD_GRAMMAR = re.compile(r"\bYou (takes|deals|shows|declares|holds|is|decides)\b")


async def test_words_and_screens_through_a_whole_game(server: Server, tmp_path: Path) -> None:
    from clients.cli.dialogs import Help, History, Replay

    app = client(url_of(server), tmp_path)
    said: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = app.table_screen
        say = screen.say

        def keep(text: str, *, error: bool = False) -> None:
            said.append(text)
            say(text, error=error)

        screen.say = keep  # type: ignore[method-assign]
        await until(pilot, lambda: app.link and app.link.lobby is not None, what="lobby")
        app.send(CreateTable(name="t", private=True, deals=1, bot_level="normal", seed=STRONG_SEED))
        await until(pilot, lambda: app.link.table is not None, what="seated")
        code = table(app).invite_code
        assert code is not None
        # The invite panel gives the whole command and the code: on one line
        # when there is room, the address on a line of its own at 80 columns.
        await shown(pilot, app, "atout connect", url_of(server), f"type {code}")
        await pilot.resize_terminal(140, 40)
        await shown(pilot, app, f"atout connect {url_of(server)}")
        await pilot.resize_terminal(*SIZE)
        # ? explains the rules a new player asks about.
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, Help), what="help")
        help_text = " ".join(str(app.screen.query_one("#help-text").render()).split())
        for topic in ("Bidding", "Écart", "Poignée", "Chelem", "56, 51, 41 or 36"):
            assert topic in help_text  # sentences wrapped for the width: read as one line
        await pilot.press("escape")
        await click(pilot, ".start")
        await until(pilot, lambda: table(app).status == "playing", what="started")
        # We take a garde; the écart prompt gives the whole rule.
        await play_along(pilot, app, lambda v: facts.decision(v) == "ecart", bid="garde")
        await shown(pilot, app, "no King, no bout", "shown face up")
        view = await play_along(pilot, app, lambda v: v.status == "finished", bid="garde")
        assert view.deal is not None and view.deal.taker == 0
        await until(
            pilot, lambda: any("the last trick (18)" in s for s in said), what="the end said"
        )
        assert "You take the contract: Garde." in said
        assert any(s.startswith("Deal 1: ") for s in said)
        assert not [s for s in said if BAD_GRAMMAR.search(s)]
        # The deal's end names its last trick, the 18th.
        assert any("the last trick (18)" in s for s in said), said[-5:]
        # h lists the table's past deals and replays one trick by trick.
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, History), what="history")
        await shown(pilot, app, "deal 1 · Garde by Alice")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, Replay), what="replay")
        await shown(pilot, app, "Trick 1 of 18", "You: garde", "Chien: ")
        await pilot.press("right")
        await shown(pilot, app, "Trick 2 of 18")
        await pilot.press("end")
        await shown(pilot, app, "Trick 18 of 18", "★")
        await pilot.press("escape", "escape")
        await until(pilot, lambda: app.screen is screen, what="back at the table")
        assert app.errors == []
        await app.aclose()


# -- results that wait for the players ------------------------------------------------------


async def test_the_result_waits_for_continue_with_a_countdown_then_the_next_deal(
    tmp_path: Path,
) -> None:
    """The server on a manual clock (its bots think for no time): the
    countdown is the whole minute, and all of it but a second goes by with
    nothing coming by itself."""
    clock = ManualClock()
    async with running(for_people(), clock=clock) as server:
        app = client(url_of(server), tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await sit_and_start(pilot, app, deals=2, seed="wait-pilot", result_wait=60.0)
            view = await play_along(pilot, app, lambda v: v.status == "between_deals", bid="garde")
            assert view.deal is not None and view.ready == [1, 2, 3]
            assert view.next_deal_at == clock.time() + 60.0
            number = view.deal.number
            # The result stays: who is still reading, a countdown, the finished
            # deal's number in the header, and Continue to press.
            await shown(pilot, app, "Still reading: You", "next deal in", f"deal {number}/2")
            assert "Continue" in screen_text(app)
            clock.advance(59.0)  # nothing comes by itself meanwhile
            await pilot.pause()
            assert table(app).status == "between_deals"
            await pilot.press("enter")  # Continue is focused
            await until(pilot, lambda: table(app).status == "playing", what="the next deal")
            assert table(app).ready == [] and table(app).next_deal_at is None
            assert "Still reading" not in screen_text(app) and app.errors == []
            await app.aclose()


async def test_the_link_says_in_words_why_the_server_closed_or_refused_it() -> None:
    """Idle in the lobby (4006), flooding (4005): the link stops and says why;
    refused at the upgrade (HTTP 429): it says why and tries again.

    The server's idle sweep and rate limit run on a manual clock. The link's
    own retry after a refusal runs on the real loop (the link takes no
    clock): a few of its short waits (from 0.05 s), until the slot is free."""
    import asyncio

    from websockets.asyncio.client import connect

    from clients.cli import wording
    from clients.cli.link import Link, LinkStatus
    from clients.cli.tokens import MemoryTokens
    from protocol.messages import Ping

    async def until(statuses: list[LinkStatus], ok: Callable[[LinkStatus], bool]) -> LinkStatus:
        await eventually(
            lambda: any(ok(s) for s in statuses),
            timeout=15,
            what="the link's status",
            detail=lambda: repr(statuses),
        )
        return next(s for s in statuses if ok(s))

    for settings, name, code in (
        (for_people(lobby_idle=0.4), "Idle", 4006),
        (for_people(rate=1.0, burst=1), "Flood", 4005),
    ):
        clock = ManualClock()
        srv = Server(settings, clock=clock)
        await srv.start()
        statuses: list[LinkStatus] = []
        link = Link(
            url_of(srv), name, MemoryTokens(), on_message=lambda m: None, on_status=statuses.append
        )
        task = asyncio.get_running_loop().create_task(link.run())
        try:
            await until(statuses, lambda s: s.phase == "online")
            heard = lambda lobby=srv.lobby: lobby.players_online == 1  # noqa: E731
            await eventually(heard, what="the hello heard")
            if code == 4006:
                clock.advance(1.0)  # silent past lobby_idle: the next sweep (every 0.1 s) sees it
            else:
                # No time passes, so the bucket (a burst of 1) never refills: the
                # one past ABUSE_LIMIT refusals is hung up on. No more: the server
                # reads nothing after it hangs up, and with more messages unread
                # its reading stays paused, the link's answer to its close unread
                # until websockets' close_timeout (10 s).
                for _ in range(1 + ABUSE_LIMIT + 1):
                    await link.send(Ping())
            stopped = await until(statuses, lambda s: s.phase == "stopped")
            assert stopped.reason == wording.closed(code)[0]
            await asyncio.wait_for(task, 5)
        finally:
            await link.close()
            await srv.stop()
    srv = Server(for_people(max_per_ip=1))
    await srv.start()
    statuses = []
    link = Link(
        url_of(srv),
        "Second",
        MemoryTokens(),
        on_message=lambda m: None,
        on_status=statuses.append,
        base_delay=0.05,
    )
    try:
        async with connect(url_of(srv)):  # the address's one connection
            task = asyncio.get_running_loop().create_task(link.run())
            refused = await until(statuses, lambda s: s.retry_at is not None)
            assert refused.detail == "too many connections from your address"
        await until(statuses, lambda s: s.phase == "online")  # the slot is free again
    finally:
        await link.close()
        await asyncio.wait_for(task, 5)
        await srv.stop()

"""Tables of five (and three) from the terminal client, against a real
in-process server, driven with Textual's Pilot: two friends and three bots
play a game with a called King to the end, the taker calling through the
call dialog, and both see who the partner was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clients.cli import call_facts
from clients.cli import table_facts as facts
from clients.cli.app import AtoutApp
from clients.cli.call_dialog import CallDialog
from clients.cli.dialogs import NewTable
from protocol.messages import CreateTable, JoinTable
from server.process.app import Server
from tests.support.clock import ManualClock
from tests.support.pilot import (  # noqa: F401 - server: a fixture
    SIZE,
    click,
    client,
    drive,
    pilot_server,
    screen_text,
    shown,
    table,
    type_card,
    until,
)
from tests.support.servers import for_people, running

FIVE_SEED = "five-3"
"""Its first dealer is seat 4: Alice (seat 0) speaks first, so her garde
contre takes whatever the bots hold."""


async def _act(pilot: Any, app: AtoutApp, seen: list[str]) -> bool:
    """The seat's decision, made through the screen; False when there is none."""
    view = table(app)
    if facts.reading_now(view):
        await click(pilot, ".continue")
        seen.append("continue")
        return True
    kind = facts.decision(view) if facts.my_turn(view) else ""
    if not kind or app.table_screen.answered is not None:
        return False
    await pilot.pause()
    if kind == "bid":
        bid = "garde_contre" if view.you == 0 else "pass"
        await click(pilot, f".bid-{bid}")
    elif kind == "call":
        # The dialog opens by itself; Enter calls the focused King (one not in hand).
        await until(pilot, lambda: isinstance(app.screen, CallDialog), what="the call dialog")
        assert "You call a King, of any suit." in screen_text(app)
        await pilot.press("enter")
    elif kind == "chelem":
        await click(pilot, ".chelem-no")
    elif kind == "play":
        await type_card(pilot, app, view.legal.cards[0])
    else:
        return False
    seen.append(kind)
    key = facts.decision_key(view)
    await until(
        pilot,
        lambda: facts.decision_key(table(app)) != key or table(app).status == "finished",
        what=f"the server to take {kind}",
    )
    return True


async def test_two_friends_and_three_bots_play_five_with_a_called_king_to_the_end(
    server: Server, tmp_path: Path
) -> None:
    url = f"ws://127.0.0.1:{server.port}"
    alice, bob = client(url, tmp_path, "Alice"), client(url, tmp_path, "Bob")
    async with drive(alice) as pa:
        await until(pa, lambda: alice.link and alice.link.lobby is not None, what="lobby")
        alice.send(CreateTable(name="À cinq", players=5, deals=1, seed=FIVE_SEED))
        await until(pa, lambda: alice.link.table is not None, what="Alice seated")
        assert len(table(alice).seats) == 5
        await shown(pa, alice, "Start the game")
        async with drive(bob) as pb:
            await _five_to_the_end(pa, alice, pb, bob)


async def _five_to_the_end(pa: Any, alice: AtoutApp, pb: Any, bob: AtoutApp) -> None:
    """Bob joins from the lobby; Alice starts; both play the deal through the screen."""
    await until(pb, lambda: bob.link and bob.link.lobby is not None, what="Bob's lobby")
    # Bob's lobby lists the table of five (a row's drawing of its size is the
    # fit test's: tests/test_cli_fit.py), and he sits down.
    await until(pb, lambda: any(t.players == 5 for t in bob.link.lobby.tables))
    bob.send(JoinTable(table_id=table(alice).table_id))
    await until(pb, lambda: bob.link.table is not None, what="Bob seated")
    await until(pa, lambda: table(alice).seats[1].name == "Bob")
    await click(pa, ".start")
    seen: dict[str, list[str]] = {"Alice": [], "Bob": []}
    pilots = ((pa, alice), (pb, bob))
    for _ in range(2000):
        if all(table(app).status == "finished" for _p, app in pilots):
            break
        acted = False
        for pilot, app in pilots:
            acted = await _act(pilot, app, seen[app.player_name]) or acted
        if not acted:
            await pa.pause(0.02)
    assert all(app.errors == [] for _p, app in pilots), [a.errors for _p, a in pilots]
    view = table(alice)
    assert view.status == "finished"
    assert view.deal is not None and view.deal.taker == 0
    called = view.deal.called
    assert called is not None and called.startswith("K")
    assert "call" in seen["Alice"] and "call" not in seen["Bob"]
    assert seen["Alice"].count("play") == 15 and seen["Bob"].count("play") == 15
    result = view.deal.result or {}
    assert len(result["scores"]) == 5 and sum(result["scores"]) == 0
    partner = result["partner"]
    # Both see who the partner was (or that Alice played alone), by name.
    for pilot, app in pilots:
        line = call_facts.partner_line(table(app))
        if partner is None:
            assert "alone" in line, line
        else:
            you = table(app).you == partner
            who = "You were" if you else f"{table(app).seats[partner].name} was"
            assert line.startswith(who + " the partner"), line
        # Wrapped in the narrow panels: the name and its verb stay on one line.
        await shown(pilot, app, line.split(" the ")[0] if partner is not None else "alone")
        if partner is not None:
            await shown(pilot, app, "☆")  # the partner's mark in the seats panel
    for _p, app in pilots:
        await app.aclose()


async def test_the_call_dialog_closes_when_the_turn_timer_calls_for_us(tmp_path: Path) -> None:
    """The taker's turn timer runs out while the call dialog is open: a bot
    calls for her, and the dialog goes (it stayed over the rest of the game,
    to the final scores, answering nothing)."""
    clock = ManualClock()
    async with running(for_people(), clock=clock) as srv:
        alice = client(f"ws://127.0.0.1:{srv.port}", tmp_path, "Alice")
        async with alice.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: alice.link and alice.link.lobby is not None, what="lobby")
            alice.send(
                CreateTable(name="À cinq", players=5, deals=1, seed=FIVE_SEED, turn_timer=30.0)
            )
            await until(pilot, lambda: alice.link.table is not None, what="Alice seated")
            await click(pilot, ".start")
            await until(pilot, lambda: facts.decision(table(alice)) == "bid", what="her bid")
            await click(pilot, ".bid-garde_contre")
            await until(pilot, lambda: isinstance(alice.screen, CallDialog), what="the call dialog")
            deadline = table(alice).deadline
            assert deadline is not None
            clock.advance(deadline - clock.now + 1)
            await until(pilot, lambda: table(alice).deal.called is not None, what="a bot's call")
            await until(
                pilot, lambda: not isinstance(alice.screen, CallDialog), what="the dialog gone"
            )
            # The table's prompt line follows the dialog at the screen's next
            # refresh (a CI run read it in between).
            await until(
                pilot, lambda: "Call a card" not in screen_text(alice), what="the prompt gone"
            )
            await alice.aclose()


async def test_the_new_table_form_opens_a_table_of_three(server: Server, tmp_path: Path) -> None:
    url = f"ws://127.0.0.1:{server.port}"
    app = client(url, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link and app.link.lobby is not None, what="lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewTable))
        await click(pilot, "#players")
        await pilot.press("up", "enter")  # from 4 players to 3
        await click(pilot, "#create")
        await until(pilot, lambda: app.link.table is not None, what="seated")
        assert len(table(app).seats) == 3
        assert table(app).deals == 6  # the form's deals followed the size: two per player
        await shown(pilot, app, "Start the game")
        await click(pilot, ".start")
        await until(pilot, lambda: table(app).hand, what="a deal")
        assert len(table(app).hand) == 24 or table(app).status == "between_deals"
        await app.aclose()

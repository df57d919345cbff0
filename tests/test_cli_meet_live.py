"""Tables that come and go as they should, seen from the terminal client's
lobby (issue 33, item 3): a table its player left before it started, by
Leave or by quitting the client, leaves every lobby; a finished one too."""

from __future__ import annotations

import random
from pathlib import Path

from clients.cli.dialogs import Confirm
from clients.session import Session
from protocol.messages import CreateTable, Seated, StartGame
from server.process.app import Server
from tests.support.clients import autoplay, finished
from tests.support.pilot import (  # noqa: F401 - server: a fixture
    SIZE,
    client,
    drive,
    pilot_server,
    screen_text,
    until,
    url_of,
)


def lists(app: object, name: str) -> bool:
    return name in screen_text(app)


async def test_a_table_left_before_it_starts_leaves_the_terminal_lobby(
    server: Server, tmp_path: Path
) -> None:
    alice, bob = client(url_of(server), tmp_path), client(url_of(server), tmp_path, "Bob")
    async with drive(alice) as pa, drive(bob) as pb:
        await until(pb, lambda: bob.link and bob.link.lobby is not None, what="Bob's lobby")
        await until(pa, lambda: alice.link and alice.link.lobby is not None, what="lobby")
        # By Leave: Esc, then Leave in the question.
        alice.send(CreateTable(name="Gone soon"))
        await until(pa, lambda: lists(alice, "Invite code"), what="Alice's table")
        await until(pb, lambda: lists(bob, "Gone soon"), what="listed for Bob")
        await pa.press("escape")
        await until(pa, lambda: isinstance(alice.screen, Confirm), what="the question")
        await pa.press("left", "enter")  # Stay has the focus: to Leave, and press it
        await until(pa, lambda: alice.current_mode == "lobby", what="Alice's lobby")
        await until(pb, lambda: not lists(bob, "Gone soon"), what="gone from Bob's lobby")
        await until(pa, lambda: not lists(alice, "Gone soon"), what="gone from Alice's lobby")
        # By quitting the client (ctrl+q) at a table not started: it leaves too.
        alice.send(CreateTable(name="Quit soon"))
        await until(pa, lambda: alice.link.table is not None, what="seated again")
        await until(pb, lambda: lists(bob, "Quit soon"), what="listed for Bob")
        await pa.press("ctrl+q")
        await until(pb, lambda: not lists(bob, "Quit soon"), what="gone after Alice quit")
        assert alice.link.tokens.get(alice.token_key) is None  # no seat to resume
        await bob.aclose()


async def test_a_finished_table_is_not_offered_in_the_terminal_lobby(
    server: Server, tmp_path: Path
) -> None:
    bob = client(url_of(server), tmp_path, "Bob")
    async with bob.run_test(size=SIZE) as pb:
        await until(pb, lambda: bob.link and bob.link.lobby is not None, what="Bob's lobby")
        wen = await Session.open(url_of(server), "Wen")
        await wen.send(CreateTable(name="Short game", deals=1, bot_level="random"))
        await wen.wait_for(Seated)
        await until(pb, lambda: lists(bob, "Short game"), what="listed")
        await wen.send(StartGame())
        await autoplay(wen, random.Random(5), finished)
        # Wen is still at the table, reading the result: not a table to join.
        await until(pb, lambda: not lists(bob, "Short game"), what="gone once over")
        await wen.close()
        await bob.aclose()

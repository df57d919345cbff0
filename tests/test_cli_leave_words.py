"""The terminal's leave question says what happens (issue 33): the last
person at a table of friends closes it (no bot plays on for nobody);
with someone else still there, a bot takes the seat."""

from __future__ import annotations

from pathlib import Path

from clients.cli.dialogs import Confirm
from protocol.messages import CreateTable, JoinTable, StartGame
from server.process.app import Server
from tests.support.pilot import (  # noqa: F401 - server: a fixture
    SIZE,
    client,
    drive,
    pilot_server,
    screen_text,
    sit_and_start,
    table,
    until,
    url_of,
)

CLOSES = "You are the last person at this table: it closes, and the game ends."
BOT_TAKES = "A bot takes your seat until the end of the game."


def question(app: object) -> str:
    return " ".join(screen_text(app).split())


async def test_the_last_person_leaving_is_told_the_table_closes(
    server: Server, tmp_path: Path
) -> None:
    app = client(url_of(server), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await sit_and_start(pilot, app, deals=1)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, Confirm), what="the question")
        await pilot.pause()
        text = question(app)
        assert "Leave this table?" in text and CLOSES in text and BOT_TAKES not in text
        await app.aclose()


async def test_leaving_friends_is_told_a_bot_takes_the_seat(server: Server, tmp_path: Path) -> None:
    alice, bob = client(url_of(server), tmp_path), client(url_of(server), tmp_path, "Bob")
    async with drive(alice) as pa, drive(bob) as pb:
        await until(pb, lambda: bob.link and bob.link.lobby is not None, what="Bob's lobby")
        await until(pa, lambda: alice.link and alice.link.lobby is not None, what="lobby")

        alice.send(CreateTable(name="t", deals=1, seed="sit"))
        await until(pa, lambda: alice.link.table is not None, what="Alice's table")
        bob.send(JoinTable(table_id=table(alice).table_id))
        await until(pb, lambda: bob.link.table is not None, what="Bob seated")
        await until(pa, lambda: [s.name for s in table(alice).seats].count("Bob") == 1, what="Bob")
        alice.send(StartGame())
        await until(pa, lambda: table(alice).status == "playing", what="started")
        await pa.press("escape")
        await until(pa, lambda: isinstance(alice.screen, Confirm), what="the question")
        await pa.pause()
        text = question(alice)
        assert BOT_TAKES in text and CLOSES not in text
        await alice.aclose()
        await bob.aclose()

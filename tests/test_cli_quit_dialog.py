"""The quit and leave questions are on screen as soon as the key is handled
(issue 34, item 7: "the quit dialog takes a moment to appear").

Nothing between the key and the question waits on the network, a timer or
a screen built later: once the pilot has handed the key to the app and the
app has handled it (``pilot.press`` returns when the app is idle, without
waiting on the clock), the question, its text and its buttons are laid out
on the screen. Against a real server, at a table being played.
"""

from __future__ import annotations

from pathlib import Path

from clients.cli import wording
from clients.cli.dialogs import Confirm
from server.process.app import Server
from tests.support.pilot import (  # noqa: F401 - server: a fixture
    SIZE,
    client,
    pilot_server,
    screen_text,
    sit_and_start,
    url_of,
)


def _on_screen(app: object) -> Confirm:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, Confirm), f"no question on screen but {screen!r}"
    for button in ("#yes", "#no"):
        region = screen.query_one(button).region
        assert region.width > 0 and region.height > 0, f"{button} not laid out: {region}"
    return screen


async def test_the_quit_and_leave_questions_show_at_once_at_a_table(
    server: Server, tmp_path: Path
) -> None:
    app = client(url_of(server), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await sit_and_start(pilot, app, players=5, turn_timer=0)
        for key, question in (
            ("ctrl+q", wording.QUIT_QUESTION),
            ("escape", wording.LEAVE_QUESTION),
            ("ctrl+q", wording.QUIT_QUESTION),  # the second time as the first
        ):
            await pilot.press(key)
            _on_screen(app)
            assert question in " ".join(screen_text(app).split()), question
            await pilot.press("escape")  # Stay
            assert not isinstance(app.screen, Confirm)
        await app.aclose()

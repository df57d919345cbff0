"""What the page says as people meet (issue 33): a person who dropped from
a table not yet started is away, with no bot standing in (none plays before
the start); the first lobby shows no "0 online" before the server's count."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import ServerThread
from tests.support.clock import ManualClock
from tests.web_helpers import LAPTOP, PHONE, enter, new_table, second_page


def test_someone_who_dropped_before_the_start_is_away_with_no_bot(
    browser: Browser, page: Page, web_server: ServerThread, tmp_path: Path
) -> None:
    page.set_viewport_size(PHONE)
    other, errors = second_page(browser, LAPTOP)
    try:
        enter(page, web_server.url, "Ann")
        new_table(page)
        enter(other, web_server.url, "Bea")
        other.get_by_role("button", name=re.compile("^Join Ann")).click()
        other.get_by_role("heading", name="Waiting to start").wait_for()
        bea = page.locator(".seat", has_text="Bea")
        expect(bea.locator(".seat-state")).to_have_text("online")
        other.context.close()  # Bea's phone drops off
        expect(bea.locator(".seat-state")).to_have_text("away")
        page.screenshot(path=str(tmp_path / "away-before-start.png"))
        assert errors == []
    finally:
        other.context.close()


@pytest.fixture
def still_server() -> Iterator[tuple[ServerThread, ManualClock]]:
    clock = ManualClock()
    server = ServerThread(clock=clock).start()
    try:
        yield server, clock
    finally:
        server.stop()


def test_the_first_lobby_counts_us_at_once(
    page: Page, still_server: tuple[ServerThread, ManualClock]
) -> None:
    """The server's clock stands still, so nothing is published after the
    hello: the lobby sent at hello counts us already (it said "0 online", the
    count published before we came, until the next patch)."""
    server, _clock = still_server
    enter(page, server.url, "Ann")
    expect(page.locator(".screen-title")).to_have_text("In the lobby 1 online")


CLOSES = "You are the last person at this table: it closes, and the game ends."
BOT_TAKES = "A bot takes your seat until the end of the game."


def test_the_leave_question_says_what_happens(
    browser: Browser, page: Page, web_server: ServerThread, tmp_path: Path
) -> None:
    """Alone with bots, leaving closes the table; with a friend still there,
    a bot takes the seat."""
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Ann")
    new_table(page)
    page.get_by_role("button", name="Start the game").click()
    page.locator(".hand button.card").first.wait_for()
    page.get_by_role("button", name="Leave").click()
    question = page.locator("#leave-q")
    expect(question).to_have_text(f"Leave this table? {CLOSES}")
    page.screenshot(path=str(tmp_path / "leave-last.png"))
    page.get_by_role("button", name="Leave").last.click()
    page.get_by_role("button", name="Quick play").wait_for()

    other, errors = second_page(browser, LAPTOP)
    try:
        new_table(page)
        enter(other, web_server.url, "Bea")
        other.get_by_role("button", name=re.compile("^Join Ann")).click()
        expect(page.locator(".seats")).to_contain_text("Bea")
        page.get_by_role("button", name="Start the game").click()
        other.locator(".hand button.card").first.wait_for()
        other.get_by_role("button", name="Leave").click()
        expect(other.locator("#leave-q")).to_have_text(f"Leave this table? {BOT_TAKES}")
        other.screenshot(path=str(tmp_path / "leave-friends.png"))
        assert errors == []
    finally:
        other.context.close()

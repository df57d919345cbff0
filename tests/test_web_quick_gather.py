"""Quick play in the browser gathers people (issue 33, item 2): two pages
press Quick play a moment apart and sit at one table; both show the
countdown to the bots, and the second one's "Start now" starts it."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser import ServerThread
from tests.web_helpers import LAPTOP, enter, second_page

COUNTDOWN = re.compile(r"Waiting for players · bots fill the seats in \d+ s")


def test_two_pages_pressing_quick_play_sit_together_and_either_starts(
    browser: Browser, page: Page, web_server: ServerThread, tmp_path: Path
) -> None:
    page.set_viewport_size(LAPTOP)
    other, errors = second_page(browser)
    try:
        enter(page, web_server.url, "Ann")
        enter(other, web_server.url, "Bea")
        page.get_by_role("button", name="Quick play").click()
        expect(page.locator(".gathering")).to_have_text(COUNTDOWN)
        expect(page.get_by_role("button", name="Start now")).to_be_visible()
        other.get_by_role("button", name="Quick play").click()
        expect(other.locator(".gathering")).to_have_text(COUNTDOWN)
        expect(page.locator(".seats")).to_contain_text("Bea")
        expect(other.locator(".seats")).to_contain_text("Ann")
        page.screenshot(path=str(tmp_path / "gathering.png"))
        other.get_by_role("button", name="Start now").click()
        for p in (page, other):
            p.locator(".hand button.card").first.wait_for()
            expect(p.locator(".gathering")).to_have_count(0)
        assert errors == []
    finally:
        other.context.close()


def test_quick_play_at_three_or_five_from_the_page_sits_people_together(
    browser: Browser, page: Page, web_server: ServerThread
) -> None:
    """The page offers quick play's size, as the terminal's --players does: two
    people choosing five sit at one table of five (a table of four for the
    one who keeps four)."""
    page.set_viewport_size(LAPTOP)
    other, errors = second_page(browser)
    third, third_errors = second_page(browser)
    try:
        for p, name in ((page, "Ann"), (other, "Bea"), (third, "Cat")):
            enter(p, web_server.url, name)
        for p in (page, other):
            p.get_by_label("Players").first.select_option("5")
            p.get_by_role("button", name="Quick play").click()
            expect(p.locator(".gathering")).to_have_text(COUNTDOWN)
        expect(page.locator(".seats")).to_contain_text("Bea")
        third.get_by_role("button", name="Quick play").click()  # four, as before
        expect(third.locator(".gathering")).to_have_text(COUNTDOWN)
        expect(third.locator(".seats")).not_to_contain_text("Ann")
        other.get_by_role("button", name="Start now").click()
        for p in (page, other):
            p.locator(".hand button.card").first.wait_for()
            assert p.locator(".hand button.card").count() == 15  # dealt to five
        # Back in the lobby, the page still offers the size it chose.
        page.get_by_role("button", name="Leave").click()
        page.get_by_role("button", name="Leave").last.click()
        page.get_by_role("button", name="Quick play").wait_for()
        expect(page.locator("select[name=quick-players]")).to_have_value("5")
        assert errors == [] and third_errors == []
    finally:
        other.context.close()
        third.context.close()

"""The browser's hint button (issue 36), in a real Chromium against a real
server: at a casual table, on your turn, "Hint" shows the strong bot's
choice with its reason, in English and in French; the answer is for the
decision it was asked for and goes when the table moves on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.browser import ServerThread, patient_context
from tests.web_helpers import enter, new_table

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def my_decision(page: Page) -> None:
    """Wait until the page asks us to bid (we speak in the first round)."""
    page.locator("[data-bid]:enabled").first.wait_for()


def test_the_hint_button_shows_the_strong_bots_bid_and_why(
    page: Page, web_server: ServerThread
) -> None:
    enter(page, web_server.url, "Alice")
    new_table(page)
    page.get_by_role("button", name="Start the game").click()
    my_decision(page)
    page.get_by_role("button", name="Hint", exact=True).click()
    line = page.locator(".hint-line")
    line.wait_for()
    text = line.inner_text()
    assert text.startswith("Hint: ") and " — " in text
    # The hint names one of the bids the page offers.
    offered = [
        page.locator("[data-bid]:enabled").nth(i).inner_text()
        for i in range(page.locator("[data-bid]:enabled").count())
    ]
    choice = text.removeprefix("Hint: ").split(" — ")[0]
    assert any(choice in bid for bid in offered), (choice, offered)
    # Once we bid, the hint for that decision goes.
    page.locator("[data-bid=pass]:enabled").click()
    line.wait_for(state="detached")


def test_the_hint_reads_in_french(browser: Browser, web_server: ServerThread) -> None:
    context = patient_context(browser, locale="fr-FR")
    try:
        page = context.new_page()
        page.goto(web_server.url)
        page.fill("input[name=name]", "Amélie")
        page.get_by_role("button", name="Jouer").click()
        page.locator(".link-online").wait_for(state="attached")
        page.get_by_role("button", name="Nouvelle table").click()
        page.fill("input[name=deals]", "1")
        page.get_by_role("button", name="Créer").click()
        page.get_by_role("button", name="Commencer la partie").click()
        my_decision(page)
        page.get_by_role("button", name="Conseil", exact=True).click()
        text = page.locator(".hint-line").inner_text()
        assert text.startswith("Conseil : ") and " — " in text
    finally:
        context.close()

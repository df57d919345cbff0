"""The browser client without a mouse and without eyes, in a real Chromium
against a real server (tests/browser.py): a whole game played with the
keyboard alone (Tab, Shift+Tab, Enter, Space, ←/→, Esc), and the live region
saying in words the bids, the tricks won and the deal's result."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tests.browser import ServerThread
from tests.web_helpers import (
    GAME_OVER,
    LAPTOP,
    PHONE,
    by_keyboard,
    enter,
    new_table,
    play_to_the_end,
    play_until,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

FOCUSED = """() => document.activeElement
  && (document.activeElement.dataset.card || document.activeElement.textContent.trim())"""


def _tab_to(page: Page, selector: str) -> None:
    """Tab until the element matching ``selector`` has the focus."""
    for _ in range(60):
        if page.locator(f"{selector}:focus").count():
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_whole_game_by_keyboard_alone(page: Page, web_server: ServerThread) -> None:
    page.set_viewport_size(LAPTOP)
    page.goto(web_server.url)
    _tab_to(page, "input[name=name]")
    page.keyboard.type("Kim")
    page.keyboard.press("Enter")  # the form's submit
    page.get_by_role("button", name="Quick play").wait_for()
    assert by_keyboard(page, "button:text-is('New table')")
    _tab_to(page, "input[name=deals]")
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    assert by_keyboard(page, "button:text-is('Create')")
    page.get_by_role("heading", name="Waiting to start").wait_for()
    assert by_keyboard(page, "button:text-is('Start the game')")

    # Esc closes a panel and gives the focus back to the button that opened it.
    page.locator(".hand button.card").first.wait_for()
    assert by_keyboard(
        page, "button:has(> .lbl:text-is('Score sheet'))"
    )  # its icon is drawn beside the words
    page.get_by_role("heading", name="Score sheet").wait_for()
    page.keyboard.press("Escape")
    page.get_by_role("heading", name="Score sheet").wait_for(state="detached")
    assert page.evaluate(FOCUSED) == "Score sheet"

    # ←/→ walk the enabled cards of the hand, wrapping at the ends.
    play_until(
        page,
        lambda: page.locator(".hand button.card:enabled").count() >= 2,
        timeout=60,
    )
    enabled = page.locator(".hand button.card:enabled").evaluate_all(
        "bs => bs.map(b => b.dataset.card)"
    )
    _tab_to(page, ".hand button.card:enabled")
    first = page.evaluate(FOCUSED)
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED) == enabled[(enabled.index(first) + 1) % len(enabled)]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(FOCUSED) == enabled[(enabled.index(first) - 1) % len(enabled)]

    done = play_to_the_end([page], bids=("prise", "garde"), press=by_keyboard, timeout=120)
    assert done.count("play") >= 1
    assert page.locator(GAME_OVER).count() == 1


# The live region's every text, as it changes: collected through the DevTools
# protocol (the page's CSP rightly refuses an inline script).
LISTEN = """() => {
  window.heard = [];
  const region = document.getElementById('announce');
  new MutationObserver(() => {
    const text = region.textContent.trim();
    if (text) window.heard.push(text);
  }).observe(region, {childList: true, characterData: true, subtree: true});
}"""


def test_the_live_region_says_bids_tricks_and_the_result(
    page: Page, web_server: ServerThread
) -> None:
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Lou")
    new_table(page, deals=1)
    page.evaluate(LISTEN)
    page.get_by_role("button", name="Start the game").click()
    play_to_the_end([page], bids=("prise", "garde"))
    heard = " | ".join(page.evaluate("() => window.heard"))
    region = page.locator("#announce")
    assert region.get_attribute("aria-live") == "polite"
    # A bid in words, with who made it.
    assert re.search(r"(You|Bot \w+|\w+): (Pass|Prise|Garde|Garde sans|Garde contre)\b", heard), (
        heard
    )
    # A trick won: its cards in words and who takes it.
    assert re.search(r"(You take|\w+ takes) (the last )?trick", heard), heard
    # The deal's result in words (or why it was annulled), then the game's end.
    assert re.search(r"(made by|down by) \d+|Deal annulled", heard), heard
    assert "Game over" in heard

"""The page counts down on the server's clock (issue 33): a phone whose
clock is minutes off still shows the right seconds before the bots fill a
quick-play table. The server runs on a clock the test holds still, so the
countdown is exactly the gathering time; each page's own clock is shifted
by ten minutes, one ahead and one behind."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import ServerThread, patient_context
from tests.support.clock import ManualClock
from tests.web_helpers import PHONE, enter

SKEW_MS = 10 * 60 * 1000
GATHER_S = 300.0  # long: a busy machine takes seconds to get there, never minutes

# Shifts the page's Date (now and `new Date()`) by the given milliseconds.
SKEW_SCRIPT = """
(() => {
  const shift = %d;
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class Skewed extends RealDate {
    constructor(...args) { if (args.length === 0) super(realNow() + shift); else super(...args); }
    static now() { return realNow() + shift; }
  }
  globalThis.Date = Skewed;
})();
"""


@contextmanager
def skewed_page(browser: Browser, skew: int) -> Iterator[Page]:
    """A page of its own whose clock is ``skew`` milliseconds off."""
    context = patient_context(browser, viewport=PHONE)
    context.add_init_script(SKEW_SCRIPT % skew)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def still_server() -> Iterator[ServerThread]:
    server = ServerThread(clock=ManualClock(), quick_gather=GATHER_S).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("skew", [SKEW_MS, -SKEW_MS])
def test_a_page_whose_clock_is_off_counts_down_on_the_servers_clock(
    browser: Browser, still_server: ServerThread, skew: int
) -> None:
    with skewed_page(browser, skew) as page:
        enter(page, still_server.url, "Ann")
        page.get_by_role("button", name="Quick play").click()
        # The server's time stands still: the bots come in at most GATHER_S
        # seconds (less by the time the page took, counted on its own clock
        # from the server's time at welcome), whatever the page's clock says:
        # off by ten minutes it said 0 or 620.
        gathering = page.locator(".gathering")
        expect(gathering).to_contain_text("Waiting for players · bots fill the seats in ")
        assert 0 < _seconds(gathering.inner_text()) <= GATHER_S


def _seconds(text: str) -> int:
    """The number of seconds a countdown shows."""
    found = re.search(r"(\d+)\s?s\b", text)
    assert found, text
    return int(found.group(1))


@pytest.mark.parametrize("skew", [SKEW_MS, -SKEW_MS])
def test_the_turn_timer_counts_on_the_servers_clock(
    browser: Browser, still_server: ServerThread, skew: int
) -> None:
    with skewed_page(browser, skew) as page:
        enter(page, still_server.url, "Ann")
        page.get_by_role("button", name="New table").click()
        page.fill("input[name=timer]", "300")
        page.get_by_role("button", name="Create").click()
        page.get_by_role("button", name="Start the game").click()
        # Whoever speaks first has the whole 300 s, less what the page took
        # (the server's time stands still; the page counts from it, on its
        # own clock since the welcome): never the skew's 600 s more or less.
        countdown = page.locator(".seat-turn .countdown")
        expect(countdown).to_contain_text("s left")
        assert 0 < _seconds(countdown.inner_text()) <= 300

"""The browser client in a real Chromium against a real server (tests/browser.py):
whole deals by clicking, two browsers and a scripted protocol client at one
table, a reload mid-trick, the invite link, the daily game, errors in words,
and an accessibility scan at a phone's and a laptop's size. Any console error
fails a test (the ``page`` fixture).

The page's own tables are not seeded (its form has no seed): the clicking
loop answers whatever the deal asks, an annulled deal included, so the tests
do not depend on the cards dealt. Tables made by the scripted client are seeded.
"""

from __future__ import annotations

import random
import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from clients.session import Session
from protocol.codec import SUBPROTOCOL_JSON
from protocol.messages import JoinTable, Seated
from tests.browser import ServerThread, axe_violations, describe, patient_context
from tests.support.clients import autoplay
from tests.web_helpers import (
    GAME_OVER,
    LAPTOP,
    PHONE,
    enter,
    in_background,
    new_table,
    play_to_the_end,
    second_page,
    step,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


# -- a whole deal against bots ---------------------------------------------------------------


def test_a_whole_deal_against_bots_by_clicking(page: Page, web_server: ServerThread) -> None:
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Alice")
    new_table(page, deals=1)
    page.get_by_role("button", name="Start the game").click()
    page.locator(".hand button.card").first.wait_for()
    # Every card is a button with a spoken name; only the legal ones are enabled.
    names = page.locator(".hand button.card .visually-hidden").all_inner_texts()
    assert len(names) == 18
    assert all(
        re.fullmatch(r"(.+ of (spades|hearts|diamonds|clubs)|trump \d+|the .+)", n) for n in names
    ), names
    done = play_to_the_end([page], bids=("prise", "garde"))
    assert done.count("play") >= 1
    assert page.locator(GAME_OVER).count() == 1
    # What happened was said: the deal, bids, tricks, the result.
    log = page.locator(".log").inner_text()
    assert "takes the last trick" in log or "take the last trick" in log or "annulled" in log
    page.get_by_role("button", name="Score sheet").click()
    assert page.locator("table.sheet tbody tr").count() >= 1


# -- two browsers and a protocol client ------------------------------------------------------


def test_two_browsers_and_a_protocol_client_play_a_deal_to_the_end(
    browser: Browser, page: Page, web_server: ServerThread
) -> None:
    """The terminal client's side is a scripted ``clients.session.Session``
    (the very class the terminal client plays through), not the Textual screens."""
    page.set_viewport_size(LAPTOP)
    other, errors = second_page(browser)
    try:
        enter(page, web_server.url, "Alice")
        new_table(page, deals=1, private=True)
        code = page.locator(".waiting .code").inner_text()
        enter(other, web_server.url, "Bob")
        other.fill("input[name=code]", code)
        other.get_by_role("button", name="Sit down").click()
        other.get_by_role("heading", name="Waiting to start").wait_for()

        async def terminal() -> str:
            s = await Session.open(web_server.ws_url, "Carol", subprotocol=SUBPROTOCOL_JSON)
            try:
                await s.send(JoinTable(code=code))
                await s.wait_for(Seated)
                view = await autoplay(s, random.Random(7), lambda v: v.status == "finished", 90)
                return str(view.status)
            finally:
                await s.close()

        join = in_background(web_server, terminal())
        page.get_by_text("Carol").first.wait_for()
        page.get_by_role("button", name="Start the game").click()
        play_to_the_end([page, other], bids=("prise",), timeout=90)
        assert join() == "finished"
        for p in (page, other):
            seats = p.locator(".seats").inner_text()
            assert "Bob" in seats and "Carol" in seats and "Alice" in seats
        assert errors == []
    finally:
        other.context.close()


# -- a reload mid-trick ----------------------------------------------------------------------


def test_a_reload_mid_trick_resumes_the_same_trick(page: Page, start_web_server: Any) -> None:
    # A grace longer than a reload: no bot may play the seat meanwhile (the
    # fast settings' 0.2 s is shorter than a reload on a busy machine).
    web_server = start_web_server(grace=30.0)
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Alice")
    new_table(page, deals=3)
    page.get_by_role("button", name="Start the game").click()
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "never my turn with cards in the trick"
        trick = page.locator("figure.trick[aria-label^='Trick'] .trick-cards li")
        if trick.count() and page.locator(".hand button.card:enabled").count():
            break
        what = step(page)
        if not what:
            page.wait_for_timeout(50)
    before_trick = page.locator("figure.trick[aria-label^='Trick']").inner_text()
    before_hand = page.locator(".hand button.card").evaluate_all(
        "bs => bs.map(b => b.dataset.card)"
    )
    page.reload()
    page.locator(".hand button.card:enabled").first.wait_for()
    assert page.locator("figure.trick[aria-label^='Trick']").inner_text() == before_trick
    after_hand = page.locator(".hand button.card").evaluate_all("bs => bs.map(b => b.dataset.card)")
    assert after_hand == before_hand
    assert "Alice" in page.locator(".seats").inner_text()


# -- the invite link -------------------------------------------------------------------------


def test_the_invite_link_seats_a_newcomer(
    browser: Browser, page: Page, web_server: ServerThread
) -> None:
    enter(page, web_server.url, "Alice")
    new_table(page, private=True)
    link = page.get_by_label("Invite link").input_value()
    assert re.fullmatch(re.escape(web_server.url) + r"#join=[A-Z0-9]{6}", link), link
    friend = patient_context(browser, viewport=PHONE).new_page()
    try:
        friend.goto(link)
        friend.fill("input[name=name]", "Dana")
        friend.get_by_role("button", name="Play").click()
        friend.get_by_role("heading", name="Alice's table").wait_for()
        assert "#join" not in friend.url  # the code is used once, not on every reload
        page.locator(".seats", has_text="Dana").wait_for()
    finally:
        friend.context.close()


# -- the daily game --------------------------------------------------------------------------


def test_a_daily_game_to_its_result(page: Page, start_web_server: Any) -> None:
    server = start_web_server(daily_deals=2, result_wait=30.0)
    page.set_viewport_size(PHONE)
    enter(page, server.url, "Eve")
    page.get_by_role("button", name="Daily").click()
    page.locator(".hand button.card").first.wait_for()
    done = play_to_the_end([page], timeout=90)
    # The first deal's result waited for Continue (result_wait 30 s).
    assert "continue" in done
    page.get_by_text("Your day:").wait_for()
    lines = page.locator(".daily-lines li").all_inner_texts()
    assert len(lines) == 2 and all(line.startswith("Deal ") for line in lines), lines
    page.get_by_role("button", name="Leaderboard").click()
    page.locator("table.board tr.you").wait_for()
    assert "Eve" in page.locator("table.board").inner_text()
    # The profile shows her own place on each board, as the terminal's does.
    page.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Profile").click()
    places = page.locator("dl.places")
    places.get_by_text(re.compile(r"^#1, ")).wait_for()
    text = places.inner_text()
    assert re.search(r"Today:\s*#1, [\d.]+%, [+−]?\d+ points?", text), text
    assert re.search(r"7 days:\s*not listed", text), text


# -- errors in words ---------------------------------------------------------------------------


def test_a_refusal_is_shown_in_words_with_its_code(page: Page, web_server: ServerThread) -> None:
    enter(page, web_server.url, "Alice")
    page.fill("input[name=code]", "ZZZZZZ")
    page.get_by_role("button", name="Sit down").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert alert.inner_text() == "No open table has that id or code [no_such_table]"


def test_names_and_chat_are_text_never_html(
    browser: Browser, page: Page, web_server: ServerThread
) -> None:
    evil = "<img src=x onerror=alert(1)>"
    enter(page, web_server.url, "<b>Al</b>")
    new_table(page)
    page.get_by_role("button", name="Chat").click()
    page.fill("#chat-line", evil)
    page.get_by_role("button", name="Send").click()
    page.locator(".chat li", has_text="onerror").wait_for()
    assert page.locator(".chat img, .seats b").count() == 0
    assert evil in page.locator(".chat").inner_text()


def test_the_connection_drops_and_comes_back(page: Page, start_web_server: Any) -> None:
    """A dropped line shows "reconnecting" and the seat comes back."""
    server = start_web_server()
    enter(page, server.url, "Alice")
    new_table(page)

    async def cut() -> None:
        assert server.server is not None
        conn = next(c for c in server.server.front.conns if c.name == "Alice")
        # Drop the line under the page, as a lost network does (no close frame).
        conn.ws.transport.abort()

    server.call(cut())
    page.locator(".link-reconnecting, .link-connecting").first.wait_for()
    page.get_by_role("heading", name="Waiting to start").wait_for()
    page.locator(".link-online").wait_for(state="attached")


# -- accessibility -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_no_serious_accessibility_violation(
    page: Page, web_server: ServerThread, size: dict[str, int]
) -> None:
    page.set_viewport_size(size)
    enter(page, web_server.url, "Alice")
    bad = [v for v in axe_violations(page) if v.get("impact") in ("serious", "critical")]
    assert not bad, "lobby:\n" + describe(bad)
    new_table(page, deals=1)
    bad = [v for v in axe_violations(page) if v.get("impact") in ("serious", "critical")]
    assert not bad, "waiting table:\n" + describe(bad)
    page.get_by_role("button", name="Start the game").click()
    page.locator(".hand button.card").first.wait_for()
    page.get_by_role("button", name="Score sheet").click()
    bad = [v for v in axe_violations(page) if v.get("impact") in ("serious", "critical")]
    assert not bad, "a deal:\n" + describe(bad)
    # Touch targets: every button at least 44 px each way.
    small = page.locator("button:visible").evaluate_all(
        "bs => bs.map(b => b.getBoundingClientRect())"
        ".filter(r => r.width < 44 || r.height < 44).length"
    )
    assert small == 0
    # Nothing wider than the screen.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]


def test_the_page_speaks_french_from_the_shared_catalogs(
    page: Page, web_server: ServerThread
) -> None:
    enter(page, web_server.url, "Alice")
    page.get_by_label("Language").select_option("fr")
    page.get_by_role("button", name="Partie rapide").wait_for()
    assert page.evaluate("() => document.documentElement.lang") == "fr"
    page.reload()  # the choice is kept
    page.get_by_role("button", name="Partie rapide").wait_for()


def test_what_is_typed_in_a_form_survives_a_redraw(page: Page, web_server: ServerThread) -> None:
    """A lobby patch redraws the page while a person fills the new table's
    form: the deals they typed stay, and the table gets them."""
    enter(page, web_server.url, "Alice")
    page.get_by_role("button", name="New table").click()
    page.fill("input[name=deals]", "3")
    online = page.locator(".screen-title small").inner_text()

    passer = web_server.call(Session.open(web_server.ws_url, "Passer"))  # a lobby patch
    page.wait_for_function(
        "was => document.querySelector('.screen-title small').textContent !== was", arg=online
    )
    assert page.input_value("input[name=deals]") == "3"
    page.get_by_role("button", name="Create").click()
    page.get_by_text("3 deals").wait_for()
    web_server.call(passer.close())


def test_a_guest_plays_without_a_player_key(page: Page, web_server: ServerThread) -> None:
    """As ``atout connect --guest``: no key sent, so no daily game and no
    rename; tables as anyone. Importing a key makes the guest a player."""
    page.goto(web_server.url)
    page.fill("input[name=name]", "Gus")
    page.get_by_label("Play as a guest").check()
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Quick play").wait_for()
    assert page.get_by_role("button", name="Daily").is_disabled()

    async def who() -> list[Any]:
        assert web_server.server is not None
        return [c.player for c in web_server.server.front.conns if c.name == "Gus"]

    assert web_server.call(who()) == [None]
    assert (
        page.evaluate("() => Object.keys(localStorage).some(k => k.startsWith('atout:player'))")
        is False
    )
    page.get_by_role("button", name="Profile").click()
    page.get_by_text("You play as a guest: guests enter no leaderboard.").wait_for()
    assert page.get_by_role("button", name="Rename").count() == 0
    page.get_by_role("button", name="Close").click()
    new_table(page)  # a guest sits and plays like anyone
    page.reload()  # and stays a guest
    page.get_by_role("heading", name="Waiting to start").wait_for()
    assert web_server.call(who()) == [None]

"""The browser client at three and five players, in a real Chromium against a
real server (tests/browser.py): a table made from the page's form with its
Players choice, seats and score sheet sized to the table, the call at five
(buttons from ``legal.calls``), the called card and the partner shown, the
écart as large as the chien, and an accessibility scan at a phone's size.
Any console error fails a test (the ``page`` fixture).

The page's tables are not seeded: the clicking loop bids high and answers
whatever each deal asks until it has seen a call (or the game ends), so the
tests do not depend on the cards dealt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.browser import ServerThread, axe_violations, describe, patient_context
from tests.web_helpers import GAME_OVER, PHONE, Stall, enter, new_table, step

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HIGH = ("garde", "garde_sans", "garde_contre", "prise")


def _serious(page: Page) -> list[str]:
    bad = [v for v in axe_violations(page) if v.get("impact") in ("serious", "critical")]
    return [describe(bad)] if bad else []


def test_five_players_from_the_form_with_the_call_by_clicking(
    page: Page, web_server: ServerThread
) -> None:
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Alice")
    new_table(page, deals=4, players=5)
    assert page.locator(".seats li.seat").count() == 5
    page.get_by_role("button", name="Start the game").click()
    page.locator(".hand button.card").first.wait_for()
    assert page.locator(".hand button.card").count() == 15
    problems = _serious(page)

    done: list[str] = []
    called_lines: set[str] = set()
    ecart_prompts: set[str] = set()
    scanned_call = False
    stall = Stall(60)
    while True:
        stall.check(f"no game over; did {done[-20:]}")
        if page.locator("[data-call]:enabled").count() and not scanned_call:
            # The taker's call: a button a card, and why these cards.
            group = page.get_by_role("group", name="Call a card", exact=True)
            assert "you call a" in group.inner_text().lower()
            problems += _serious(page)
            scanned_call = True
        if page.get_by_role("group", name="Écart", exact=True).count():
            ecart_prompts.add(page.locator("#prompt").inner_text())
        for line in page.locator(".facts .called").all_inner_texts():
            called_lines.add(line)
        what = step(page, bids=HIGH)
        if what == "done":
            break
        if what:
            done.append(what)
            stall.moved()
        else:
            page.wait_for_timeout(50)
    assert not problems, problems
    assert page.locator(GAME_OVER).count() == 1
    calls = [d for d in done if d.startswith("call ")]
    log = page.locator(".log").inner_text()
    if calls:
        # Our call, in our words, and then the partner (or our being alone) once known.
        assert any(line.startswith("You call ") for line in called_lines), called_lines
        assert any("the partner:" in line or "play alone" in line for line in called_lines), (
            called_lines
        )
    # Somebody called in four deals of five players bidding garde or higher.
    assert called_lines, f"no call seen; did {done[-30:]}"
    if "ecart" in done:
        # The chien holds 3 at five: the écart is 3, never 6.
        assert any("Discard 3" in p for p in ecart_prompts), ecart_prompts
        assert not any("Discard 6" in p for p in ecart_prompts), ecart_prompts
        assert "takes the last trick" in log or "take the last trick" in log or "annulled" in log
    page.get_by_role("button", name="Score sheet").click()
    assert page.locator("table.sheet thead th").count() == 2 + 5
    assert page.locator("table.sheet tfoot td").count() == 5


def test_three_players_from_the_form_by_clicking(page: Page, web_server: ServerThread) -> None:
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Alice")
    new_table(page, deals=1, players=3)
    assert page.locator(".seats li.seat").count() == 3
    page.get_by_role("button", name="Start the game").click()
    page.locator(".hand button.card").first.wait_for()
    assert page.locator(".hand button.card").count() == 24
    done: list[str] = []
    stall = Stall(60)
    while (what := step(page, bids=HIGH)) != "done":
        stall.check(f"no game over; did {done[-20:]}")
        if what:
            done.append(what)
            stall.moved()
        else:
            page.wait_for_timeout(50)
    assert not any(d.startswith("call") for d in done)
    assert page.locator(".facts .called").count() == 0
    page.get_by_role("button", name="Score sheet").click()
    assert page.locator("table.sheet thead th").count() == 2 + 3


def test_the_lobby_lists_each_tables_size(
    browser: Browser, page: Page, web_server: ServerThread
) -> None:
    enter(page, web_server.url, "Alice")
    new_table(page, deals=1, players=5)
    other = patient_context(browser, viewport=PHONE).new_page()
    errors: list[str] = []
    other.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    other.on("pageerror", lambda e: errors.append(str(e)))
    try:
        enter(other, web_server.url, "Bob")
        row = other.locator(".table-row").first
        row.wait_for()
        assert "5 players" in row.inner_text()
    finally:
        other.context.close()
    assert not errors, errors

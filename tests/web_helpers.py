"""Playing the browser client as a person would, for the browser tests:
open the page and give a name, open a table, answer whatever the page asks
(one step at a time, or to the game's end), and run a protocol client in the
server's loop beside the page (tests/browser.py's ``ServerThread``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tests.browser import ServerThread

if TYPE_CHECKING:
    from playwright.sync_api import Page

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
GAME_OVER = "#result-title:text-is('Game over')"


def enter(page: Page, url: str, name: str) -> None:
    """Open the page and give a name: the lobby shows."""
    page.goto(url)
    page.fill("input[name=name]", name)
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Quick play").wait_for()
    page.locator(".link-online").wait_for(state="attached")


def new_table(page: Page, deals: int = 1, private: bool = False) -> None:
    page.get_by_role("button", name="New table").click()
    page.fill("input[name=deals]", str(deals))
    if private:
        page.get_by_label("private: invite code only").check()
    page.get_by_role("button", name="Create").click()
    page.get_by_role("heading", name="Waiting to start").wait_for()


def _click(page: Page, selector: str) -> bool:
    """Click the first enabled match, if any; False when there is none (or it
    went away under the click, as the view moves on)."""
    target = page.locator(f"{selector}:enabled").first
    if target.count() == 0:
        return False
    try:
        target.click(timeout=2000)
    except Exception:
        return False
    return True


def step(page: Page, bids: tuple[str, ...] = ("pass",)) -> str:
    """Do what the page asks now, as a person would, once: "done" when the
    game is over, what was done, or "" when nothing is asked."""
    if page.locator(GAME_OVER).count():
        return "done"
    if _click(page, "button:text-is('Continue')"):
        return "continue"
    if page.locator("[data-bid]:enabled").count():
        for bid in (*bids, "pass"):
            if _click(page, f"[data-bid={bid}]"):
                return f"bid {bid}"
    if _click(page, "button:text-is('No chelem')"):
        return "chelem"
    if page.get_by_role("group", name="Écart", exact=True).count():
        enabled = page.locator(".hand button.card:enabled")
        pressed = page.locator(".hand button.card[aria-pressed=true]").count()
        if pressed < 6:
            codes = [
                enabled.nth(i).get_attribute("data-card") or "" for i in range(enabled.count())
            ]
            # Suit cards first: trumps go only when the rule forces them.
            codes.sort(key=lambda c: c.startswith("T"))
            free = [
                c for c in codes if page.locator(f"[data-card='{c}'][aria-pressed=false]").count()
            ]
            if free:
                page.locator(f"[data-card='{free[0]}']").click()
                return "pick"
        if _click(page, "button:text-is('Discard')"):
            return "ecart"
        return ""
    if _click(page, ".hand button.card"):
        return "play"
    return ""


def play_to_the_end(
    pages: list[Page], bids: tuple[str, ...] = ("pass",), timeout: float = 60.0
) -> list[str]:
    """Click on every page until each shows the game over; what was done."""
    done: list[str] = []
    deadline = time.monotonic() + timeout
    finished: set[int] = set()
    while len(finished) < len(pages):
        assert time.monotonic() < deadline, f"no game over in {timeout} s; did {done[-20:]}"
        idle = True
        for i, page in enumerate(pages):
            if i in finished:
                continue
            what = step(page, bids)
            if what == "done":
                finished.add(i)
            elif what:
                done.append(what)
                idle = False
        if idle:
            pages[0].wait_for_timeout(50)
    return done


def in_background(server: ServerThread, coro: Any) -> Callable[[], Any]:
    """Run ``coro`` in the server's loop from a thread; returns a join()."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = server.call(coro, timeout=120)
        except BaseException as exc:
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def join() -> Any:
        thread.join(120)
        if "error" in out:
            raise out["error"]
        return out.get("result")

    return join


def play_until(page: Page, condition: Callable[[], bool], timeout: float = 60.0) -> list[str]:
    """Answer what the page asks (``step``) until ``condition()`` holds."""
    done: list[str] = []
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"condition not met in {timeout} s; did {done[-20:]}"
        what = step(page)
        assert what != "done", f"the game ended first; did {done[-20:]}"
        if what:
            done.append(what)
        else:
            page.wait_for_timeout(50)
    return done


def mid_trick(page: Page) -> bool:
    """My turn, with cards already in the trick."""
    trick = page.locator("figure.trick[aria-label^='Trick'] .trick-cards li")
    return bool(trick.count() and page.locator(".hand button.card:enabled").count())


def hand_of(page: Page) -> list[str]:
    """The card codes in the page's hand, in order."""
    cards: list[str] = page.locator(".hand button.card").evaluate_all(
        "bs => bs.map(b => b.dataset.card)"
    )
    return cards


def sheet_totals(page: Page) -> list[int]:
    """The score sheet's totals row, seat by seat (the sheet panel must be open)."""
    cells = page.locator("table.sheet tfoot td").all_inner_texts()
    return [int(c.replace("−", "-").replace("+", "")) for c in cells]

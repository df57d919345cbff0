"""Playing the browser client as a person would, for the browser tests:
open the page and give a name, open a table, answer whatever the page asks
(one step at a time, or to the game's end), and run a protocol client in the
server's loop beside the page (tests/browser.py's ``ServerThread``)."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from clients.session import Session
from protocol.messages import CreateTable, Seated, StartGame
from tests.browser import ServerThread, patient_context
from tests.support.clients import autoplay, choose, finished
from tests.support.waits import Deadline, patient

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
GAME_OVER = "#result-title:text-is('Game over')"


class Stall:
    """A guard against a game that hangs, not a measure of its speed: it
    fails only after ``quiet`` seconds (of an unhurried machine: ``Deadline``)
    in which nothing moved. A busy machine (CI, both cores taken) plays a
    whole game as slowly as it must: a bound on the whole game failed there
    with every move still coming."""

    def __init__(self, quiet: float) -> None:
        self.quiet = quiet
        self.deadline = Deadline(quiet)

    def moved(self) -> None:
        self.deadline.restart()

    def check(self, what: str) -> None:
        assert not self.deadline.passed(), f"{what}: nothing for {self.quiet:g} s"


def second_page(browser: Browser, viewport: dict[str, int] = PHONE) -> tuple[Page, list[str]]:
    """Another person's page, in a browser context of its own, and the errors
    its console and scripts report (the first page's are the fixture's)."""
    other = patient_context(browser, viewport=viewport).new_page()
    errors: list[str] = []
    other.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    other.on("pageerror", lambda e: errors.append(str(e)))
    return other, errors


def enter(page: Page, url: str, name: str) -> None:
    """Open the page and give a name: the lobby shows."""
    page.goto(url)
    page.fill("input[name=name]", name)
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Quick play").wait_for()
    page.locator(".link-online").wait_for(state="attached")


def new_table(page: Page, deals: int = 1, private: bool = False, players: int = 4) -> None:
    page.get_by_role("button", name="New table").click()
    page.fill("input[name=deals]", str(deals))
    page.select_option("select[name=players]", str(players))
    if private:
        page.get_by_label("private: invite code only").check()
    page.get_by_role("button", name="Create").click()
    page.get_by_role("heading", name="Waiting to start").wait_for()


Press = Callable[["Page", str], bool]
"""How a test acts on the page: ``click`` (the mouse), ``by_keyboard``."""


def click(page: Page, selector: str) -> bool:
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


def step(
    page: Page,
    bids: tuple[str, ...] = ("pass",),
    press: Press | None = None,
    play: bool = True,
    unless: Callable[[], bool] | None = None,
    asked: Callable[[str], None] | None = None,
) -> str:
    """Do what the page asks now, as a person would, once: "done" when the
    game is over, what was done, or "" when nothing is asked. ``unless``: a
    condition looked at again just before a card is played (the page may have
    reached it since the caller last looked: then no card goes). ``asked``:
    told "bidding", "call" or "ecart" just before we answer it — the page
    waits for us then, so a look at it sees that phase for sure (bots play at
    once: a phase the caller looked for a moment before may have come since)."""
    if page.locator(GAME_OVER).count():
        return "done"
    _click = press or click
    if _click(page, "button:text-is('Continue')"):
        return "continue"
    if page.locator("[data-bid]:enabled").count():
        if asked is not None:
            asked("bidding")
        for bid in (*bids, "pass"):
            if _click(page, f"[data-bid={bid}]"):
                return f"bid {bid}"
    if page.locator("[data-call]:enabled").count():
        if asked is not None:
            asked("call")
        # A card another seat holds (a primary button) if there is one.
        for which in ("[data-call]:not(.secondary)", "[data-call]"):
            card = page.locator(f"{which}:enabled").first
            code = card.get_attribute("data-call") if card.count() else None
            if code and _click(page, f"[data-call='{code}']"):
                return f"call {code}"
    if _click(page, "button:text-is('No chelem')"):
        return "chelem"
    if page.get_by_role("group", name="Écart", exact=True).count():
        if asked is not None:
            asked("ecart")
        if _click(page, "button:text-is('Discard')"):
            return "ecart"  # enabled: as many cards as the chien held are picked
        enabled = page.locator(".hand button.card:enabled")
        if enabled.count():
            codes = [
                enabled.nth(i).get_attribute("data-card") or "" for i in range(enabled.count())
            ]
            # Suit cards first: trumps go only when the rule forces them.
            codes.sort(key=lambda c: c.startswith("T"))
            free = [
                c for c in codes if page.locator(f"[data-card='{c}'][aria-pressed=false]").count()
            ]
            if free:
                _click(page, f"[data-card='{free[0]}']")
                return "pick"
        return ""
    if play and not (unless is not None and unless()) and _click(page, ".hand button.card"):
        return "play"
    return ""


def play_to_the_end(
    pages: list[Page],
    bids: tuple[str, ...] = ("pass",),
    timeout: float = 60.0,
    press: Press | None = None,
) -> list[str]:
    """Click on every page until each shows the game over; what was done.
    ``timeout``: the longest the game may stand still (``Stall``)."""
    done: list[str] = []
    stall = Stall(timeout)
    finished: set[int] = set()
    while len(finished) < len(pages):
        stall.check(f"no game over; did {done[-20:]}")
        idle = True
        for i, page in enumerate(pages):
            if i in finished:
                continue
            what = step(page, bids, press)
            if what == "done":
                finished.add(i)
            elif what:
                done.append(what)
                idle = False
                stall.moved()
        if idle:
            pages[0].wait_for_timeout(50)
    return done


JOIN_S = 300.0
"""The longest a play in the background may take (a whole tournament's
rounds), in seconds of an unhurried machine; its own waits end it sooner."""


def in_background(server: ServerThread, coro: Any) -> Callable[[], Any]:
    """Run ``coro`` in the server's loop from a thread; returns a join()."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = server.call(coro, timeout=patient(JOIN_S))
        except BaseException as exc:
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def join() -> Any:
        thread.join(patient(JOIN_S))
        assert not thread.is_alive(), "the play in the background did not end"
        if "error" in out:
            raise out["error"]
        return out.get("result")

    return join


def pia_sat_down(view: Any) -> bool:
    return any(s.name == "Pia" for s in view.seats)


def hosted_game(
    server: ServerThread,
    rng_seed: int | str,
    decide: Callable[[Any, random.Random], Any] = choose,
    ready: Callable[[Any], bool] = pia_sat_down,
    **create: Any,
) -> tuple[str, Callable[[], Any]]:
    """Hugo opens a private table (``CreateTable(private=True, **create)``)
    from the terminal side; once his view is ``ready`` (Pia sat down, by
    default) he starts it and plays ``decide``'s moves (random legal ones by
    default, from ``random.Random(rng_seed)``) to the game's end, in the
    background. Returns the invite code and a join() giving his last view."""
    box: dict[str, Session] = {}

    async def host_opens() -> str:
        s = box["session"] = await Session.open(server.ws_url, "Hugo")
        await s.send(CreateTable(private=True, **create))
        await s.wait_for(Seated)
        view = await s.wait_view(lambda v: v.invite_code is not None)
        return str(view.invite_code)

    code = server.call(host_opens())
    session = box["session"]

    async def host_plays() -> Any:
        try:
            await session.wait_view(ready, 30)
            await session.send(StartGame())
            return await autoplay(
                session, random.Random(rng_seed), finished, timeout=120, decide=decide
            )
        finally:
            await session.close()

    return code, in_background(server, host_plays())


def play_until(page: Page, condition: Callable[[], bool], timeout: float = 60.0) -> list[str]:
    """Answer what the page asks (``step``) until ``condition()`` holds.
    ``timeout``: the longest the game may stand still (``Stall``)."""
    done: list[str] = []
    stall = Stall(timeout)
    while not condition():
        stall.check(f"condition not met; did {done[-20:]}")
        what = step(page, unless=condition)
        assert what != "done", (
            f"the game ended first ({page.locator('.table-meta').inner_text()!r}); did {done[-20:]}"
        )
        if what:
            done.append(what)
            stall.moved()
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


# What Tab reaches, in the order it reaches it (no positive tabindex on the page).
_TABBABLE = """() => Array.from(document.querySelectorAll(
  'button:not([disabled]), input:not([disabled]), select:not([disabled]), a[href],'
  + ' [tabindex]:not([tabindex="-1"])'
)).filter(e => e.offsetParent !== null || e === document.activeElement)"""


def by_keyboard(page: Page, selector: str) -> bool:
    """Do to the first enabled match what a keyboard user does: Tab (or
    Shift+Tab, whichever way is shorter in the page's order) until it has the
    focus, then Enter. False when there is none, or when it went away while
    the focus travelled (the view moved on)."""
    target = page.locator(f"{selector}:enabled").first
    if target.count() == 0:
        return False
    for _ in range(120):
        try:
            where = target.evaluate(
                f"(t) => {{ const all = ({_TABBABLE})(); const now = document.activeElement; "
                "return [all.indexOf(t), all.indexOf(now), t === now]; }",
                timeout=2000,
            )
        except Exception:
            return False
        at, focused, done = where
        if done:
            # A toggle (a card of the écart) takes Space, a button Enter.
            toggle = target.get_attribute("aria-pressed") is not None
            page.keyboard.press("Space" if toggle else "Enter")
            return True
        if at < 0:
            return False
        page.keyboard.press("Shift+Tab" if 0 <= at < focused else "Tab")
    raise AssertionError(f"Tab never reached {selector}")

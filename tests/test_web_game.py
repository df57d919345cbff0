"""The browser client over a whole game, in a real Chromium against a real
server (tests/browser.py): the issue's "done when" as far as one machine can
stage it — a friend on a phone-sized browser, invited by link, and a player
on the terminal client's protocol client play a whole game with bots, the
phone reloading mid-deal; a server restart on Redis under the page; a slow
and a dropping network.

The terminal player is ``clients.session.Session``, the class the terminal
client plays through (with its default msgpack subprotocol), driven by the
tests' random legal player; the Textual screens have their own tests.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from clients.cli.history import past_deals
from clients.session import Session
from protocol.cards import CODES
from protocol.messages import GetHistory, History, Watch
from server.game.game import Game
from tests.browser import ServerThread
from tests.support.redis import RedisServer, RedisUnavailable
from tests.web_helpers import (
    GAME_OVER,
    PHONE,
    Stall,
    click,
    enter,
    hand_of,
    hosted_game,
    in_background,
    mid_trick,
    new_table,
    play_to_the_end,
    play_until,
    sheet_totals,
    step,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

TRICK = "figure.trick[aria-label^='Trick']"


def _deal_number(page: Page) -> int:
    found = re.search(r"deal (\d+)/", page.locator(".table-meta").inner_text())
    return int(found.group(1)) if found else 0


def test_a_phone_and_the_terminal_client_play_a_whole_game_with_a_reload(
    page: Page, start_web_server: Any
) -> None:
    """The terminal player opens a private table of two deals and sends the
    link; the phone joins by it, plays both deals, reloads in the middle of
    the second one and carries on; the two bots fill the other seats. Both
    ends see the same final scores."""
    # A grace longer than a reload: no bot may play the phone's seat meanwhile.
    web_server = start_web_server(grace=30.0)
    page.set_viewport_size(PHONE)
    code, join = hosted_game(web_server, 3, name="Friday", deals=2, seed="web-game")
    page.goto(f"{web_server.url}#join={code}")
    page.fill("input[name=name]", "Pia")
    page.get_by_role("button", name="Play").click()
    page.get_by_role("heading", name="Friday").wait_for()
    page.locator(".hand button.card").first.wait_for()

    # Mid-deal 2, at the phone's turn: it answers what deal 2 asks but plays no
    # card (the server waits for it), so the reload catches its turn.
    play_until(page, lambda: _deal_number(page) == 2, timeout=90)
    deadline = time.monotonic() + 60
    while not page.locator(".hand button.card:enabled").count():
        assert time.monotonic() < deadline, "never the phone's turn to play in deal 2"
        if not step(page, play=False):
            page.wait_for_timeout(50)
    trick, hand = page.locator(TRICK).inner_text(), hand_of(page)
    page.reload()
    page.locator(".hand button.card:enabled").first.wait_for()
    assert _deal_number(page) == 2
    assert page.locator(TRICK).inner_text() == trick
    assert hand_of(page) == hand

    play_to_the_end([page], bids=("prise",), timeout=90)
    final = join()
    assert final.status == "finished"
    page.get_by_role("button", name="Score sheet").click()
    assert page.locator("table.sheet tbody tr").count() == len(final.sheet) >= 2
    assert sheet_totals(page) == list(final.scores)
    seats = page.locator(".seats").inner_text()
    assert "Hugo" in seats and "Pia" in seats and seats.count("bot") >= 1


# While the server is down, Chromium logs the page's refused attempts.
REFUSED = r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/' failed: .*ERR_CONNECTION_REFUSED"


@pytest.mark.console_allows(REFUSED)
def test_the_page_comes_back_by_itself_after_a_server_restart_on_redis(
    page: Page, start_web_server: Any
) -> None:
    """Mid-trick, the server stops (saving its tables in Redis) and a new one
    starts on the same port and Redis: the page reconnects without a click,
    resumes its seat and shows the same trick and hand, and the deal goes on."""
    try:
        redis = RedisServer()
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with redis:
        # A long grace: no bot may stand in for the page while it reconnects.
        first = start_web_server(redis_url=redis.url, grace=30.0)
        page.set_viewport_size(PHONE)
        enter(page, first.url, "Rita")
        new_table(page, deals=2)
        page.get_by_role("button", name="Start the game").click()
        play_until(page, lambda: mid_trick(page))
        trick, hand = page.locator(TRICK).inner_text(), hand_of(page)

        first.stop()
        page.locator(".link-reconnecting").wait_for()
        second = start_web_server(redis_url=redis.url, grace=30.0, port=first.port)
        page.locator(".link-online").wait_for(state="attached")
        page.locator(".hand button.card:enabled").first.wait_for()
        assert page.locator(TRICK).inner_text() == trick
        assert hand_of(page) == hand
        assert "Rita" in page.locator(".seats").inner_text()
        # The restored deal plays on: a card played leaves the hand.
        assert step(page) == "play"
        page.wait_for_function(
            "n => document.querySelectorAll('.hand button.card').length === n", arg=len(hand) - 1
        )
        second.stop()  # before its Redis goes


NOTICES = """() => {
  window.shown = [];
  new MutationObserver(() => {
    for (const n of document.querySelectorAll('.notice')) {
      if (!window.shown.includes(n.textContent)) window.shown.push(n.textContent);
    }
    const link = document.querySelector('.link');
    if (link && !window.shown.includes(link.className)) window.shown.push(link.className);
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


async def cut(server: ServerThread, name: str) -> None:
    """Drop ``name``'s lines under it, as a lost network does (no close frame)."""
    assert server.server is not None
    for conn in [c for c in server.server.front.conns if c.name == name]:
        conn.ws.transport.abort()


# Every click the page takes on a card to play (capture phase: before the
# page's own handler; a disabled button takes no click at all).
CLICKS = """() => {
  window.clicks = [];
  document.addEventListener('click', (e) => {
    const b = e.target.closest && e.target.closest('.hand button.card');
    if (b && !b.disabled && !b.hasAttribute('aria-pressed')) window.clicks.push(b.dataset.card);
  }, true);
}"""


def _stored_seat(page: Page, server: ServerThread) -> dict[str, Any]:
    seat: dict[str, Any] = page.evaluate(
        "key => JSON.parse(localStorage.getItem(key))", f"atout:seat:{server.ws_url}/"
    )
    return seat


def test_a_slow_then_dropping_network_loses_and_doubles_no_move(
    page: Page, start_web_server: Any
) -> None:
    """Chromium's network emulation: 400 ms each way while every card is
    double-clicked, then offline for a few seconds in the middle of the deal.
    What the server recorded (seen by a spectator) is exactly the cards
    clicked, in order, and no refusal was ever shown."""
    # A grace longer than the outage: no bot stands in for the page meanwhile.
    web_server = start_web_server(grace=30.0)
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Nina")
    new_table(page, deals=1)
    seat = _stored_seat(page, web_server)
    page.evaluate(NOTICES)
    page.evaluate(CLICKS)

    async def watch() -> Any:
        s = await Session.open(web_server.ws_url, "Sam")
        try:
            await s.send(Watch(table_id=seat["table_id"]))
            return await s.wait_view(lambda v: v.status == "finished", timeout=150)
        finally:
            await s.close()

    watched = in_background(web_server, watch())
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    slow = {"offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", slow)
    page.get_by_role("button", name="Start the game").click()

    clicked: list[str] = []

    def but_cards(page: Page, selector: str) -> bool:
        # Cards are played by the loop below, which records them.
        return selector != ".hand button.card" and click(page, selector)

    went_offline = False
    stall = Stall(60)
    while not page.locator(GAME_OVER).count():
        stall.check(f"no game over; clicked {clicked}")
        card = page.locator(".hand button.card:enabled").first
        if card.count() and not page.get_by_role("group", name="Écart", exact=True).count():
            try:
                card.dblclick(timeout=2000)  # the second click must not play twice
            except Exception:
                continue  # the view moved on under the click
            clicked = page.evaluate("() => window.clicks")
            stall.moved()
            if len(clicked) >= 6 and not went_offline:
                went_offline = True
                # The device loses its network: the page says so at once, and
                # the server loses the line if it still has it (as it would,
                # later, by its pings).
                cdp.send("Network.emulateNetworkConditions", {**slow, "offline": True})
                page.locator(".link-reconnecting", has_text="no network").wait_for()
                web_server.call(cut(web_server, "Nina"))
                page.wait_for_timeout(3000)  # a few seconds without a network
                assert page.locator(".link-reconnecting").count() == 1
                assert page.locator(".hand button.card:enabled").count() == 0
                cdp.send("Network.emulateNetworkConditions", slow)
                page.locator(".link-online").wait_for(state="attached")
            continue
        if step(page, bids=("prise", "garde"), press=but_cards):
            stall.moved()
        else:
            page.wait_for_timeout(50)
    final = watched()
    assert went_offline
    mine = [
        code
        for trick in final.deal.tricks
        for i, code in enumerate(trick.cards)
        if (trick.leader + i) % 4 == seat["seat"]
    ]
    assert mine == page.evaluate("() => window.clicks")
    shown = page.evaluate("() => window.shown")
    assert "link link-reconnecting" in shown
    assert not [n for n in shown if "not_your_turn" in n or "illegal_card" in n], shown


def _seed_giving_a_poignee(seat: int) -> str:
    """A seed whose first deal gives ``seat`` a simple poignée (10 trumps,
    the Excuse counted), found with the rules engine itself."""
    for i in range(10_000):
        seed = f"poignee-{i}"
        hand = [CODES[c] for c in Game(deals=1, seed=seed).deal.dealt[seat]]
        if sum(c.startswith("T") or c == "EX" for c in hand) >= 10:
            return seed
    raise AssertionError("no seed gives a poignée")


def test_a_poignee_is_offered_picked_and_shown(page: Page, web_server: ServerThread) -> None:
    seed = _seed_giving_a_poignee(1)
    code, join = hosted_game(web_server, 5, deals=1, seed=seed)
    page.set_viewport_size(PHONE)
    page.goto(f"{web_server.url}#join={code}")
    page.fill("input[name=name]", "Pia")
    page.get_by_role("button", name="Play").click()
    page.locator(".hand button.card").first.wait_for()
    assert _stored_seat(page, web_server)["seat"] == 1

    offer = page.get_by_role("button", name=re.compile(r"^Show poignée simple \(10, \+20\)"))

    def but_not_a_card_past_the_offer(page: Page, selector: str) -> bool:
        # Playing a card first would let the offer go by.
        return not (selector == ".hand button.card" and offer.count()) and click(page, selector)

    deadline = time.monotonic() + 60
    while not offer.count():
        assert time.monotonic() < deadline, "no poignée offered"
        if not step(page, bids=("pass",), press=but_not_a_card_past_the_offer):
            page.wait_for_timeout(50)
    offer.click()
    # The lowest trumps are chosen (the Excuse only to make up the 10); Show.
    assert page.locator(".hand button.card[aria-pressed=true]").count() == 10
    page.get_by_text("Ready: press “Show” to show your poignée.").wait_for()
    page.get_by_role("button", name="Show", exact=True).click()
    page.get_by_text("Poignée simple: You").wait_for()
    assert page.locator(".log", has_text="You show a 10-card poignée").count() == 1
    play_to_the_end([page], timeout=90)
    final = join()
    # The server took it: the terminal player saw the 10 cards shown by seat 1.
    assert final.deal is not None
    assert [(p.seat, len(p.cards)) for p in final.deal.poignees if p.seat == 1] == [(1, 10)]


def test_past_deals_replay_trick_by_trick_as_the_rules_engine_does(
    page: Page, web_server: ServerThread
) -> None:
    """The page's replay of a past deal names, for every trick, the same
    leader and winner as the terminal client's replay through the engine
    (clients/cli/history.py) of the same records; Esc closes it."""
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Ada")
    new_table(page, deals=1)
    seat = _stored_seat(page, web_server)["seat"]
    table_id = _stored_seat(page, web_server)["table_id"]
    page.get_by_role("button", name="Start the game").click()
    play_to_the_end([page], bids=("prise", "garde"))

    async def records() -> tuple[list[str], list[dict[str, Any]]]:
        s = await Session.open(web_server.ws_url, "Sam")
        try:
            await s.send(Watch(table_id=table_id))
            view = await s.wait_view(lambda v: v.status == "finished")
            await s.send(GetHistory())
            answer = await s.wait_for(History)
            return [x.name for x in view.seats], list(answer.records)
        finally:
            await s.close()

    names, got = web_server.call(records())
    deals = past_deals(got)
    played = next(d for d in deals if d.tricks)
    page.get_by_role("button", name="Past deals").click()
    past = page.locator("ol.past li button")
    past.first.wait_for()
    assert past.count() == len(deals)
    past.nth(deals.index(played)).click()

    def who(s: int) -> str:
        return "You" if s == seat else names[s]

    for n, trick in enumerate(played.tricks, 1):
        caption = page.locator(".replay figcaption").inner_text()
        took = "you took it" if trick.winner == seat else f"{who(trick.winner)} took it"
        assert caption == f"Trick {n} of 18 · {who(trick.leader)} led · {took}", caption
        cards = page.locator(".replay .trick-cards li .card").evaluate_all(
            "cs => cs.map(c => c.getAttribute('aria-label'))"
        )
        assert len(cards) == 4
        if n < 18:
            page.get_by_role("button", name="Next trick").click()
    page.keyboard.press("Escape")
    page.get_by_role("heading", name="Past deals").wait_for(state="detached")

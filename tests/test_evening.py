"""One evening, both clients (issue 33, item 9): two terminal clients
(Textual's pilot) and two browser pages on one server with Redis, as friends
would meet: they connect and see the lobby, press quick play one after the
other and sit at one table of four (full: it starts at once), a page reloads
mid-deal, a terminal client drops and comes back, someone leaves mid-game;
then a table of five (four of them and a bot), its game played to the end
(each person's turn timer runs out on the server's clock, moved by hand, and
a bot plays for them), the final scores on every screen, "Play again", the
second game dealt, and someone leaves it. What each person sees is checked
at each step.

The terminal clients run in the server's loop (the browser tests' server
thread): each step is a coroutine handed to it."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from clients.cli.app import AtoutApp
from protocol.views import TableView
from tests.browser import ServerThread, patient_context
from tests.support.pilot import SIZE, click, client, screen_text, table, until
from tests.support.redis import RedisServer, RedisUnavailable
from tests.support.waits import eventually
from tests.web_helpers import GAME_OVER, LAPTOP, PHONE, enter, hand_of

COUNTDOWN = "Waiting for players · bots fill the seats in"


class LeapingClock:
    """The wall clock, which the test makes leap forward (``leap``): the
    server's timers due by then fire at once, the others keep their moment.
    Not a ``ManualClock``: the lobby and the links live by the time passing,
    only the turn timers are skipped over."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.pending: set[Leaping] = set()

    def time(self) -> float:
        return time.time() + self.offset

    def call_at(self, when: float, callback: Callable[[], None]) -> Leaping:
        timer = Leaping(self, when, callback)
        timer.arm()
        return timer

    async def sleep(self, seconds: float) -> None:
        done = asyncio.get_running_loop().create_future()
        timer = self.call_at(self.time() + seconds, lambda: done.done() or done.set_result(None))
        try:
            await done
        finally:
            timer.cancel()

    def leap(self, seconds: float) -> None:
        """Time jumps ``seconds`` ahead (in the server's loop)."""
        self.offset += seconds
        for timer in list(self.pending):
            timer.arm()


class Leaping:
    def __init__(self, clock: LeapingClock, when: float, callback: Callable[[], None]) -> None:
        self.clock, self.when, self.callback = clock, when, callback
        self.loop = asyncio.get_running_loop()
        self.handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.clock.pending.add(self)
        self.handle = self.loop.call_later(max(0.0, self.when - self.clock.time()), self.fire)

    def fire(self) -> None:
        self.clock.pending.discard(self)
        self.callback()

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.clock.pending.discard(self)


class Terminal:
    """A person at the terminal client, in the server thread's loop: one
    task holds the client (Textual's context lives in it) and carries out
    the steps handed to it, one at a time."""

    def __init__(self, server: ServerThread, folder: Path, name: str, players: int = 4) -> None:
        self.server = server
        self.app: AtoutApp = client(server.ws_url, folder, name)
        self.app.players = players  # ``atout connect --players N``
        self.steps: asyncio.Queue[Any] | None = None

        async def start() -> None:
            self.steps = asyncio.Queue()
            self.task = asyncio.get_running_loop().create_task(self._serve())

        server.call(start())

    async def _serve(self) -> None:
        assert self.steps is not None
        async with self.app.run_test(size=SIZE) as pilot:
            while True:
                step, done = await self.steps.get()
                if step is None:
                    await self.app.aclose()
                    done.set_result(None)
                    return
                try:
                    done.set_result(await step(pilot, self.app))
                except Exception as e:  # reported in the test's thread
                    done.set_exception(e)

    def do(self, step: Callable[[Any, AtoutApp], Coroutine[Any, Any, Any]] | None) -> Any:
        async def hand_over() -> Any:
            assert self.steps is not None
            done = asyncio.get_running_loop().create_future()
            await self.steps.put((step, done))
            return await done

        return self.server.call(hand_over(), timeout=90)

    def sees(self, *texts: str) -> None:
        async def look(pilot: Any, app: AtoutApp) -> None:
            try:
                await until(pilot, lambda: all(t in screen_text(app) for t in texts))
            except AssertionError as e:
                raise AssertionError(f"{texts} not on screen:\n{screen_text(app)}") from e

        self.do(look)

    def close(self) -> None:
        self.do(None)

    def view(self) -> TableView:
        async def look(pilot: Any, app: AtoutApp) -> TableView:
            await until(pilot, lambda: app.link.table is not None, what="a table")
            return table(app)

        result: TableView = self.do(look)
        return result


async def leave_mid_game(pilot: Any, app: AtoutApp) -> None:
    """Esc at the table, then Leave in the question: back in the lobby."""
    await pilot.press("escape")
    await click(pilot, "#yes")
    await until(pilot, lambda: app.link.table is None, what="back in the lobby")


def join_in_lobby(name: str) -> Callable[[Any, AtoutApp], Coroutine[Any, Any, TableView]]:
    """Down the lobby's list to the table called ``name``, then Enter."""

    async def join(pilot: Any, app: AtoutApp) -> TableView:
        def listed() -> bool:
            lobby = app.link.lobby
            return lobby is not None and name in [t.name for t in lobby.tables]

        await until(pilot, listed, what=f"{name} listed")
        await until(pilot, lambda: name in screen_text(app), what=f"{name} on screen")
        lobby = app.link.lobby
        assert lobby is not None
        rows = [t.name for t in lobby.tables]
        # Up to the first row (the cursor stays on the row it was on as the
        # list changes), then down to the table.
        await pilot.press(*["up"] * len(rows), *["down"] * rows.index(name), "enter")
        await until(pilot, lambda: app.link.table is not None, what="seated")
        return table(app)

    return join


def left_open(text: str) -> bool:
    return "Play again" in text and "Game over" in text


def play_out(server: ServerThread, clock: LeapingClock, watcher: Terminal) -> TableView:
    """Each human's turn runs out, one after the other, on the server's
    clock (a bot plays it, as for anyone too slow): the game is played to
    its end. Read from one person's client, in the server's loop."""
    app = watcher.app

    async def run() -> TableView:
        def moved() -> bool:
            view = app.link.table
            assert view is not None
            if view.status == "finished":
                return True
            # One deadline per decision: once past it, the next one is later.
            if view.deadline is not None and view.deadline > clock.time():
                clock.leap(view.deadline - clock.time() + 0.5)
            return False

        await eventually(moved, 60.0, "the game played to its end", poll=0.01)
        view = app.link.table
        assert view is not None
        return view

    result: TableView = server.call(run(), timeout=90)
    return result


def test_one_evening_two_terminals_and_two_browsers(
    browser: Browser, page: Page, start_web_server: Callable[..., ServerThread], tmp_path: Path
) -> None:
    try:
        redis = RedisServer()
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with redis:
        # A grace longer than a reload or a reconnection: no bot plays for
        # someone who is coming back.
        clock = LeapingClock()  # leaps over the turn timers at the table of five
        server = start_web_server(redis_url=redis.url, grace=60.0, quick_gather=120.0, clock=clock)
        page.set_viewport_size(LAPTOP)
        dan = patient_context(browser, viewport=PHONE).new_page()
        people: list[Terminal] = []
        try:
            # -- they connect: the lobby, with the count of people online ------------
            ann = Terminal(server, tmp_path, "Ann")
            people.append(ann)
            bea = Terminal(server, tmp_path, "Bea")
            people.append(bea)
            enter(page, server.url, "Cat")
            enter(dan, server.url, "Dan")
            ann.sees("4 online", "No open table yet")
            bea.sees("4 online", "Open tables")

            # -- quick play, one after the other: one table ---------------------------
            async def quick(pilot: Any, app: AtoutApp) -> str:
                await pilot.press("p")
                await until(pilot, lambda: app.link.table is not None, what="seated")
                return table(app).table_id

            first = ann.do(quick)
            ann.sees(COUNTDOWN, "Start now")
            page.get_by_role("button", name="Quick play").click()
            expect(page.locator(".gathering")).to_contain_text(COUNTDOWN)
            expect(page.locator(".seats")).to_contain_text("Ann")
            assert bea.do(quick) == first
            bea.sees(COUNTDOWN, "Ann", "Cat")
            # The fourth fills the table: it starts at once, four people, no bot.
            dan.get_by_role("button", name="Quick play").click()
            for p in (page, dan):
                p.locator(".hand button.card").first.wait_for()
            for person in (ann, bea):

                async def dealt(pilot: Any, app: AtoutApp) -> list[str]:
                    await until(pilot, lambda: len(table(app).hand) == 18, what="a hand")
                    return [s.name or "" for s in table(app).seats if s.kind == "human"]

                assert sorted(person.do(dealt)) == ["Ann", "Bea", "Cat", "Dan"]
            for p in (page, dan):
                seats = p.locator(".seats").inner_text()
                assert all(n in seats for n in ("Ann", "Bea", "Cat", "Dan"))
                assert "Bot" not in seats

            # -- Cat reloads mid-deal: the same seat and hand --------------------------
            hand = hand_of(page)
            page.reload()
            page.locator(".hand button.card").first.wait_for()
            assert hand_of(page) == hand

            # -- Bea's client drops and comes back: the same seat, the same cards ------
            async def seat_and_hand(pilot: Any, app: AtoutApp) -> tuple[int | None, list[str]]:
                await until(pilot, lambda: app.link.table is not None and table(app).hand)
                return table(app).you, list(table(app).hand)

            before = bea.do(seat_and_hand)
            bea.close()
            people.remove(bea)
            bea = Terminal(server, tmp_path, "Bea")  # the same folder: her seat's token
            people.append(bea)
            assert bea.do(seat_and_hand) == before
            ann.sees("Bea")

            # -- Dan leaves mid-game: a bot takes his seat, the others see it ----------
            dan.get_by_role("button", name="Leave").click()
            dan.get_by_role("button", name="Leave").last.click()  # the confirmation
            dan.get_by_role("button", name="Quick play").wait_for()

            async def bot_for_dan(pilot: Any, app: AtoutApp) -> None:
                await until(
                    pilot,
                    lambda: (
                        "Dan" not in [s.name for s in table(app).seats]
                        and sum(s.kind == "bot" for s in table(app).seats) == 1
                    ),
                    what="a bot in Dan's seat",
                )

            ann.do(bot_for_dan)
            bea.do(bot_for_dan)
            expect(page.locator(".seats")).not_to_contain_text("Dan")

            # -- the others leave too: the lobby again ---------------------------------
            ann.do(leave_mid_game)
            bea.do(leave_mid_game)
            page.get_by_role("button", name="Leave").click()
            page.get_by_role("button", name="Leave").last.click()
            page.get_by_role("button", name="Quick play").wait_for()

            # -- a table of five: Cat makes it, one deal, a turn timer -----------------
            page.get_by_role("button", name="New table").click()
            page.fill("input[name=name]", "Friday tarot")
            page.select_option("select[name=players]", "5")
            page.fill("input[name=deals]", "1")
            page.fill("input[name=timer]", "20")
            page.get_by_role("button", name="Create").click()
            page.get_by_role("button", name="Start the game").wait_for()
            dan.get_by_role("button", name="Join Friday tarot").click()
            five = ann.do(join_in_lobby("Friday tarot"))
            assert bea.do(join_in_lobby("Friday tarot")).table_id == five.table_id
            expect(page.locator(".seats")).to_contain_text(re.compile("Ann.*Bea|Bea.*Ann", re.S))
            page.get_by_role("button", name="Start the game").click()
            # Four people and a bot in the fifth seat.
            for p in (page, dan):
                p.locator(".hand button.card").first.wait_for()
                assert p.locator(".hand button.card").count() == 15
            for person in (ann, bea):

                async def five_dealt(pilot: Any, app: AtoutApp) -> list[str]:
                    await until(pilot, lambda: len(table(app).hand) == 15, what="a hand of 15")
                    return [s.kind for s in table(app).seats]

                assert sorted(person.do(five_dealt)) == ["bot"] + ["human"] * 4

            # -- the game is played to its end: the same final scores on every screen --
            over = play_out(server, clock, ann)
            assert over.ranking is not None
            names = {s.name for s in over.seats}
            assert {"Ann", "Bea", "Cat", "Dan"} < names
            top = over.ranking[0]
            for person in (ann, bea):
                final = person.view()
                assert final.status == "finished" and final.scores == over.scores
                # The winner by name, or "You" on the winner's own screen.
                first = "1. You" if final.you == top else f"1. {over.seats[top].name}"
                person.sees("Game over", "Play again", first)
            for p in (page, dan):
                p.locator(GAME_OVER).wait_for()
                ranking = p.locator("ol.ranking li").all_inner_texts()
                assert len(ranking) == 5
                shown = [re.sub(r"\s+", " ", line) for line in ranking]
                for place, seat in enumerate(over.ranking):
                    name = over.seats[seat].name or ""
                    assert name in shown[place], (place, name, shown)
                    score = over.scores[seat]
                    assert (f"+{score}" if score > 0 else f"{score}".replace("-", "−")) in (
                        shown[place].replace("-", "−")
                    ), (score, shown[place])
                p.get_by_role("button", name="Play again").wait_for()

            # -- "again": Dan presses Play again, the second game is dealt to all ------
            dan.get_by_role("button", name="Play again").click()
            for p in (page, dan):
                expect(p.locator(GAME_OVER)).to_have_count(0)
                p.locator(".hand button.card").first.wait_for()
                assert p.locator(".hand button.card").count() == 15
            for person in (ann, bea):

                async def second_game(pilot: Any, app: AtoutApp) -> None:
                    await until(
                        pilot,
                        lambda: (
                            table(app).status == "playing"
                            and len(table(app).hand) == 15
                            and not table(app).sheet
                            and table(app).scores == [0] * 5
                        ),
                        what="the second game dealt",
                    )
                    await until(pilot, lambda: "Game over" not in screen_text(app))

                person.do(second_game)

            # -- Bea leaves the second game: a bot takes her seat, all see it ----------
            bea.do(leave_mid_game)

            async def bot_for_bea(pilot: Any, app: AtoutApp) -> None:
                await until(
                    pilot,
                    lambda: (
                        "Bea" not in [s.name for s in table(app).seats]
                        and sum(s.kind == "bot" for s in table(app).seats) == 2
                    ),
                    what="a bot in Bea's seat",
                )

            ann.do(bot_for_bea)
            ann.sees("Bot")
            for p in (page, dan):
                expect(p.locator(".seats")).not_to_contain_text("Bea")
        finally:
            for person in people:
                person.close()
            dan.context.close()
            server.stop()


@pytest.mark.parametrize("players", [3, 5])
def test_a_terminal_and_a_page_quick_playing_at_three_or_five_sit_together(
    page: Page, start_web_server: Callable[..., ServerThread], tmp_path: Path, players: int
) -> None:
    """``atout connect --players N`` and the page's size choice: one presses
    quick play, the other a moment later (within the gathering time), and
    they sit at one table of that size; its countdown and Start now on both."""
    server = start_web_server(quick_gather=120.0)
    ann = Terminal(server, tmp_path, "Ann", players=players)
    try:
        enter(page, server.url, "Cat")
        ann.sees("2 online")

        async def quick(pilot: Any, app: AtoutApp) -> str:
            await pilot.press("p")
            await until(pilot, lambda: app.link.table is not None, what="seated")
            return table(app).table_id

        ann.do(quick)
        ann.sees(COUNTDOWN, "Start now")
        page.get_by_label("Players").first.select_option(str(players))
        page.get_by_role("button", name="Quick play").click()
        expect(page.locator(".gathering")).to_contain_text(COUNTDOWN)
        expect(page.locator(".seats")).to_contain_text("Ann")
        ann.sees("Cat")
        assert len(ann.view().seats) == players
        page.get_by_role("button", name="Start now").click()
        page.locator(".hand button.card").first.wait_for()
        hand = {3: 24, 5: 15}[players]
        assert page.locator(".hand button.card").count() == hand

        async def dealt(pilot: Any, app: AtoutApp) -> list[str]:
            await until(pilot, lambda: len(table(app).hand) == hand, what="a hand")
            return [s.kind for s in table(app).seats]

        assert sorted(ann.do(dealt)) == ["bot"] * (players - 2) + ["human"] * 2
    finally:
        ann.close()
        server.stop()

"""One evening, both clients (issue 33, item 9): two terminal clients
(Textual's pilot) and two browser pages on one server with Redis, as friends
would meet: they connect and see the lobby, press quick play one after the
other and sit at one table of four (full: it starts at once), a page reloads
mid-deal, a terminal client drops and comes back, someone leaves mid-game.
What each person sees is checked at each step.

The terminal clients run in the server's loop (the browser tests' server
thread): each step is a coroutine handed to it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from clients.cli.app import AtoutApp
from tests.browser import ServerThread
from tests.support.pilot import SIZE, client, screen_text, table, until
from tests.support.redis import RedisServer, RedisUnavailable
from tests.web_helpers import LAPTOP, PHONE, enter, hand_of

COUNTDOWN = "Waiting for players · bots fill the seats in"


class Terminal:
    """A person at the terminal client, in the server thread's loop: one
    task holds the client (Textual's context lives in it) and carries out
    the steps handed to it, one at a time."""

    def __init__(self, server: ServerThread, folder: Path, name: str) -> None:
        self.server = server
        self.app: AtoutApp = client(server.ws_url, folder, name)
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
            await until(pilot, lambda: all(t in screen_text(app) for t in texts), what=str(texts))

        self.do(look)

    def close(self) -> None:
        self.do(None)


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
        server = start_web_server(redis_url=redis.url, grace=60.0, quick_gather=120.0)
        page.set_viewport_size(LAPTOP)
        dan = browser.new_context(viewport=PHONE).new_page()
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
        finally:
            for person in people:
                person.close()
            dan.context.close()
            server.stop()

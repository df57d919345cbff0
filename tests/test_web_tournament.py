"""Tournaments in the browser client, in a real Chromium against a real
server (tests/browser.py), with scripted players (``Entrant``) around the
page: a host creates one from the lobby, friends join with its code, the
host starts it; the page sits at each round's table by itself, plays it by
clicking, waits for the round with the standings at hand, and ends on the
final standings with its own line marked. Then the gathering's host
controls with teams, a guest told why not, and the page's pure rules
(tests/js/rounds.test.mjs, follower.test.mjs) run by node.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from protocol.messages import Tournament, TournamentJoin
from protocol.tournaments import TournamentView
from tests.browser import ServerThread, axe_violations, describe, patient_context
from tests.support.clock import ManualClock
from tests.support.tournaments import Entrant, fetch
from tests.web_helpers import LAPTOP, PHONE, enter, in_background, play_to_the_end

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parents[1]
FRIENDS = ["Ann", "Bob", "Cid", "Dee", "Eve"]


def serious(page: Page) -> list[dict[str, Any]]:
    return [v for v in axe_violations(page) if v.get("impact") in ("serious", "critical")]


def create(
    page: Page, name: str, rounds: int, deals: int, team: str = "", minutes: int = 30
) -> str:
    """From the lobby, the host creates a tournament (and joins it); its code."""
    page.get_by_role("button", name="Tournament", exact=True).click()
    page.get_by_role("button", name="New tournament").click()
    page.fill("input[name=tname]", name)
    page.fill("input[name=rounds]", str(rounds))
    page.fill("input[name=tdeals]", str(deals))
    page.fill("input[name=minutes]", str(minutes))
    if team:
        page.get_by_label("Teams").select_option("2")
        page.get_by_label("Your team").first.fill(team)
    page.get_by_role("button", name="Create").click()
    page.get_by_text("Gathering: 1 player so far").wait_for()
    return page.locator("[data-code]").inner_text()


def start(page: Page) -> None:
    """The host starts the tournament (it asks once more)."""
    page.get_by_role("button", name="Start the tournament").click()
    page.get_by_role("button", name="Yes", exact=True).click()


def join_all(server: ServerThread, code: str, names: list[str], team: str = "") -> list[Entrant]:
    async def gather() -> list[Entrant]:
        entrants = [await Entrant.open(server.ws_url, name) for name in names]
        for e in entrants:
            answer = await e.ask(TournamentJoin(code=code, team=team))
            assert isinstance(answer, Tournament), answer
        return entrants

    entrants: list[Entrant] = server.call(gather())
    return entrants


def standings(page: Page) -> list[str]:
    """The names on the players' standings, best first."""
    cells = page.locator("table.standings").first.locator("tbody tr td:nth-child(2)")
    names: list[str] = cells.all_inner_texts()
    return [n.removesuffix(" (you)") for n in names]


def test_a_host_in_the_browser_plays_a_tournament_to_its_final_standings(
    page: Page, start_web_server: Any
) -> None:
    # A long grace: a seat whose player is not at the table yet is nobody's,
    # so the other table of round 1 waits for the page's table to finish.
    server = start_web_server(grace=60.0)
    page.set_viewport_size(LAPTOP)
    enter(page, server.url, "Hana")
    code = create(page, "Friday", rounds=2, deals=1)
    assert re.fullmatch(r"[A-Z0-9]{6}", code), code
    entrants = join_all(server, code, FRIENDS)
    page.get_by_text("Gathering: 6 players so far").wait_for()
    assert not serious(page), "a gathering tournament:\n" + describe(serious(page))

    gate = asyncio.Event()

    async def plays(e: Entrant, k: int) -> TournamentView:
        view = await e.until(lambda v: v.your_table is not None, timeout=60)
        hana = next(t for t in view.tables if any(s.name == "Hana" for s in t.seats))
        if view.your_table != hana.table_id:
            await gate.wait()
        return await e.play(random.Random(k), timeout=240)

    async def everyone() -> list[TournamentView]:
        return list(await asyncio.gather(*(plays(e, k) for k, e in enumerate(entrants))))

    start(page)
    played = in_background(server, everyone())
    # Six players: two tables of three. The page sits at its own by itself.
    table = page.get_by_role("heading", name=re.compile(r"^Friday · 1\.[12]$"))
    table.wait_for()
    page.locator(".tournament-bar", has_text="Round 1 of 2").wait_for()
    # A reload comes back to the same seat, and to the tournament.
    name = table.inner_text()
    page.reload()
    page.get_by_role("heading", name=name).wait_for()
    page.locator(".tournament-bar", has_text="Round 1 of 2").wait_for()
    # Leaving on purpose keeps the seat and is not undone by the page; the
    # bar offers to sit again.
    page.get_by_role("button", name="Leave", exact=True).click()
    page.get_by_role("alertdialog").get_by_role("button", name="Leave", exact=True).click()
    page.get_by_text("Your tournament seat waits for you").wait_for()
    page.get_by_role("button", name="Sit at your table").click()
    page.get_by_role("heading", name=name).wait_for()
    play_to_the_end([page], bids=("prise",), timeout=120)
    # The other table has not played: the page waits for it, and shows the
    # standings so far by itself, its own line marked.
    bar = page.locator(".tournament-bar")
    bar.get_by_text("Round 1 of 2: waiting for 1 table").wait_for()
    assert page.get_by_role("button", name="Play again").count() == 0
    mine = page.locator("table.standings tr.you")
    mine.wait_for()
    assert mine.count() == 1 and "Hana (you)" in mine.inner_text()
    assert not serious(page), "the standings at a finished table:\n" + describe(serious(page))
    shown = bar.get_by_role("button", name="Standings")
    assert shown.get_attribute("aria-expanded") == "true"
    shown.click()  # closed, and opened again
    mine.wait_for(state="detached")
    shown.click()
    mine.wait_for()

    async def open_gate() -> None:
        gate.set()

    server.call(open_gate())
    # Round 2: the page leaves its finished table and sits at its new one.
    page.get_by_role("heading", name=re.compile(r"^Friday · 2\.[12]$")).wait_for(timeout=120_000)
    play_to_the_end([page], bids=("prise",), timeout=120)
    finals = played()
    assert all(v.status == "finished" for v in finals)
    bar.get_by_text("Finished after 2 rounds: the final standings.").wait_for(timeout=60_000)
    # The page's standings are the server's, in its order, its own line marked.
    status, _, body = fetch(server.port, f"/tournaments/{code}")
    assert status == 200
    public = json.loads(body)
    assert public["status"] == "finished"
    page.wait_for_function(
        "n => document.querySelectorAll('table.standings')[0].tBodies[0].rows.length === n", arg=6
    )
    assert standings(page) == [line["name"] for line in public["standings"]]
    assert "Hana (you)" in page.locator("table.standings tr.you").inner_text()
    # The exports, from the server's port.
    # One table a file: the standings, and every deal (seats from 1, as on screen).
    for name, ending in (("Standings (CSV)", "csv"), ("Every deal (CSV)", "deals.csv")):
        href = page.get_by_role("link", name=name).get_attribute("href")
        assert href == f"{server.url}tournaments/{code}.{ending}"
        assert fetch(server.port, f"/tournaments/{code}.{ending}")[0] == 200
    hana = next(line for line in public["standings"] if line["name"] == "Hana")
    assert hana["deals"] == 2  # a deal in each round, both at the page's tables

    async def close_all() -> None:
        await asyncio.gather(*(e.close() for e in entrants))

    server.call(close_all())


def test_the_host_gathers_teams_and_removes_a_player(
    browser: Browser, page: Page, web_server: ServerThread
) -> None:
    page.set_viewport_size(PHONE)
    enter(page, web_server.url, "Hana")
    code = create(page, "Teams night", rounds=1, deals=1, team="Reds")
    page.locator(".players", has_text="Hana (Reds)").wait_for()
    (bob,) = join_all(web_server, code, ["Bob"], team="Blues")
    page.locator(".players", has_text="Bob (Blues)").wait_for()
    assert not serious(page), "a team tournament:\n" + describe(serious(page))
    # A friend follows the invite link: the tournament shows, with its team field.
    link = page.get_by_label("Invite link").input_value()
    assert link == f"{web_server.url}#tournament={code}"
    zoe = patient_context(browser, viewport=PHONE).new_page()
    try:
        zoe.goto(link)
        zoe.fill("input[name=name]", "Zoe")
        zoe.get_by_role("button", name="Play").click()
        zoe.get_by_text("Hana starts the tournament").wait_for()
        assert "#tournament" not in zoe.url
        zoe.get_by_label("Your team").fill("blues")  # joins Bob's team, whatever the case
        zoe.get_by_role("button", name="Join the tournament").click()
        zoe.locator(".players li.you", has_text="Zoe (Blues)").wait_for()
    finally:
        zoe.context.close()
    page.locator(".players", has_text="Zoe (Blues)").wait_for()
    page.locator(".players li", has_text="Zoe").get_by_role("button", name="Remove").click()
    page.get_by_role("button", name="Yes", exact=True).click()
    # Two players cannot be seated: the refusal in words, with its code.
    start(page)
    page.get_by_text("Not enough players to seat [too_few_players]").wait_for()
    # Removing asks once more, then Bob is gone, for him too.
    page.locator(".players li", has_text="Bob").get_by_role("button", name="Remove").click()
    page.get_by_role("button", name="No", exact=True).click()
    page.locator(".players li", has_text="Bob").get_by_role("button", name="Remove").click()
    page.get_by_role("button", name="Yes", exact=True).click()
    page.get_by_text("Gathering: 1 player so far").wait_for()

    async def bob_sees() -> TournamentView:
        return await bob.until(lambda v: [p.name for p in v.players] == ["Hana"])

    assert web_server.call(bob_sees()).code == code
    # The host may leave the players and stays the host.
    page.get_by_role("button", name="Leave tournament").click()
    page.get_by_text("Gathering: 0 players so far").wait_for()
    assert page.get_by_role("button", name="Start the tournament").count() == 1
    web_server.call(bob.close())


def test_the_host_has_bots_finish_the_round_once_its_time_is_up(
    page: Page, start_web_server: Any
) -> None:
    """The server's clock is moved by hand, the page's with it (Playwright's
    clock): nobody waits a real minute."""
    clock = ManualClock(start=time.time())
    server = start_web_server(clock=clock)
    page.clock.install()
    enter(page, server.url, "Hana")
    code = create(page, "Late", rounds=1, deals=2, minutes=1)
    entrants = join_all(server, code, ["Ann", "Bob"])  # who never sit down
    page.get_by_text("Gathering: 3 players so far").wait_for()
    start(page)
    page.get_by_role("heading", name="Late · 1.1").wait_for()
    page.locator(".tournament-bar").get_by_role("button", name="Standings").click()
    finish = page.get_by_role("button", name="Finish with bots")
    assert finish.is_disabled()
    assert page.get_by_text(re.compile(r"Finish with bots from .+ \(in 1 minute\)\.")).count()

    async def a_minute_later() -> None:
        clock.advance(61)

    server.call(a_minute_later())
    page.clock.fast_forward(61_000)
    page.get_by_text("Bots may finish this round's unplayed deals now.").wait_for()
    finish.click()
    page.get_by_role("button", name="Yes", exact=True).click()
    # Bots take every seat still playing, the page's too: back in the lobby,
    # told why; the bots play the round out, and the final standings show.
    page.get_by_text("The host had bots finish the round.").wait_for()
    page.get_by_text("Finished after 1 round: the final standings.").first.wait_for()
    page.locator("table.standings tr.you", has_text="Hana (you)").wait_for()
    status, _, body = fetch(server.port, f"/tournaments/{code}")
    assert status == 200 and all(line["deals"] == 2 for line in json.loads(body)["standings"])

    async def close_all() -> None:
        await asyncio.gather(*(e.close() for e in entrants))

    server.call(close_all())


def test_a_guest_is_told_why_not_and_may_take_a_player_key(
    page: Page, web_server: ServerThread
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(web_server.url)
    page.fill("input[name=name]", "Gus")
    page.get_by_label("Play as a guest").check()
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Tournament", exact=True).click()
    page.get_by_text("You play as a guest: a tournament ranks its players").wait_for()
    page.get_by_role("button", name="New tournament").click()
    page.get_by_label("Time limit").wait_for()
    assert not serious(page), "the tournament forms:\n" + describe(serious(page))
    # Nothing wider than a phone's screen.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.fill("input[name=tcode]", "ABC123")
    page.get_by_role("button", name="Join", exact=True).click()
    page.get_by_text(
        "Guests cannot enter a tournament: it is for players with a player key. [guest]"
    ).wait_for()
    page.get_by_role("button", name="Play with a player key").click()
    page.get_by_text("You play with a player key now").wait_for()
    page.locator(".link-online").wait_for(state="attached")
    assert page.get_by_text("You play as a guest").count() == 0
    page.fill("input[name=tcode]", "ABC123")
    page.get_by_role("button", name="Join", exact=True).click()
    page.get_by_text("No tournament has that code [no_such_tournament]").wait_for()


def test_the_pages_tournament_logic_passes_its_node_tests() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JavaScript side is not checked here")
    files = [str(ROOT / "tests" / "js" / f) for f in ("rounds.test.mjs", "follower.test.mjs")]
    run = subprocess.run(
        [node, "--test", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 16" in run.stdout, run.stdout[-2000:]

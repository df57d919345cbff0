"""The terminal client driven with Textual's Pilot: a fast in-process server
for it, the screen as text, waits between pauses, clicks as a player makes them,
and several clients at once in one test (``drive``)."""

from __future__ import annotations

import functools
import inspect
import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from clients.cli.app import AtoutApp
from clients.cli.cards_widget import HandWidget
from clients.cli.tokens import FileTokens
from protocol.messages import CreateTable
from protocol.views import TableView
from server.process.app import Server
from tests.support.servers import for_people, running
from tests.support.waits import eventually

SIZE = (80, 24)
# A deal where seat 0 holds 10 trumps and the three bouts and nobody else
# holds more than 4 trumps or any bout: the bots pass, we take a garde,
# make the écart and may show a poignée.
STRONG_SEED = "s9901"


@pytest.fixture(name="server")
async def pilot_server() -> AsyncIterator[Server]:
    """A server for a person's client, in-process (the fixture ``server``)."""
    async with running(for_people()) as srv:
        yield srv


def url_of(srv: Server) -> str:
    return f"ws://127.0.0.1:{srv.port}"


def client(url: str, folder: Path, name: str = "Alice") -> AtoutApp:
    return AtoutApp(url=url, name=name, tokens=FileTokens(folder / name), base_delay=0.05)


@asynccontextmanager
async def drive(app: App[Any], size: tuple[int, int] = SIZE) -> AsyncIterator[Pilot[Any]]:
    """``app.run_test`` for a test that runs several clients at once: every
    call of the pilot it gives runs with its own app as Textual's active app.

    Why: ``run_test`` makes its app the active one (a context variable) in
    the test's own task, so with several open, the last one entered is
    active there for all of them, and whatever Textual does from the test's
    task for another client resolves ``self.app`` to the wrong one. A
    pilot's pause calls its screen's update hook, which starts that
    screen's update timer on first use: a screen just shown (the table,
    once the creator's form is sent) whose timer starts from the test's
    task ticks for ever with the other app as active, never finds itself
    current, and never lays out again. Its Start button, mounted after
    its last layout, stayed 0×0 (issue 37: in 6 to 8 of 10 runs with the
    cores busy, where the screen's own task comes later). One client per
    process, as a player runs it, never meets this."""
    async with app.run_test(size=size) as pilot:
        yield cast(Pilot[Any], _OwnApp(pilot))


class _OwnApp:
    """A pilot whose calls (a press, a click, a pause) run with its app as
    Textual's active app (``drive``); anything else is the pilot's own."""

    def __init__(self, pilot: Pilot[Any]) -> None:
        self._pilot = pilot

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._pilot, name)
        if not inspect.iscoroutinefunction(found):
            return found

        @functools.wraps(found)
        async def as_own_app(*args: Any, **kwargs: Any) -> Any:
            with self._pilot.app._context():
                return await found(*args, **kwargs)

        return as_own_app


async def until(
    pilot: Any,
    pred: Callable[[], Any],
    timeout: float = 30.0,
    what: str = "",
    detail: Callable[[], str] | None = None,
) -> None:
    """``eventually`` between the pilot's pauses; the failure shows that
    client's last errors, its link, its screens (``screen_state``) and what
    ``detail`` adds. Generous: a passing wait returns at once, and a 2-core
    machine running other suites beside this one has taken over 10 s to show
    a first deal."""
    app = pilot.app

    def holds() -> Any:
        with app._context():  # read as that client, as ``drive`` calls it
            return pred()

    await eventually(
        holds,
        timeout,
        what,
        pause=pilot.pause,
        poll=0.02,
        detail=lambda: (
            f"that client's last errors {app.errors[-3:]}, its link {app.link_status}; "
            + screen_state(app)
            + (f"; {detail()}" if detail is not None else "")
        ),
    )


def screen_state(app: Any) -> str:
    """What a wait that timed out needs to tell a fault of the screen (a
    layout pending that nothing carries out) from one of the game: the
    screens, their sizes, and the top screen's update timer (the only thing
    that lays it out again), read without starting one."""
    try:
        with app._context():
            return _screen_state(app)
    except Exception as e:  # never hide the wait's own failure behind this one
        return f"(its screens unreadable: {e!r})"


def _screen_state(app: Any) -> str:
    screen = app.screen
    timer = getattr(screen, "_Screen__update_timer", None)
    task = getattr(timer, "_task", None)
    if timer is None:
        ticking = "none yet"
    elif task is None or task.done():
        failed = task.exception() if task is not None and not task.cancelled() else None
        ticking = f"stopped ({failed!r})"
    else:
        ticking = "running" if timer._active.is_set() else "paused"
    return (
        f"screens {app.screen_stack} at app size {tuple(app.size)}, the top one "
        f"{tuple(screen.size)}, focused {app.focused!r}, its layout pending="
        f"{screen._layout_required}, its update timer {ticking}"
    )


async def click(pilot: Any, selector: str, timeout: float = 30.0) -> None:
    """Click a widget as a player does: move the mouse onto it, then click,
    once nothing else lies over it (a notification, a screen still being laid
    out on a busy machine); the failure names what is in the way, instead of
    a later wait timing out with no clue that the click went elsewhere."""
    under: list[Any] = [None]
    where: list[Any] = [None]

    def clear() -> bool:
        with pilot.app._context():  # as that client (``drive``)
            return over(pilot.app.screen.query_one(selector))

    def over(target: Any) -> bool:
        where[0] = target.region
        under[0], _ = pilot.app.get_widget_at(*target.region.offset)
        # A Select is clicked on its label.
        return bool(under[0] is target or target in under[0].ancestors)

    async def hover_again(delay: float) -> None:
        await pilot.pause(delay)
        await pilot.hover(selector)

    await pilot.hover(selector)
    await eventually(
        clear,
        timeout,
        f"{selector} clear to click",
        pause=hover_again,
        poll=0.2,
        detail=lambda: f"clicks at {where[0]} land on {under[0]!r}; " + _beside(pilot, selector),
    )
    await pilot.click(selector)


def _beside(pilot: Any, selector: str) -> str:
    """Where the widget is in the DOM, for a click that cannot land. A widget
    with no region (0×0) was left out of its screen's last layout (its Mount
    was not over yet) and no layout came since: a screen whose layout waits
    for ever was one driven from another client's context (``drive``)."""
    screen = pilot.app.screen
    target = screen.query_one(selector)
    parent = target.parent
    return (
        f"{target!r} mounted={target.is_mounted} running={target.is_running} "
        f"size={target.size}, in {parent!r} at "
        f"{getattr(parent, 'region', None)} beside {list(getattr(parent, 'children', []))}; "
        f"its screen's layout pending={screen._layout_required}"
    )


def table(app: AtoutApp) -> TableView:
    view = app.link.table if app.link else None
    assert view is not None
    return view


async def shown(pilot: Any, app: AtoutApp, *texts: str) -> None:
    """Wait until the screen shows every one of ``texts`` (drawing follows the view)."""
    await until(
        pilot,
        lambda: all(t in screen_text(app) for t in texts),
        what=f"{texts} on screen",
    )


async def type_card(pilot: Any, app: AtoutApp, code: str) -> None:
    """Type a card code as a player would (Enter when the code is a prefix of another)."""
    hand = app.table_screen.query_one("#hand", HandWidget)
    await pilot.press(*code)
    if hand.typed:
        await pilot.press("enter")


def began(view: TableView) -> bool:
    """The game has begun: a deal is played, or (1 first deal in about 540
    has a petit sec) was annulled as soon as dealt and its result is shown."""
    return view.status in ("playing", "between_deals")


async def sit_and_start(pilot: Any, app: AtoutApp, **create: Any) -> TableView:
    """Create a table and start it; its first deal is played (a seed with no
    petit sec unless ``create`` names one)."""
    create.setdefault("seed", "sit")
    await until(
        pilot, lambda: app.link and app.link.online and app.link.lobby is not None, what="lobby"
    )
    app.send(CreateTable(name="t", **create))
    await until(
        pilot, lambda: app.link is not None and app.link.table is not None, what="table view"
    )
    await pilot.pause()
    await click(pilot, ".start")
    await until(pilot, lambda: table(app).status == "playing" and table(app).hand, what="a deal")
    return table(app)


def screen_text(app: Any) -> str:
    """The screen as plain text, as a person reads it (no colour)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    with app._context():  # drawn as that client (``drive``)
        console.print(
            app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
        )
    return console.export_text()


__all__ = [
    "SIZE",
    "STRONG_SEED",
    "began",
    "click",
    "client",
    "drive",
    "pilot_server",
    "screen_state",
    "screen_text",
    "shown",
    "sit_and_start",
    "table",
    "type_card",
    "until",
    "url_of",
]

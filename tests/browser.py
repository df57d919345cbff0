"""Browser tests: a headless Chromium driven by Playwright, against a real
server that serves the browser client (a pytest plugin, registered by
tests/conftest.py).

Fixtures:

* ``browser``: one Chromium for the whole session (the system's: Debian's
  ``chromium``, which .ci/run installs; ``$ATOUT_TEST_CHROMIUM`` names
  another). Playwright never downloads a browser here. Tests that use it skip,
  saying why, when there is no Chromium or no Playwright.
* ``page``: a fresh page in a fresh context (its own storage: no state from
  another test; ``context_options`` gives the context's options). **Any
  console error or uncaught exception in the page fails the test** (a
  refused Content-Security-Policy, a module that does not load, a 404 are
  console errors), but those a test expects: ``@pytest.mark.console_allows(regex)``.
* ``web_server``: a real Atout server (``tests.support.servers.running``, the
  fast settings) serving the bundled client; ``web_server.url`` is its page.
  ``start_web_server(**settings)`` starts one with other settings.

The Playwright API is the synchronous one, so the server runs in a thread
of its own with its own event loop: ``web_server.call(coro)`` runs a
coroutine there (a ``clients.session.Session`` that plays against the page,
say) and returns its result.

``axe_violations(page)`` runs axe-core (installed by ``npm ci`` in
``tests/js``) on the page and returns what it finds; it skips the test when
axe-core is not installed.

Tests that use ``browser`` or ``page`` are marked ``browser``:
``python -m pytest -m browser`` runs only them, ``-m "not browser"`` skips them.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from server.process.app import Server
from tests.support.servers import running
from tests.support.waits import patient

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "tests" / "js" / "node_modules" / "axe-core" / "axe.min.js"

CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Nothing but the page under test on the network: no update checks, no
    # component downloads, no sync (the machine may have no Internet at all).
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

TIMEOUT_MS = 20_000
"""Longest wait for a page or an element: a generous bound (each wait ends as
soon as its condition holds), stretched with the machine's load when the
browser and each page open (``patient``)."""

ERRORS = pytest.StashKey[list[str]]()
PAGE_NOTES = pytest.StashKey[tuple["Page", list[str]]]()
"""The ``page`` fixture's page and what befell it that is no error of its own
(a request that failed, a crash): shown only with a test that failed, to tell
a page that never loaded from a client that went wrong."""


def chromium() -> str | None:
    """The Chromium to drive: ``$ATOUT_TEST_CHROMIUM``, else ``chromium`` on PATH."""
    named = os.environ.get("ATOUT_TEST_CHROMIUM")
    if named:
        return named
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium for a test module's browser tests. Not one per session:
    Playwright's sync API keeps an event loop running on the main thread
    while it is open, and every asyncio test after it in the same process
    (any module, in the order pytest-xdist hands them out) would fail with
    "cannot be called from a running event loop"."""
    executable = chromium()
    if executable is None:
        pytest.skip(
            "no Chromium: install Debian's `chromium` (.ci/run does, as root) "
            "or set ATOUT_TEST_CHROMIUM to one"
        )
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed: pip install -e '.[test]'")
    expect.set_options(timeout=patient(TIMEOUT_MS))
    with sync_playwright() as playwright:
        # launch() gives the browser a fresh, temporary user-data-dir.
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def context_options() -> dict[str, Any]:
    """Options of the ``page`` fixture's browser context (Playwright's
    ``new_context``): override this fixture in a test module to change them."""
    return {}


def patient_context(browser: Browser, **options: Any) -> BrowserContext:
    """A new browser context (Playwright's ``new_context(**options)``) whose
    waits last ``TIMEOUT_MS`` stretched with the machine's load (``patient``),
    as every page of the tests does: with Playwright's own default, 30 s of
    real time whatever the load, a page that watched a whole game on a
    saturated machine failed a soak run though nothing was wrong."""
    context = browser.new_context(**options)
    context.set_default_timeout(patient(TIMEOUT_MS))
    return context


@pytest.fixture
def page(
    browser: Browser, context_options: dict[str, Any], request: pytest.FixtureRequest
) -> Iterator[Page]:
    context = patient_context(browser, **context_options)
    opened = context.new_page()
    errors: list[str] = []
    request.node.stash[ERRORS] = errors
    opened.on(
        "console",
        lambda message: (
            errors.append(f"console error: {message.text} ({message.location})")
            if message.type == "error"
            else None
        ),
    )
    opened.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    notes: list[str] = []
    request.node.stash[PAGE_NOTES] = (opened, notes)
    opened.on("requestfailed", lambda r: notes.append(f"request failed: {r.url} ({r.failure})"))
    opened.on("crash", lambda _: notes.append("the page crashed"))
    try:
        yield opened
    finally:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail a test whose page logged a console error or threw, even if every
    assertion of the test held."""
    try:
        result = yield
    except BaseException:
        _report_page(item)
        raise
    allowed = [re.compile(m.args[0]) for m in item.iter_markers("console_allows")]
    errors = [e for e in item.stash.get(ERRORS, []) if not any(a.search(e) for a in allowed)]
    if errors:
        raise AssertionError("the page reported errors:\n  " + "\n  ".join(errors))
    return result


def _report_page(item: pytest.Item) -> None:
    """Beside a failed test's traceback: its page's errors, failed requests and
    what it showed, to tell a page that never loaded from one that went wrong."""
    if PAGE_NOTES not in item.stash:
        return
    page, notes = item.stash[PAGE_NOTES]
    lines = [*item.stash.get(ERRORS, []), *notes]
    try:
        shown = page.locator("body").inner_text(timeout=5_000)
    except Exception as exc:  # a crashed or closed page: say so, the test's error stands
        shown = f"(could not be read: {exc})"
    lines.append(f"the page at {page.url} showed: {str(shown)[:500]!r}")
    item.add_report_section("call", "page", "\n".join(lines))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "console_allows(pattern): a console error matching this regex does not fail the "
        "test (Chromium itself logs every refused WebSocket, which a test of a server "
        "restart expects)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the browser tests, and run them after every other test.

    Playwright's sync API leaves its own event loop set as the thread's
    running loop between calls (it runs that loop in a greenlet, suspended);
    an asyncio test after it would find a loop "running" and its runner
    would refuse to start. Last, the browser tests follow no asyncio test,
    and the session's browser closes at the teardown of a browser test."""
    browser_tests = []
    for item in items:
        if {"browser", "page"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
            browser_tests.append(item)
    if browser_tests:
        chosen = set(browser_tests)
        items[:] = [item for item in items if item not in chosen] + browser_tests


# --- the server ----------------------------------------------------------------------


class ServerThread:
    """A real server (``tests.support.servers.running``) in a thread with its
    own event loop, so that synchronous browser tests can use it."""

    def __init__(self, **overrides: Any) -> None:
        self._overrides = overrides
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.server: Server | None = None
        self._thread = threading.Thread(target=self._run, name="atout-server", daemon=True)

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    @property
    def url(self) -> str:
        """The client's page: ``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(patient(timeout)):
            raise TimeoutError(f"the server did not start in {timeout} s")
        if self._failed is not None:
            raise RuntimeError("the server did not start") from self._failed
        return self

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float | None = None) -> Any:
        """Run ``coro`` in the server's loop and return its result; ``timeout``
        in real seconds, by default a minute of an unhurried machine."""
        assert self._loop is not None
        wait = patient(60.0) if timeout is None else timeout
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(wait)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the server (its tables saved, as on a restart); again is a no-op."""
        if not self._thread.is_alive():
            return
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported by start(), in the test's thread
            self._failed = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with running(**self._overrides) as server:
            self.server = server
            self._ready.set()
            await self._stop.wait()


@pytest.fixture
def start_web_server() -> Iterator[Callable[..., ServerThread]]:
    """``start_web_server(**settings)``: a started ``ServerThread`` with those
    settings over the fast ones; stopped at the end of the test."""
    started: list[ServerThread] = []

    def start(**overrides: Any) -> ServerThread:
        server = ServerThread(**overrides).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def web_server(start_web_server: Callable[..., ServerThread]) -> ServerThread:
    """A real server serving the bundled browser client."""
    return start_web_server()


# --- accessibility -------------------------------------------------------------------

WCAG_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")


def axe_violations(page: Page, tags: tuple[str, ...] = WCAG_AA) -> list[dict[str, Any]]:
    """axe-core's violations of the rules tagged ``tags`` (WCAG 2.2 A and AA
    by default) on the page as it is now: each a dict with ``id``,
    ``impact``, ``help`` and the offending ``nodes``. Skips the test when
    axe-core is not installed."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed: run `npm ci` in tests/js (.ci/run does)")
    # Evaluated through the DevTools protocol, not as an inline <script>:
    # the page's Content-Security-Policy (rightly) refuses those.
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    results = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", list(tags)
    )
    violations: list[dict[str, Any]] = results["violations"]
    return violations


def describe(violations: list[dict[str, Any]]) -> str:
    """Violations as lines for an assertion message."""
    lines = []
    for v in violations:
        targets = ", ".join(str(n.get("target")) for n in v.get("nodes", [])[:5])
        lines.append(f"{v['id']} ({v.get('impact')}): {v.get('help')} at {targets}")
    return "\n".join(lines)

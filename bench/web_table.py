"""Benchmark: the browser table's first load and its tap-to-played time, in
the system's Chromium against a real server (the test suite's fast settings).

* First load: every request the page makes from its address until the name
  form shows and the network is quiet (the page, styles, modules, the view
  library, the translations, the icon, the manifest, the service worker), and
  the bytes of their bodies as sent (gzip where the server compresses): the
  card art is code (app/faces.js), so it is counted in.
* Tap-to-played: at a four-player table with bots, on each of our turns, a
  real mouse click on a legal card; the time from the click's pointerdown
  (the event's own timestamp) to the first frame after the card shows in
  the trick ([data-trick] [data-card=...]); median and worst over the plays.

    python bench/web_table.py [--plays 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import Browser, sync_playwright

from tests.browser import CHROMIUM_ARGS, ServerThread, chromium
from tests.web_helpers import enter, new_table, step

# Armed before the click (a promise in an object, so that arming it does
# not wait for it): resolves with [shown, taken], the ms from the pointerdown
# on the card to the frame after it shows in the trick, and to the frame
# after the server's answer shows (the card in the trick no longer marked
# `.sent`, or gone with the trick it closed).
WATCH = """(code) => ({done: new Promise((resolve) => {
  let down = null, shown = null;
  const inTrick = () => document.querySelector(`[data-trick] [data-card="${code}"]`);
  const taken = () => {
    const card = inTrick();
    if (card) return !card.closest('li.sent');
    return !document.querySelector(`.hand-box [data-card="${code}"]`);
  };
  addEventListener('pointerdown', (e) => { down = e.timeStamp; }, {capture: true, once: true});
  const look = () => {
    if (down !== null && shown === null && inTrick()) shown = performance.now() - down;
    if (down !== null && shown !== null && taken()) {
      requestAnimationFrame(() => resolve([shown, performance.now() - down]));
    } else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  setTimeout(() => resolve(null), 5000);
})})"""


def first_load(browser: Browser, url: str) -> tuple[int, int]:
    context = browser.new_context()
    page = context.new_page()
    sizes: list[int] = []
    page.on("requestfinished", lambda r: sizes.append(r.sizes()["responseBodySize"]))
    page.goto(url, wait_until="networkidle")
    page.locator("input[name=name]").wait_for()
    page.wait_for_load_state("networkidle")
    context.close()
    return len(sizes), sum(sizes)


def tap_to_played(browser: Browser, url: str, plays: int) -> list[tuple[float, float]]:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    enter(page, url, "Bench")
    new_table(page, deals=10, players=4)
    page.get_by_role("button", name="Start the game").click()
    times: list[tuple[float, float]] = []
    while len(times) < plays:
        card = page.locator(".hand button.card:enabled")
        if card.count() and page.locator(".mode-play").count():
            code = card.first.get_attribute("data-card")
            waiting = page.evaluate_handle(WATCH, code)
            try:
                card.first.click(timeout=2000)
            except Exception as exc:
                print("click failed:", str(exc).splitlines()[0], file=sys.stderr)
                continue
            took = page.evaluate("(w) => w.done", waiting)
            if took is not None:
                times.append((float(took[0]), float(took[1])))
            continue
        if step(page, play=False) == "done":
            break
        page.wait_for_timeout(20)
    context.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=30)
    args = parser.parse_args()
    server = ServerThread().start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium(), headless=True, args=CHROMIUM_ARGS
            )
            requests, size = first_load(browser, server.url)
            print(f"first load: {requests} requests, {size / 1024:.1f} KiB of bodies as sent")
            times = tap_to_played(browser, server.url, args.plays)
            browser.close()
        for i, what in enumerate(("shown in the trick", "taken by the server")):
            ms = [t[i] for t in times]
            print(
                f"tap to {what}: {len(ms)} plays, median {statistics.median(ms):.0f} ms, "
                f"worst {max(ms):.0f} ms"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()

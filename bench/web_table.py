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

# Armed before the click: resolves with the ms from the pointerdown on the
# card to the frame after it shows in the trick.
WATCH = """(code) => new Promise((resolve) => {
  let down = null;
  const seen = () => document.querySelector(`[data-trick] [data-card="${code}"]`);
  addEventListener('pointerdown', (e) => { down = e.timeStamp; }, {capture: true, once: true});
  const look = () => {
    if (down !== null && seen()) requestAnimationFrame((t) => resolve(performance.now() - down));
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  setTimeout(() => resolve(null), 5000);
})"""


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


def tap_to_played(browser: Browser, url: str, plays: int) -> list[float]:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    enter(page, url, "Bench")
    new_table(page, deals=10, players=4)
    page.get_by_role("button", name="Start the game").click()
    times: list[float] = []
    while len(times) < plays:
        card = page.locator(".hand button.card:enabled")
        if card.count() and page.locator(".mode-play").count():
            code = card.first.get_attribute("data-card")
            waiting = page.evaluate_handle(WATCH, code)
            try:
                card.first.click(timeout=2000)
            except Exception:
                continue
            took = page.evaluate("(p) => p", waiting)
            if took is not None:
                times.append(float(took))
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
        print(
            f"tap to played: {len(times)} plays, median {statistics.median(times):.0f} ms, "
            f"worst {max(times):.0f} ms"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()

"""The terminal client counts down on the server's clock (issue 33): the
server here runs on a clock the test holds still, far from this computer's
(as a computer whose clock is off would see it), and the quick-play
countdown still says the server's seconds, not thousands."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.clock import ManualClock
from tests.support.pilot import SIZE, client, screen_text, shown, until, url_of
from tests.support.servers import for_people, running

GATHER = 300.0  # long: a busy machine takes seconds to get there, never minutes


async def test_the_quick_play_countdown_is_on_the_servers_clock(tmp_path: Path) -> None:
    clock = ManualClock()  # about a year and a half ahead of this computer
    async with running(for_people(), quick_gather=GATHER, clock=clock) as server:
        alice = client(url_of(server), tmp_path)
        async with alice.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: alice.link and alice.link.lobby is not None, what="lobby")
            await pilot.press("p")
            await until(pilot, lambda: alice.link.table is not None, what="Alice seated")
            await shown(pilot, alice, "Waiting for players · bots fill the seats in ")
            # At most the server's 300 s, less what the client took since its
            # welcome (counted on its own clock from the server's time then).
            found = re.search(r"bots fill the seats in (\d+) s", screen_text(alice))
            assert found and 0 < int(found.group(1)) <= GATHER, screen_text(alice)
            assert alice.errors == []
            await alice.aclose()

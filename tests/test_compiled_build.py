"""The compiled build (server/base/compiled.py, setup.py): the same code, so the
same tests run against it (.ci/run compiles its Python 3.11 environment); these
check what only the build itself can get wrong."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from structlog.testing import capture_logs

from server.base.compiled import COMPILED, status
from server.game.deal import Deal
from tests.support.engine import deal_attributes
from tests.support.servers import running


def test_the_build_is_whole_and_fresh() -> None:
    """Either every listed module runs compiled or none does, none older than
    its source (an edit not built again would not run); and where the run
    expects the compiled build (``ATOUT_EXPECT_COMPILED=1``: .ci/run's compiled
    environment), it is the one running."""
    compiled, pure, stale = status()
    assert stale == []
    assert compiled == [] or pure == [], (compiled, pure)
    if os.environ.get("ATOUT_EXPECT_COMPILED") == "1":
        assert compiled == list(COMPILED)


def test_a_clone_copies_every_attribute() -> None:
    """``Deal.clone`` writes each attribute out (no loop over ``__slots__``,
    which the compiled build does not have): a new one must not be forgotten."""
    names = deal_attributes()
    assert len(names) >= 39, names
    rng = random.Random(7)
    deal = Deal.deal(rng, 0)
    while deal.phase == "annulled":
        deal = Deal.deal(rng, 0)
    while deal.phase == "bidding":  # a garde sans: no écart, play starts at once
        deal.bid(deal.turn, 3 if not deal.bids else 0)  # type: ignore[arg-type]
    deal.declare_chelem(deal.taker, False)
    for _ in range(5):
        deal.play(deal.turn, deal.legal_cards()[0])  # type: ignore[arg-type]
    other = deal.clone()
    differ = {"_held", "_legal_low"}  # made again when asked for
    for name in names:
        if name not in differ:
            assert getattr(other, name) == getattr(deal, name), name
    other.play(other.turn, other.legal_cards()[0])  # type: ignore[arg-type]
    assert len(deal.log) == len(other.log) - 1  # the copy is independent
    assert deal.legal_cards() != other.legal_cards() or deal.turn != other.turn


async def test_the_server_says_whether_it_runs_compiled() -> None:
    """The "serving" log line tells how many of the listed modules run compiled
    (a build that fell back to Python, or a stale one, is seen in the logs)."""
    compiled, _, _ = status()
    with capture_logs() as logs:
        async with running():
            pass
    serving = [e for e in logs if e["event"] == "serving"]
    assert serving[0]["compiled"] == f"{len(compiled)}/{len(COMPILED)}"
    assert not [e for e in logs if e["event"] == "compiled_stale"]


def test_the_build_imports_from_any_folder(tmp_path: Path) -> None:
    """The installed package imports as this run does from a folder that is
    not the project's (``atout-server`` run anywhere): compiled, each module
    needs mypyc's shared library, which must be found with the packages (an
    editable install puts them on the path, not the project's folder)."""
    compiled, _, _ = status()
    done = subprocess.run(
        [sys.executable, "-c", "import server.game.deal as d; print(d.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert done.returncode == 0, done.stderr
    imported = Path(done.stdout.strip())
    if imported.parents[2] == Path(__file__).resolve().parents[1]:  # this checkout's
        assert imported.name.endswith(".so") == ("server.game.deal" in compiled)

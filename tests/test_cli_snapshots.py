"""SVG snapshots of the lobby and the table screen at 80×24 (pytest-textual-snapshot).

The views are scripted with the real rules engine (``tests.support.cli_preview``),
so every snapshot is the same on every run. After an intended change of the
screens, look at the report pytest prints and accept with
``pytest tests/test_cli_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.cli_preview import PreviewApp, lobby_view, scripted_view

SIZE = (80, 24)


async def _settle(pilot: Any) -> None:
    await pilot.pause()


def test_lobby(snap_compare: Any) -> None:
    assert snap_compare(PreviewApp(lobby=lobby_view()), terminal_size=SIZE, run_before=_settle)


@pytest.mark.parametrize(
    "moment", ["waiting", "bidding", "ecart", "poignee", "play", "done", "finished"]
)
def test_table(snap_compare: Any, moment: str) -> None:
    assert snap_compare(PreviewApp(scripted_view(moment)), terminal_size=SIZE, run_before=_settle)


def test_table_for_a_spectator(snap_compare: Any) -> None:
    assert snap_compare(
        PreviewApp(scripted_view("play", you=None)), terminal_size=SIZE, run_before=_settle
    )


def test_table_without_colour(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(PreviewApp(scripted_view("play")), terminal_size=SIZE, run_before=_settle)


def _sheet_view() -> Any:
    from protocol.views import DealLine

    view = scripted_view("play")
    view.seats[0].name = "Alexandrine-Marguerite"
    view.deals = 8
    view.sheet = [
        DealLine(
            number=1,
            dealer=3,
            taker=2,
            contract="garde_contre",
            made=False,
            scores=[120, 120, -360, 120],
        ),
        DealLine(number=2, dealer=0, annulled="petit_sec"),  # an attempt at deal 2
        DealLine(
            number=2,
            dealer=1,
            taker=0,
            contract="prise",
            made=True,
            scores=[150, -50, -50, -50],
        ),
    ]
    view.scores = [270, 70, -410, 70]
    return view


@pytest.mark.parametrize("size", [SIZE, (140, 40)], ids=["80x24", "140x40"])
def test_score_sheet(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(
        PreviewApp(_sheet_view()), press=["b"], terminal_size=size, run_before=_settle
    )


def test_table_at_140_columns(snap_compare: Any) -> None:
    assert snap_compare(
        PreviewApp(scripted_view("play")), terminal_size=(140, 40), run_before=_settle
    )

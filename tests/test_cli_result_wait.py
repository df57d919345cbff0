"""The client's words for a result that waits: pure functions of a view, at a chosen time."""

from __future__ import annotations

from clients.cli import table_facts as facts
from clients.cli import table_panels as panels
from tests.support.cli_preview import scripted_view


def test_between_deals_the_header_counts_down_to_the_next_deal_and_keeps_the_number() -> None:
    view = scripted_view("done")
    view.next_deal_at = 1000.0
    text = panels.header(view, now=958.2).plain
    assert "deal 1/1" in text and "next deal in 42s" in text
    assert "next deal in 0s" in panels.header(view, now=1001.0).plain  # never negative


def test_who_is_still_reading_and_who_is_asked_to_continue() -> None:
    view = scripted_view("done")
    assert facts.reading(view) == [0] and facts.reading_now(view)
    assert "Still reading: You" in panels.trick_panel(view, 30).plain
    view.ready = [0, 1, 2, 3]
    assert facts.reading(view) == [] and not facts.reading_now(view)
    assert "Still reading" not in panels.trick_panel(view, 30).plain
    assert "waiting for the others" in facts.prompt(view)
    spectator = scripted_view("done", you=None)
    assert not facts.reading_now(spectator)
    assert "when the players have read" in facts.prompt(spectator)


def test_game_over_shows_the_last_deals_result_above_the_standings() -> None:
    text = panels.trick_panel(scripted_view("finished"), 30).plain
    assert text.index("Last deal: Garde") < text.index("Game over") < text.index("1. ")

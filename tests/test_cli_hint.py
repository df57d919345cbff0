"""The terminal client's hint key (issue 36): ``i`` at a casual table, on the
player's turn, asks the server and shows the strong bot's choice with its
reason in the message bar; the words exist in every language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.cli import i18n
from clients.cli import table_facts as facts
from clients.cli.table_hint import REASONS, hint_line
from protocol.messages import HintAnswer
from server.bots.advice import REASONS as SERVER_REASONS
from server.process.app import Server
from tests.support.pilot import (  # noqa: F401 - server: a fixture
    SIZE,
    client,
    pilot_server,
    screen_text,
    sit_and_start,
    table,
    until,
    url_of,
)


@pytest.fixture
def english() -> Iterator[None]:
    yield
    i18n.use("en")


def test_every_reason_the_server_gives_has_words() -> None:
    assert set(REASONS) == set(SERVER_REASONS)


@pytest.mark.parametrize("lang", ["en", "fr", "zh", "ko"])
def test_a_hint_reads_in_each_language(lang: str, english: None) -> None:
    i18n.use(lang)
    line = hint_line(HintAnswer(command="play", choice=["KH"], reason="cash_king", suit="H"))
    assert "♥" in line and "{" not in line
    words = {
        "en": "Hint: K♥ — cashes the King of ♥",
        "fr": "Conseil : R♥ — joue le Roi de ♥ avant la coupe",
        "zh": "提示：K♥ — 趁没被将吃先出♥K",
        "ko": "힌트: K♥ — 잘리기 전에 ♥ 킹을 냅니다",
    }
    assert line == words[lang]
    petit = hint_line(HintAnswer(command="play", choice=["T5"], reason="keep_petit"))
    assert petit.endswith(i18n._("keeps the Petit safe")) and petit != "keeps the Petit safe"
    bid = hint_line(HintAnswer(command="bid", choice=["garde"], reason="trumps_and_bouts"))
    assert i18n._("Garde") in bid
    # A reason newer than this client: the choice alone.
    assert "T5" in hint_line(HintAnswer(command="play", choice=["T5"], reason="new_reason"))


async def test_the_i_key_shows_the_strong_bots_choice_on_your_turn(
    server: Server, tmp_path: Path
) -> None:
    app = client(url_of(server), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await sit_and_start(pilot, app, deals=1, bot_level="normal", seed="cli-hint")
        await until(pilot, lambda: facts.my_turn(table(app)), what="my turn")
        await pilot.pause()
        await pilot.press("i")
        await until(pilot, lambda: "Hint: " in screen_text(app), what="the hint")
        assert app.errors == []
        line = next(x for x in screen_text(app).splitlines() if "Hint: " in x)
        assert " — " in line  # the choice, then why
        await app.aclose()

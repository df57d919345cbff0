"""Player keys on disk (clients/cli/keys.py), ``atout key`` and the local
daily statistics: no server needed."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from clients.cli import key_command
from clients.cli.__main__ import DEFAULT_URL, normalize_url, parser
from clients.cli.daily_history import FileHistory, game_record, stats
from clients.cli.keys import BadKey, FileKeys, SavedKey, accepted, for_hello, parse_key
from protocol.views import DailyDealLine, DailyResultView, DealLine, TableView

URL = "ws://friends.example:8765"


def test_a_key_is_made_once_per_server_and_registered_only_until_accepted(tmp_path: Path) -> None:
    keys = FileKeys(tmp_path)
    first = for_hello(keys, URL)
    assert len(first.key) == 32 and int(first.key, 16) >= 0 and not first.registered
    # However the URL is typed, it is the same server and the same key.
    assert for_hello(FileKeys(tmp_path), "WS://Friends.Example:8765/") == first
    accepted(keys, URL, first)
    again = for_hello(keys, URL)
    assert again == SavedKey(first.key, registered=True)
    # Another server: another key (a key goes only to the server it belongs to).
    other = for_hello(keys, "ws://elsewhere:8765")
    assert other.key != first.key
    assert stat.S_IMODE((tmp_path / "keys.json").stat().st_mode) == 0o600
    assert not list(tmp_path.glob(".keys.*"))  # no temporary file left behind


def test_keys_are_parsed_strictly() -> None:
    assert parse_key("  0123456789ABCDEF0123456789abcdef\n") == "0123456789abcdef0123456789abcdef"
    for bad in ("", "0" * 31, "0" * 33, "g" * 32, "0123456789abcdef 0123456789abcdef"):
        with pytest.raises(BadKey):
            parse_key(bad)


def test_a_damaged_key_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(OSError, match="damaged"):
        for_hello(FileKeys(tmp_path), URL)
    assert path.read_text(encoding="utf-8") == "{not json"


def atout_key(folder: Path, *argv: str) -> int:
    args = parser().parse_args(["key", *argv])
    return key_command.run(args, DEFAULT_URL, normalize_url, FileKeys(folder))


def test_export_import_and_forget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, away = tmp_path / "home", tmp_path / "away"
    assert atout_key(home, "export", URL) == 1  # nothing to export yet
    assert "no player key" in capsys.readouterr().err
    made = for_hello(FileKeys(home), URL)
    assert atout_key(home, "export", URL) == 0
    out = capsys.readouterr()
    assert out.out == made.key + "\n"  # stdout: the key alone, for a pipe
    assert "secret" in out.err
    # Import validates, and marks the key registered (a typo is refused by
    # the server instead of becoming a new player).
    assert atout_key(away, "import", URL, "not-a-key") == 2
    assert FileKeys(away).get(URL) is None
    assert atout_key(away, "import", URL, made.key.upper()) == 0
    assert FileKeys(away).get(URL) == SavedKey(made.key, registered=True)
    # The default URL when only the key is given.
    assert atout_key(away, "import", made.key) == 0
    assert FileKeys(away).get(DEFAULT_URL) == SavedKey(made.key, registered=True)
    # Another registered key is not replaced without --replace.
    other = "f" * 32
    assert atout_key(away, "import", URL, other) == 1
    assert FileKeys(away).get(URL) == SavedKey(made.key, registered=True)
    assert atout_key(away, "import", "--replace", URL, other) == 0
    assert FileKeys(away).get(URL) == SavedKey(other, registered=True)
    assert atout_key(away, "forget", URL) == 0
    assert FileKeys(away).get(URL) is None
    assert FileKeys(away).get(DEFAULT_URL) is not None  # only that server's key


def test_daily_statistics_from_the_finished_table(tmp_path: Path) -> None:
    result = DailyResultView(
        day="2025-06-15",
        ranked=True,
        deals=[
            DailyDealLine(deal=1, points=150, percent=80.0, players=5),
            DailyDealLine(deal=2, points=-60, percent=20.0, players=5),
            DailyDealLine(deal=3, points=0, percent=50.0, players=5),
        ],
    )
    view = TableView(
        table_id="t1",
        name="Daily 2025-06-15",
        you=2,
        sheet=[
            DealLine(number=1, dealer=0, taker=2, made=True),
            DealLine(number=2, dealer=1, taker=2, made=False),
            DealLine(number=3, dealer=2, annulled="all_pass"),
        ],
    )
    history = FileHistory(tmp_path)
    history.add(URL, game_record(result, view))
    history.add(URL, game_record(result, view))  # heard twice: kept once
    practice = DailyResultView(
        day="2025-06-15",
        ranked=False,
        deals=[DailyDealLine(deal=1, points=30, percent=50.0, players=6)],
    )
    history.add(URL, game_record(practice, TableView(table_id="t2", name="p", you=2)))
    s = stats(history.games(URL))
    assert (s.games, s.ranked, s.deals, s.taken, s.made) == (2, 1, 4, 2, 1)
    assert s.mean == pytest.approx((150 - 60 + 0 + 30) / 4)
    assert stats([]).mean is None
    assert history.games("ws://elsewhere") == []

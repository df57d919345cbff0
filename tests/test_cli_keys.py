"""Player keys on disk (clients/cli/keys.py), ``atout key`` and the local
daily statistics: no server needed. (Keys against a real server, two
players on one machine and an old file carried over: test_cli_identity.py.)"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from clients.cli import key_command
from clients.cli.__main__ import DEFAULT_URL, normalize_url, parser
from clients.cli.daily_history import FileHistory, game_record, stats
from clients.cli.keys import BadKey, FileKeys, SavedKey, for_hello, parse_key, welcomed
from clients.cli.tokens import seat_key
from protocol.views import DailyDealLine, DailyResultView, DealLine, TableView

URL = "ws://friends.example:8765"


def test_a_key_is_made_once_per_server_and_player_and_registered_only_until_accepted(
    tmp_path: Path,
) -> None:
    keys = FileKeys(tmp_path)
    first = for_hello(keys, URL, "Ann")
    assert not first.old and first.where == seat_key(URL, "Ann")
    assert len(first.saved.key) == 32 and int(first.saved.key, 16) >= 0
    assert not first.saved.registered
    # However the URL and the name are typed, it is the same server, player and key.
    assert for_hello(FileKeys(tmp_path), "WS://Friends.Example:8765/", " ann ") == first
    assert welcomed(keys, URL, first, "Ann", "Ann")
    again = for_hello(keys, URL, "Ann")
    assert again.saved == SavedKey(first.saved.key, registered=True)
    # Another player on this machine, another server: other keys (a key goes
    # only to the server it belongs to, and is one person's).
    bob = for_hello(keys, URL, "bob", "Bob")
    other = for_hello(keys, "ws://elsewhere:8765", "Ann")
    assert len({first.saved.key, bob.saved.key, other.saved.key}) == 3
    assert stat.S_IMODE((tmp_path / "keys.json").stat().st_mode) == 0o600
    assert not list(tmp_path.glob(".keys.*"))  # no temporary file left behind


def old_file(folder: Path, key: str, **extra: object) -> None:
    """A keys.json as clients wrote it before keys were per player: one per server."""
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"key": key, "registered": True, **extra}
    (folder / "keys.json").write_text(json.dumps({URL: entry}), encoding="utf-8")


def test_an_old_per_server_key_goes_to_the_player_the_server_names(tmp_path: Path) -> None:
    old = "a" * 32
    old_file(tmp_path, old)
    keys = FileKeys(tmp_path)
    # Bob connects first: he says hello with the old key, the server calls him Alice.
    tried = for_hello(keys, URL, "bob", "Bob")
    assert tried.old and tried.saved.key == old
    assert not welcomed(keys, URL, tried, "Alice", "bob", "Bob")  # not his: say hello again
    assert keys.get(URL) == SavedKey(old, registered=True, owner="Alice")
    own = for_hello(keys, URL, "bob", "Bob")
    assert not own.old and own.saved.key != old and not own.saved.registered
    # Alice, named as the server knows her (case aside), takes it with no round trip.
    alice = for_hello(keys, URL, "ALICE")
    assert not alice.old and alice.saved == SavedKey(old, registered=True)
    assert keys.get(URL) is None and keys.get(seat_key(URL, "alice")) == alice.saved
    # The first to connect, when the server names them, keeps it at once.
    old_file(tmp_path / "solo", old)
    solo = FileKeys(tmp_path / "solo")
    tried = for_hello(solo, URL, "alice", "Alice")
    assert tried.old and welcomed(solo, URL, tried, "Alice", "alice", "Alice")
    assert solo.get(URL) is None
    assert solo.get(seat_key(URL, "alice")) == SavedKey(old, registered=True)


def test_keys_are_parsed_strictly() -> None:
    assert parse_key("  0123456789ABCDEF0123456789abcdef\n") == "0123456789abcdef0123456789abcdef"
    for bad in ("", "0" * 31, "0" * 33, "g" * 32, "0123456789abcdef 0123456789abcdef"):
        with pytest.raises(BadKey):
            parse_key(bad)


def test_a_damaged_key_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(OSError, match="damaged"):
        for_hello(FileKeys(tmp_path), URL, "Ann")
    assert path.read_text(encoding="utf-8") == "{not json"


def atout_key(folder: Path, *argv: str) -> int:
    args = parser().parse_args(["key", *argv])
    return key_command.run(args, DEFAULT_URL, normalize_url, FileKeys(folder))


def test_export_import_and_forget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, away = tmp_path / "home", tmp_path / "away"
    assert atout_key(home, "export", URL, "--name", "Ann") == 1  # nothing to export yet
    err = capsys.readouterr().err
    assert "no player key for Ann" in err and f"atout connect {URL} --name Ann" in err
    made = for_hello(FileKeys(home), URL, "Ann").saved
    assert atout_key(home, "export", URL, "--name", "ann") == 0
    out = capsys.readouterr()
    assert out.out == made.key + "\n"  # stdout: the key alone, for a pipe
    assert "secret" in out.err
    # Another player of this machine has none.
    assert atout_key(home, "export", URL, "--profile", "bob") == 1
    assert "--profile bob" in capsys.readouterr().err
    # Import validates, and marks the key registered (a typo is refused by
    # the server instead of becoming a new player).
    assert atout_key(away, "import", URL, "not-a-key", "--name", "Ann") == 2
    assert FileKeys(away).get(seat_key(URL, "Ann")) is None
    assert atout_key(away, "import", URL, made.key.upper(), "--name", "Ann") == 0
    assert FileKeys(away).get(seat_key(URL, "Ann")) == SavedKey(made.key, registered=True)
    # The default URL when only the key is given.
    assert atout_key(away, "import", made.key, "--name", "Ann") == 0
    assert FileKeys(away).get(seat_key(DEFAULT_URL, "Ann")) == SavedKey(made.key, registered=True)
    # Another registered key is not replaced without --replace.
    other = "f" * 32
    assert atout_key(away, "import", URL, other, "--name", "Ann") == 1
    assert f"atout key export {URL} --name Ann" in capsys.readouterr().err
    assert FileKeys(away).get(seat_key(URL, "Ann")) == SavedKey(made.key, registered=True)
    assert atout_key(away, "import", "--replace", URL, other, "--name", "Ann") == 0
    assert FileKeys(away).get(seat_key(URL, "Ann")) == SavedKey(other, registered=True)
    # A profile is its own player: a key for it leaves Ann's alone.
    assert atout_key(away, "import", URL, made.key, "--profile", "work", "--name", "Ann") == 0
    assert FileKeys(away).get(seat_key(URL, "work")) == SavedKey(made.key, registered=True)
    assert atout_key(away, "forget", URL, "--name", "Ann") == 0
    assert FileKeys(away).get(seat_key(URL, "Ann")) is None
    assert FileKeys(away).get(seat_key(URL, "work")) is not None  # only that player's key
    assert FileKeys(away).get(seat_key(DEFAULT_URL, "Ann")) is not None  # only that server's


def test_the_key_commands_and_an_old_per_server_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = "b" * 32
    old_file(tmp_path, old)
    # Whose it is is not known yet: nobody exports it, and the note says why.
    assert atout_key(tmp_path, "export", URL, "--name", "Bob") == 1
    assert "from before keys were kept per player" in capsys.readouterr().err
    old_file(tmp_path, old, owner="Alice")
    assert atout_key(tmp_path, "export", URL, "--name", "Bob") == 1
    assert "it is Alice's" in capsys.readouterr().err
    # Alice's own: exporting it carries it over to her.
    assert atout_key(tmp_path, "export", URL, "--name", "alice") == 0
    assert capsys.readouterr().out == old + "\n"
    keys = FileKeys(tmp_path)
    assert keys.get(URL) is None and keys.get(seat_key(URL, "alice")) is not None
    # Importing the old key itself carries it over too.
    old_file(tmp_path, old)
    assert atout_key(tmp_path, "import", URL, old, "--profile", "al", "--name", "Al") == 0
    assert keys.get(URL) is None
    assert keys.get(seat_key(URL, "al")) == SavedKey(old, registered=True)


def test_bad_names_and_urls_of_the_key_commands_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from clients.cli.__main__ import main

    monkeypatch.setenv("ATOUT_CONFIG_DIR", str(tmp_path))
    for argv in (
        ["key", "export", "ftp://x"],
        ["key", "export", URL, "--name", " "],
        ["key", "forget", URL, "--profile", " "],
    ):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("atout key: ") and "Traceback" not in err
    assert not (tmp_path / "keys.json").exists()


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

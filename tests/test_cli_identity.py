"""Two people on one machine are two players (issue 27): the terminal client
keeps a player key per server *and player*, as it keeps seat tokens, against
a real in-process server driven with Textual's Pilot; and a key file written
when keys were kept per server only is carried over to the right person.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients.cli.app import AtoutApp
from clients.cli.daily_history import FileHistory
from clients.cli.keys import FileKeys
from clients.cli.tokens import FileTokens, seat_key
from server.base.players import key_digest
from server.process.app import Server
from tests.support.pilot import SIZE, shown, until
from tests.support.servers import running


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    async with running(log_level="warning") as srv:
        yield srv


def url(srv: Server) -> str:
    return f"ws://127.0.0.1:{srv.port}"


async def connect(srv: Server, folder: Path, name: str, profile: str | None = None) -> Any:
    """``atout connect URL --name NAME [--profile P]`` with config folder
    ``folder``, to the lobby and back out; (player id, name in the header,
    connections opened)."""
    app = AtoutApp(
        url=url(srv),
        name=name,
        profile=profile,
        tokens=FileTokens(folder),
        keys=FileKeys(folder),
        history=FileHistory(folder),
        base_delay=0.05,
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link and app.link.lobby is not None, what="the lobby")
        assert app.daily.player_id is not None and app.errors == []
        await shown(pilot, app, f"│ {app.player_name}")  # the header's name
        seen = (app.daily.player_id, app.player_name, app.link.connections)
        await app.aclose()
    return seen


async def known_as(srv: Server, folder: Path, player: str) -> tuple[str, str]:
    """(id, name) of the player the server knows by ``player``'s key in ``folder``."""
    saved = FileKeys(folder).get(seat_key(url(srv), player))
    assert saved is not None and saved.registered
    known = await srv.daily.players.find(key_digest(saved.key))
    assert known is not None
    return known.id, known.name


async def test_two_people_on_one_machine_are_two_players(server: Server, tmp_path: Path) -> None:
    # The evening of the issue: one config folder, Alice, then Bob with a profile.
    alice, name, _ = await connect(server, tmp_path, "Alice")
    assert name == "Alice"
    bob, name, _ = await connect(server, tmp_path, "Bob", profile="bob")
    assert name == "Bob" and bob != alice
    # The server has two players, each with its own key in the one file.
    assert await known_as(server, tmp_path, "Alice") == (alice, "Alice")
    assert await known_as(server, tmp_path, "bob") == (bob, "Bob")
    # A name alone is a player too (no profile), kept apart from bob's.
    carol, name, _ = await connect(server, tmp_path, "Carol")
    assert name == "Carol" and carol not in (alice, bob)
    # And each comes back as themselves.
    assert (await connect(server, tmp_path, "Alice"))[:2] == (alice, "Alice")
    assert (await connect(server, tmp_path, "Bob", profile="bob"))[:2] == (bob, "Bob")
    keys = json.loads((tmp_path / "keys.json").read_text(encoding="utf-8"))
    assert sorted(keys) == sorted(seat_key(url(server), p) for p in ("Alice", "bob", "Carol"))


def old_file(folder: Path, srv: Server, key: str) -> None:
    """``keys.json`` as clients wrote it before keys were per player."""
    folder.mkdir(parents=True, exist_ok=True)
    old = {url(srv): {"key": key, "registered": True}}
    (folder / "keys.json").write_text(json.dumps(old), encoding="utf-8")


async def test_an_old_key_file_is_carried_over_to_the_player_the_server_names(
    server: Server, tmp_path: Path
) -> None:
    # Dora made her key with an older client: the file has one key per server.
    dora, _, _ = await connect(server, tmp_path / "made", "Dora")
    key = FileKeys(tmp_path / "made").get(seat_key(url(server), "Dora"))
    assert key is not None
    home = tmp_path / "home"
    old_file(home, server, key.key)
    # Eli connects first from that machine: the server names the old key's
    # owner (Dora), so Eli leaves that connection and becomes a player of his own.
    eli, name, connections = await connect(server, home, "Eli", profile="eli")
    assert name == "Eli" and eli != dora and connections == 1
    assert await known_as(server, home, "eli") == (eli, "Eli")
    old = json.loads((home / "keys.json").read_text(encoding="utf-8"))[url(server)]
    assert old == {"key": key.key, "registered": True, "owner": "Dora"}
    # Dora comes back: the old key is hers, as the same player.
    assert (await connect(server, home, "dora"))[:2] == (dora, "Dora")
    keys = json.loads((home / "keys.json").read_text(encoding="utf-8"))
    assert sorted(keys) == sorted(seat_key(url(server), p) for p in ("dora", "eli"))
    assert keys[seat_key(url(server), "dora")] == {"key": key.key, "registered": True}
    # Alone on a machine, the first to connect is its owner: carried over at once.
    alone = tmp_path / "alone"
    old_file(alone, server, key.key)
    assert (await connect(server, alone, "Dora", profile="d"))[:2] == (dora, "Dora")
    keys = json.loads((alone / "keys.json").read_text(encoding="utf-8"))
    assert list(keys) == [seat_key(url(server), "d")]

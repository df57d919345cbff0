"""Player keys and display names: the pure checks, and the ``PlayerStore``
contract held by the memory and Redis stores alike (a real redis-server)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.base.players import (
    NAME_MAX,
    BadName,
    clean_name,
    key_digest,
    name_key,
    new_key,
    valid_key,
)
from server.store.players import MemoryPlayers, NameTaken, PlayerStore
from server.store.redis import RedisStore
from server.store.redis_players import RedisPlayers
from tests.support.redis import RedisServer

# --- keys ------------------------------------------------------------------------


def test_a_new_key_is_128_random_bits_in_hex() -> None:
    keys = {new_key() for _ in range(100)}
    assert len(keys) == 100
    assert all(len(k) == 32 and valid_key(k) for k in keys)


@pytest.mark.parametrize("key", ["", "abc", "G" * 32, "A" * 32, "a" * 31, "a" * 33, " " + "a" * 31])
def test_malformed_keys_are_not_keys(key: str) -> None:
    assert not valid_key(key)


def test_the_digest_is_not_the_key() -> None:
    key = new_key()
    assert key_digest(key) != key and key not in key_digest(key)
    assert key_digest(key) == key_digest(key)


# --- names -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [("Alice", "Alice"), ("  Alice  ", "Alice"), ("Jean Luc", "Jean Luc"), ("Zoé", "Zoé")],
)
def test_good_names(raw: str, clean: str) -> None:
    assert clean_name(raw) == clean


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "choose"),
        ("   ", "choose"),
        ("x" * (NAME_MAX + 1), "at most"),
        ("Bob\x07", "U+0007"),
        ("Bob\n", "U+000A"),
        ("Bo\u200bb", "U+200B"),  # zero-width space
        ("Bob\u202e", "U+202E"),  # right-to-left override
        ("Jean\u00a0Luc", "plain spaces"),  # no-break space
        ("Jean\u3000Luc", "plain spaces"),  # ideographic space
        ("Jean  Luc", "two spaces"),
        ("Bot Ada", '"Bot "'),  # bots' names (server.base.text.bot_like), for players too
        ("  bot  x", "two spaces"),
        ("BOT x", '"Bot "'),
        ("ｂｏｔ x", '"Bot "'),  # full-width look-alike
    ],
)
def test_bad_names_say_why(raw: str, why: str) -> None:
    with pytest.raises(BadName, match=re.escape(why)):
        clean_name(raw)


def test_look_alike_names_are_one_name() -> None:
    assert name_key("Alice") == name_key("alice") == name_key("ＡＬＩＣＥ")
    assert name_key("Alice") != name_key("Alicia")


@given(st.text(max_size=40))
def test_a_clean_name_is_clean_again(raw: str) -> None:
    try:
        name = clean_name(raw)
    except BadName:
        return
    assert clean_name(name) == name
    assert 1 <= len(name) <= NAME_MAX


# --- the store contract --------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
async def players(request: pytest.FixtureRequest) -> AsyncIterator[PlayerStore]:
    if request.param == "memory":
        yield MemoryPlayers()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    store = await RedisStore.connect(server.url)
    yield RedisPlayers(store)
    await store.close()


async def test_register_then_find(players: PlayerStore) -> None:
    digest = key_digest(new_key())
    assert await players.find(digest) is None
    alice = await players.register(digest, "Alice")
    assert alice.name == "Alice"
    assert await players.find(digest) == alice
    # The same key again: the same player, whatever name it now asks for.
    assert await players.register(digest, "Alicia") == alice
    assert await players.names([alice.id, "p-nobody"]) == {alice.id: "Alice"}


async def test_a_name_belongs_to_the_first_key(players: PlayerStore) -> None:
    first = await players.register(key_digest(new_key()), "Alice")
    other = key_digest(new_key())
    for look_alike in ("Alice", "alice", "ＡＬＩＣＥ"):
        with pytest.raises(NameTaken):
            await players.register(other, look_alike)
    assert await players.find(other) is None  # nothing recorded
    assert (await players.find(key_digest(new_key()))) is None
    assert await players.names([first.id]) == {first.id: "Alice"}


async def test_rename_frees_the_old_name(players: PlayerStore) -> None:
    alice = await players.register(key_digest(new_key()), "Alice")
    bob = await players.register(key_digest(new_key()), "Bob")
    with pytest.raises(NameTaken):
        await players.rename(bob.id, "alice")
    assert (await players.rename(alice.id, "Alicia")).name == "Alicia"
    assert await players.rename(alice.id, "ALICIA") == alice.__class__(id=alice.id, name="ALICIA")
    renamed = await players.rename(bob.id, "Alice")  # free again
    assert await players.names([alice.id, bob.id]) == {alice.id: "ALICIA", bob.id: "Alice"}
    assert renamed.id == bob.id


@pytest.mark.redis
async def test_players_survive_a_server_restart(redis_server: RedisServer) -> None:
    digest = key_digest(new_key())
    store = await RedisStore.connect(redis_server.url)
    alice = await RedisPlayers(store).register(digest, "Alice")
    await store.close()
    store = await RedisStore.connect(redis_server.url)
    try:
        again = RedisPlayers(store)
        assert await again.find(digest) == alice
        with pytest.raises(NameTaken):
            await again.register(key_digest(new_key()), "ALICE")
    finally:
        await store.close()

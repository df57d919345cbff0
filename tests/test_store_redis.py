"""The ``TableStore`` contract, held by every store, and what only Redis adds.

The contract tests run against ``MemoryStore``, ``SqliteStore`` (``atout
play``'s file) and ``RedisStore`` alike, so the embedded stores and the
deployed one cannot drift apart. The Redis-only
tests cover expiry, the lobby index cleanup, outages and reconnection, and the
asyncio-redis fixes (``server/store/asyncio_redis_fixes.py``), each against a real
``redis-server`` (see ``tests/support/redis.py``). Expiry and reconnection
run on Redis's clock and the library's retry timers: those tests wait in real
time (no clock of the test moves them).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import asyncio_redis
import pytest
from asyncio_redis.encoders import BytesEncoder
from structlog.testing import capture_logs

from server.store.asyncio_redis_fixes import _Connection
from server.store.base import StaleWrite, StoreError, TableStore
from server.store.memory import MemoryStore
from server.store.redis import PRUNE_STEP, RedisStore, parse_url
from server.store.sqlite import SqliteStore
from tests.support.redis import RedisServer, RedisUnavailable, paused
from tests.support.waits import eventually

pytestmark = pytest.mark.redis

BLOB = os.urandom(3000)  # every byte value can occur in a msgpack blob


async def wait_healthy(store: RedisStore, within_s: float = 5.0) -> None:
    await eventually(store.healthy, within_s, what="the store healthy again", poll=0.05)


async def raw_connection(server: RedisServer) -> asyncio_redis.Connection:
    """A plain asyncio-redis connection, to look at keys behind the store's back."""
    return await asyncio_redis.Connection.create(
        port=server.port, encoder=BytesEncoder(), auto_reconnect=False
    )


# --- one contract, two stores --------------------------------------------------


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[TableStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    if request.param == "sqlite":
        sqlite_store = SqliteStore(tmp_path_factory.mktemp("sqlite") / "tables.sqlite3")
        yield sqlite_store
        await sqlite_store.close()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    redis_store = await RedisStore.connect(server.url)
    yield redis_store
    await redis_store.close()


async def test_save_load_round_trip(store: TableStore) -> None:
    assert await store.load("t1") is None
    await store.save("t1", 1, BLOB)
    assert await store.load("t1") == (1, BLOB)
    await store.save("t1", 2, b"")
    assert await store.load("t1") == (2, b"")


async def test_stale_write_is_refused_and_changes_nothing(store: TableStore) -> None:
    await store.save("t1", 5, b"new")
    with pytest.raises(StaleWrite) as caught:
        await store.save("t1", 4, b"old", open_=False)
    assert (caught.value.table_id, caught.value.version, caught.value.stored) == ("t1", 4, 5)
    assert isinstance(caught.value, StoreError)
    assert await store.load("t1") == (5, b"new")
    assert await store.open_tables() == ["t1"]  # the refused open_=False did not apply


async def test_equal_version_is_accepted(store: TableStore) -> None:
    await store.save("t1", 3, b"first")
    await store.save("t1", 3, b"retried")
    assert await store.load("t1") == (3, b"retried")


async def test_concurrent_saves_each_get_their_own_answer(store: TableStore) -> None:
    # The Redis store sends saves made meanwhile in one request (group
    # commit): each caller must still see exactly its own save's outcome.
    await store.save("stale", 5, b"five")
    tables = [f"t{i}" for i in range(300)]  # more than one batch
    outcomes = await asyncio.gather(
        *(store.save(t, 1, t.encode(), open_=i % 2 == 0) for i, t in enumerate(tables)),
        store.save("stale", 4, b"four"),
        return_exceptions=True,
    )
    assert outcomes[:-1] == [None] * len(tables)
    assert isinstance(outcomes[-1], StaleWrite) and outcomes[-1].stored == 5
    for t in tables:
        assert await store.load(t) == (1, t.encode())
    assert await store.load("stale") == (5, b"five")
    assert set(await store.open_tables()) == {*tables[::2], "stale"}


async def test_open_index(store: TableStore) -> None:
    assert await store.open_tables() == []
    await store.save("b", 1, b"x")
    await store.save("a", 1, b"x")
    await store.save("c", 1, b"x", open_=False)
    assert await store.open_tables() == ["a", "b"]
    await store.save("b", 2, b"x", open_=False)
    assert await store.open_tables() == ["a"]
    assert await store.load("b") == (2, b"x")  # closed, not forgotten
    await store.save("b", 3, b"x")
    assert await store.open_tables() == ["a", "b"]


async def test_records_keep_their_order(store: TableStore) -> None:
    assert await store.records("t1") == []
    for i in range(5):
        await store.append_record("t1", b'{"deal": %d}' % i, f"0/{i}")
    assert await store.records("t1") == [b'{"deal": %d}' % i for i in range(5)]
    assert await store.records("t2") == []


async def test_a_record_is_appended_once_per_key(store: TableStore) -> None:
    # The chaos campaign's find: a server killed after appending a deal's
    # record and before saving the state that ends the deal replays the last
    # move after its restart, and appends the record again.
    await store.save("t1", 1, b"x")
    await store.append_record("t1", b'{"deal": 0}', "0/0")
    await store.append_record("t1", b'{"deal": 0, "again": 1}', "0/0")
    await store.append_record("t1", b'{"deal": 1}', "0/1")
    await store.append_record("t1", b'{"deal": 0, "game": 1}', "1/0")  # the next game
    await store.append_record("t2", b'{"deal": 0}', "0/0")  # keys are per table
    assert await store.records("t1") == [b'{"deal": 0}', b'{"deal": 1}', b'{"deal": 0, "game": 1}']
    assert await store.records("t2") == [b'{"deal": 0}']
    assert await store.load("t1") == (1, b"x")
    await store.delete("t1")
    await store.append_record("t1", b'{"deal": 0, "new": 1}', "0/0")  # a deleted id starts over
    assert await store.records("t1") == [b'{"deal": 0, "new": 1}']


async def test_delete_forgets_state_records_and_index(store: TableStore) -> None:
    await store.save("t1", 1, b"x")
    await store.append_record("t1", b"{}", "0/0")
    await store.save("t2", 1, b"y")
    await store.delete("t1")
    assert await store.load("t1") is None
    assert await store.records("t1") == []
    assert await store.open_tables() == ["t2"]
    await store.delete("t1")  # forgetting twice is harmless
    await store.save("t1", 0, b"again")  # and a deleted id starts over
    assert await store.load("t1") == (0, b"again")


async def test_table_ids_are_text(store: TableStore) -> None:
    await store.save("tablé:1", 1, b"x")
    assert await store.open_tables() == ["tablé:1"]
    assert await store.load("tablé:1") == (1, b"x")


async def test_healthy(store: TableStore) -> None:
    assert await store.healthy() is True


# --- Redis only ----------------------------------------------------------------


# --- what only the SQLite file adds ------------------------------------------------


async def test_sqlite_keeps_tables_across_reopening_and_refuses_a_stale_second_writer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "play.sqlite3"
    first = SqliteStore(path)
    await first.save("t1", 3, BLOB)
    await first.append_record("t1", b'{"deal": 1}', "0/0")
    second = SqliteStore(path)  # another process opening the same file
    with pytest.raises(StaleWrite):
        await second.save("t1", 2, b"old")
    await first.close()
    await second.close()
    again = SqliteStore(path)
    assert await again.load("t1") == (3, BLOB)
    assert await again.records("t1") == [b'{"deal": 1}']
    assert await again.open_tables() == ["t1"]
    await again.close()


async def test_sqlite_opens_a_file_from_before_keyed_records(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE records (n INTEGER PRIMARY KEY AUTOINCREMENT, "
        "table_id TEXT NOT NULL, record BLOB NOT NULL);"
        "INSERT INTO records (table_id, record) VALUES ('t1', X'7b7d');"
    )
    db.commit()
    db.close()
    store = SqliteStore(path)
    await store.append_record("t1", b"[]", "0/1")
    await store.append_record("t1", b"[]", "0/1")
    assert await store.records("t1") == [b"{}", b"[]"]
    await store.close()


def test_sqlite_refuses_a_file_it_cannot_create(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(StoreError):
        SqliteStore(blocker / "play.sqlite3")


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("redis://localhost:6379/0", ("localhost", 6379, 0, None)),
        ("redis://redis", ("redis", 6379, 0, None)),
        ("redis://10.0.0.2:7000/3", ("10.0.0.2", 7000, 3, None)),
        ("redis://:p%40ss@h:1/2", ("h", 1, 2, b"p@ss")),
    ],
)
def test_parse_url(url: str, parsed: tuple[str, int, int, bytes | None]) -> None:
    assert parse_url(url) == parsed


@pytest.mark.parametrize("url", ["http://h:1/0", "redis://h/x", "redis://user:pw@h/0"])
def test_parse_url_refuses(url: str) -> None:
    with pytest.raises(ValueError):
        parse_url(url)


async def test_every_write_sets_the_expiry(redis_server: RedisServer) -> None:
    store = await RedisStore.connect(redis_server.url, expire_s=10)
    raw = await raw_connection(redis_server)
    try:
        await store.save("open", 1, b"x")
        await store.save("closed", 1, b"x", open_=False)
        await store.append_record("open", b"{}", "0/0")
        for key in (b"atout:table:open", b"atout:table:closed", b"atout:records:open"):
            assert 9000 < await raw.pttl(key) <= 10000, key
        assert await raw.pttl(b"atout:open") == -1  # the index itself never expires
    finally:
        raw.close()
        await store.close()


async def test_blobs_of_every_size_class_and_byte_come_back_intact_from_a_group_commit(
    redis_server: RedisServer,
) -> None:
    # A group commit sends its saves as one MessagePack argument, each blob
    # as a string (Redis's cmsgpack reads no binary type): each string
    # header's size class, with every byte value, one a version near 2**53.
    store = await RedisStore.connect(redis_server.url)
    sizes = [0, 1, 31, 32, 255, 256, 65535, 65536, 300_000]
    blobs = {f"t{n}": bytes(range(256)) * (n // 256) + bytes(range(n % 256)) for n in sizes}
    try:
        await asyncio.gather(
            *(store.save(t, 2**53 - i, blob) for i, (t, blob) in enumerate(blobs.items()))
        )
        for i, (t, blob) in enumerate(blobs.items()):
            assert await store.load(t) == (2**53 - i, blob)
    finally:
        await store.close()


async def test_saves_made_within_the_save_interval_go_in_one_request(
    redis_server: RedisServer,
) -> None:
    # An interval long enough that "at once" stays below it on a busy machine.
    store = await RedisStore.connect(redis_server.url, save_interval_s=2.0)
    raw = await raw_connection(redis_server)
    loop = asyncio.get_running_loop()
    try:
        started = loop.time()
        await store.save("warm", 1, b"x")  # loads the script (a NOSCRIPT first)
        assert loop.time() - started < 1.5  # a save after a quiet spell goes at once
        await raw.config_resetstat()
        await asyncio.gather(*(store.save(f"t{i}", 1, b"x") for i in range(20)))
        # asyncio-redis leaves INFO unparsed: its raw text has lines like
        # "cmdstat_evalsha:calls=1,usec=...".
        info = (await raw.info(b"commandstats"))._data
        info = info.decode() if isinstance(info, bytes) else info
        calls = {
            line.split(":")[0]: line.split("calls=")[1].split(",")[0]
            for line in info.splitlines()
            if line.startswith("cmdstat_")
        }
        assert calls.get("cmdstat_evalsha") == "1", calls
        assert [await store.load(f"t{i}") for i in range(20)] == [(1, b"x")] * 20
    finally:
        raw.close()
        await store.close()


async def test_idle_tables_expire_and_leave_the_lobby(redis_server: RedisServer) -> None:
    """The expiry runs on Redis's clock, which no clock of the test moves:
    the idle tables' is short (0.3 s), and the test waits for it to happen.
    The busy table is saved as the idle ones are, by a server that keeps
    tables a day: the checks after the expiry have that day to spare."""
    store = await RedisStore.connect(redis_server.url, expire_s=0.3)
    busy = await RedisStore.connect(redis_server.url)
    try:
        await store.save("idle", 1, b"x")
        await store.append_record("idle", b"{}", "0/0")
        await store.save("closed", 1, b"x", open_=False)
        await busy.save("busy", 1, b"x")

        async def expired() -> bool:  # each 0.3 s after its own save
            return await store.load("idle") is None and await store.load("closed") is None

        await eventually(expired, what="the idle and the closed table expiring")
        assert await store.records("idle") == []
        assert await store.load("busy") == (1, b"x")
        assert await store.open_tables() == ["busy"]
        # ... and the index entry is really gone, not just filtered out.
        raw = await raw_connection(redis_server)
        assert await raw.smembers_asset(b"atout:open") == {b"busy"}
        raw.close()
    finally:
        await store.close()
        await busy.close()


async def test_the_open_index_is_pruned_a_step_at_a_time_and_wholly(
    redis_server: RedisServer,
) -> None:
    # More open tables than one pruning step looks at: the tables gone
    # (expired, here deleted behind the store's back) leave the index in
    # every step, and the ones still there all stay.
    store = await RedisStore.connect(redis_server.url)
    raw = await raw_connection(redis_server)
    try:
        ids = [f"t{i:04d}" for i in range(3 * int(PRUNE_STEP) + 7)]
        await asyncio.gather(*(store.save(t, 1, b"x") for t in ids))
        gone = ids[::3]
        await raw.delete([b"atout:table:" + t.encode() for t in gone])
        assert await store.open_tables() == sorted(set(ids) - set(gone))
        assert len(await raw.smembers_asset(b"atout:open")) == len(ids) - len(gone)
    finally:
        raw.close()
        await store.close()


async def test_db_number_is_honoured(redis_server: RedisServer) -> None:
    on_0 = await RedisStore.connect(redis_server.url)
    on_5 = await RedisStore.connect(redis_server.url.removesuffix("/0") + "/5")
    try:
        await on_5.save("t1", 1, b"five")
        assert await on_0.load("t1") is None
        assert await on_5.load("t1") == (1, b"five")
    finally:
        await on_0.close()
        await on_5.close()


async def test_connect_to_nothing_fails_fast(redis_server: RedisServer) -> None:
    redis_server.stop()
    async with asyncio.timeout(2):
        with pytest.raises(StoreError):
            await RedisStore.connect(redis_server.url, timeout_s=1)


async def test_outage_then_restart(redis_server: RedisServer) -> None:
    store = await RedisStore.connect(redis_server.url)
    try:
        await store.save("t1", 1, b"x")
        redis_server.stop()
        assert await store.healthy() is False
        for attempt in (
            store.save("t1", 2, b"y"),
            store.load("t1"),
            store.open_tables(),
            store.delete("t1"),
            store.append_record("t1", b"{}", "0/0"),
            store.records("t1"),
        ):
            with pytest.raises(StoreError):
                await attempt

        redis_server.start()  # empty: no persistence, and no scripts loaded
        await wait_healthy(store)
        assert await store.load("t1") is None
        await store.save("t1", 3, b"z")  # EVALSHA gets NOSCRIPT and reloads
        assert await store.load("t1") == (3, b"z")
        assert await store.open_tables() == ["t1"]
    finally:
        await store.close()


async def test_password_and_db_survive_a_restart() -> None:
    try:
        server = RedisServer("--requirepass", "s3cret")
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        url = f"redis://:s3cret@127.0.0.1:{server.port}/2"
        with pytest.raises(StoreError):
            await RedisStore.connect(url.replace("s3cret", "wrong"), timeout_s=1)
        with pytest.raises(StoreError):
            await RedisStore.connect(f"redis://127.0.0.1:{server.port}/2", timeout_s=1)
        store = await RedisStore.connect(url)
        try:
            server.stop()
            server.start()
            await wait_healthy(store)  # healthy only once AUTH and SELECT went through
            await store.save("t1", 1, b"x")
            raw = await raw_connection(server)
            await raw.auth(b"s3cret")
            await raw.select(2)
            assert await raw.exists(b"atout:table:t1")
            raw.close()
        finally:
            await store.close()


async def test_a_changed_password_is_retried_with_backoff(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each refused handshake lengthens the wait before the next (a spy on
    the connection's backoff notes when and by how much). The waits run on
    the real loop (the library's reconnection takes no clock), but the test
    only waits for the third refusal of each connection: its checks hold
    however slow the machine (a sleep never ends early)."""
    tries: dict[int, list[tuple[float, float]]] = {}
    real_increase = _Connection._increase_retry_interval

    def increase(self: _Connection) -> None:
        real_increase(self)
        now = asyncio.get_running_loop().time()
        tries.setdefault(id(self), []).append((now, self._retry_interval))

    monkeypatch.setattr(_Connection, "_increase_retry_interval", increase)
    try:
        server = RedisServer("--requirepass", "old")
    except RedisUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        store = await RedisStore.connect(f"redis://:old@127.0.0.1:{server.port}/0")
        try:
            server.stop()
            server.extra_args = ("--requirepass", "new")
            server.start()
            with capture_logs() as logs:
                await eventually(
                    lambda: len(tries) == 2 and all(len(t) >= 3 for t in tries.values()),
                    what="both connections refused three times",
                    detail=lambda: repr(tries),
                )
            assert len([e for e in logs if e["event"] == "redis.handshake_failed"]) >= 6
            # Two connections, retrying after 0.15 s, 0.225 s, 0.34 s...
            # Without backoff each would retry at once, hundreds of times.
            for each in tries.values():
                (first, after_first), (second, after_second), (third, _) = each[:3]
                assert after_first == pytest.approx(0.15)
                assert after_second == pytest.approx(0.225)
                assert second - first >= after_first and third - second >= after_second
            assert await store.healthy() is False
        finally:
            await store.close()


async def test_a_late_error_reply_does_not_wedge_the_connection(
    redis_server: RedisServer,
) -> None:
    # One connection, a short deadline, and a save that will fail (the key
    # holds a string) but only after its caller gave up, because Redis is
    # paused (CLIENT PAUSE, acknowledged before the save is sent). Unfixed
    # asyncio-redis stops reading replies.
    store = await RedisStore.connect(redis_server.url, poolsize=1, timeout_s=0.2)
    raw = await raw_connection(redis_server)
    try:
        await raw.set(b"atout:table:bad", b"not a hash")
        # Redis answers no one; leaving the block waits until it does again.
        with paused(redis_server.port, 400), pytest.raises(StoreError):
            await store.save("bad", 1, b"x")
        with pytest.raises(StoreError, match="WRONGTYPE"):
            await store.load("bad")  # an answer, even an error, means replies are read again
        await store.save("good", 1, b"x")
        assert await store.load("good") == (1, b"x")
    finally:
        raw.close()
        await store.close()


async def test_close_leaves_nothing_running(redis_server: RedisServer) -> None:
    store = await RedisStore.connect(redis_server.url)
    redis_server.stop()
    assert await store.healthy() is False  # the reconnect loops are now running
    await store.close()
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
    redis_server.start()
    assert await store.healthy() is False  # closed stays closed
    with pytest.raises(StoreError):
        await store.load("t1")

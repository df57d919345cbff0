"""Owner epochs and the leases set at the store's level, on a real ``redis-server``.

The save script's fences (server/store/redis.py ``_SAVE``): a save from an
older owner than the table's (``e``) is refused; versions are compared with
the stored state only when it was written at the saver's epoch or a later one
(``w``, or ``e`` for a hash written before ``w`` existed), so a newer owner's
first save after Redis lost its data replaces what an older owner wrote. And
the orphan scan's trust in ``atout:leases`` (server/cluster/lease.py
``_ORPHANS``): an entry is taken at its word only for at most a lease ahead.
docs/CLUSTER.md, "A Redis that restarts without its data" and "The orphan scan".
"""

from __future__ import annotations

import pytest

from server.cluster.lease import Leases
from server.store.base import StaleWrite
from server.store.redis import RedisStore

pytestmark = pytest.mark.redis

HOUR_MS = 3_600_000


async def _fields(store: RedisStore, table_id: str) -> dict[bytes, bytes]:
    return await store.pool.hgetall(store.keys.table + table_id.encode())


async def _write(store: RedisStore, table_id: str, **fields: int | bytes) -> None:
    """Write hash fields behind the store's back (older code, a data loss)."""
    for name, value in fields.items():
        raw = value if isinstance(value, bytes) else str(value).encode()
        await store.pool.pool.hset(store.keys.table + table_id.encode(), name.encode(), raw)


async def _refused(store: RedisStore, version: int, epoch: int) -> StaleWrite:
    with pytest.raises(StaleWrite) as caught:
        await store.save("t", version, b"refused", epoch=epoch)
    return caught.value


# --- the save's fences ----------------------------------------------------------------


async def test_an_older_version_at_the_same_epoch_is_refused(store: RedisStore) -> None:
    await store.save("t", 10, b"v10", epoch=3)
    refused = await _refused(store, 9, epoch=3)
    assert (refused.stored, refused.epoch) == (10, 0)  # the version refused it
    await store.save("t", 10, b"v10 again", epoch=3)  # an equal one is a retry
    assert await store.load("t") == (10, b"v10 again")


async def test_a_save_without_an_epoch_leaves_the_owners_version_fence(
    store: RedisStore,
) -> None:
    """An epoch-0 save (a tool, a lone server) does not say who wrote the
    state: ``w`` stays the owner's, whose older versions are still refused."""
    await store.save("t", 10, b"v10", epoch=3)
    await store.save("t", 11, b"v11 by a tool")  # epoch 0: no owner to fence
    refused = await _refused(store, 5, epoch=3)
    assert (refused.stored, refused.epoch) == (11, 0)
    fields = await _fields(store, "t")
    assert (fields[b"e"], fields[b"w"]) == (b"3", b"3")
    refused = await _refused(store, 4, epoch=0)  # nor does a tool go back
    assert (refused.stored, refused.epoch) == (11, 0)
    assert await store.load("t") == (11, b"v11 by a tool")


async def test_an_epoch_0_save_of_a_new_table_writes_no_writer(store: RedisStore) -> None:
    await store.save("t", 3, b"v3")
    assert b"w" not in await _fields(store, "t")
    assert (await _refused(store, 2, epoch=0)).stored == 3


async def test_a_hash_without_w_counts_as_written_at_its_epoch(store: RedisStore) -> None:
    """A hash saved by code from before ``w``: its state is its owner's (``e``)."""
    await _write(store, "t", v=10, blob=b"v10 by older code", e=4)
    refused = await _refused(store, 9, epoch=4)  # the same owner: versions compared
    assert (refused.stored, refused.epoch) == (10, 0)
    assert (await _refused(store, 20, epoch=3)).epoch == 4  # an older owner: fenced
    assert await store.load("t") == (10, b"v10 by older code")
    await store.save("t", 5, b"v5 at 5", epoch=5)  # a newer owner: replaces it
    assert await store.load("t") == (5, b"v5 at 5")
    fields = await _fields(store, "t")
    assert (fields[b"e"], fields[b"w"]) == (b"5", b"5")


async def test_a_newer_owners_first_save_replaces_only_a_state_written_at_a_lower_epoch(
    store: RedisStore,
) -> None:
    # Written at epoch 3; then claimed at epoch 4 (a claim raises e, not w).
    await store.save("t", 10, b"v10 at 3", epoch=3)
    await _write(store, "t", e=4)
    await store.save("t", 5, b"v5 at 4", epoch=4)  # w 3 < 4: replaced, whatever the version
    assert await store.load("t") == (5, b"v5 at 4")
    assert (await _fields(store, "t"))[b"w"] == b"4"
    # Now written at epoch 4: the same owner's older version is refused,
    # and the older owner is fenced by its epoch.
    assert (await _refused(store, 4, epoch=4)).stored == 5
    assert (await _refused(store, 11, epoch=3)).epoch == 4
    assert await store.load("t") == (5, b"v5 at 4")


async def test_after_a_data_loss_the_newer_owner_replaces_an_older_owners_higher_version(
    store: RedisStore,
) -> None:
    """Redis came back empty, an older owner (epoch 1) wrote first and played
    further on its stale state: the newer owner (epoch 2) replaces it."""
    await store.save("t", 20, b"v20 by the older", epoch=1)
    await store.save("t", 12, b"v12 by the newer", epoch=2)
    assert await store.load("t") == (12, b"v12 by the newer")
    fields = await _fields(store, "t")
    assert (fields[b"e"], fields[b"w"]) == (b"2", b"2")
    assert (await _refused(store, 21, epoch=1)).epoch == 2
    assert (await _refused(store, 11, epoch=2)).stored == 12


# --- the orphan scan's trust in atout:leases ------------------------------------------


async def _full_pass(leases: Leases, store: RedisStore) -> list[str]:
    """What the node's full pass asks (``Node.restore(full=True)``)."""
    return await leases.orphans(await store.open_tables())


async def test_the_full_pass_finds_an_unleased_table_whose_entry_is_far_ahead(
    store: RedisStore,
) -> None:
    """Redis's clock stepped back (a failover to a replica whose clock lags):
    an entry written before says the lease runs an hour more, but nobody holds
    it. No writer puts an entry more than a lease ahead: the full pass checks
    the lease key."""
    leases = Leases(store, "scanner", lease_s=5, expire_s=60)
    await store.save("t", 1, b"v1")  # open, stored, no lease
    now = await leases.now_ms()
    await store.pool.pool.zadd(store.keys.leases, {b"t": now + HOUR_MS})
    assert await _full_pass(leases, store) == ["t"]
    assert await leases.holder("t") is None
    assert await leases.claim("t") > 0
    entry = await store.pool.zscore(store.keys.leases, b"t")
    assert entry is not None and entry <= await leases.now_ms() + 5000


async def test_a_held_lease_whose_entry_is_far_ahead_is_put_right(store: RedisStore) -> None:
    owner = Leases(store, "owner", lease_s=5, expire_s=60)
    assert await owner.claim("t", new=True) > 0
    await store.save("t", 1, b"v1", epoch=1)
    now = await owner.now_ms()
    await store.pool.pool.zadd(store.keys.leases, {b"t": now + HOUR_MS})
    scanner = Leases(store, "scanner", lease_s=5, expire_s=60)
    assert await _full_pass(scanner, store) == []  # held: no orphan
    entry = await store.pool.zscore(store.keys.leases, b"t")
    assert entry is not None and now < entry <= await owner.now_ms() + 5000


async def test_an_entry_within_a_lease_is_taken_at_its_word(store: RedisStore) -> None:
    """The steady state's one read per table: an entry at most a lease ahead
    is trusted (the quick scan finds the table once it lapses)."""
    leases = Leases(store, "scanner", lease_s=5, expire_s=60)
    await store.save("t", 1, b"v1")  # open, stored, no lease
    now = await leases.now_ms()
    await store.pool.pool.zadd(store.keys.leases, {b"t": now + 4000})
    assert await _full_pass(leases, store) == []
    assert await store.pool.zscore(store.keys.leases, b"t") == now + 4000  # not looked at further

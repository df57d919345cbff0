"""This process in the service: its id, its leases, the orphans it takes over.

A ``Node`` exists only with the Redis store. It

* claims each table this process creates (before its first save) or takes
  over (before loading it), and keeps the owner epoch on the table;
* renews the leases of all its tables in one script every ``lease / 3`` and
  has those it lost step down at once (``Table.step_down``);
* scans for orphans every ``lease / 2``: open tables nobody holds a lease on
  (their owner died, or released them on drain) are claimed, loaded and
  served here; the claim is atomic, so exactly one process wins each;
* releases its tables' leases when the process stops, after their last save.

A restarted process is a new process (a new id): the leases of the one that
died must lapse before its tables are served again, here or elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from typing import TYPE_CHECKING

import structlog

from server.cluster.lease import Leases
from server.store.base import StoreError
from server.table import Table

if TYPE_CHECKING:
    from server.clock import Clock
    from server.config import Settings
    from server.lobby import Lobby
    from server.store.redis import RedisStore

log = structlog.get_logger()


class Node:
    def __init__(self, store: RedisStore, settings: Settings, lobby: Lobby, clock: Clock) -> None:
        self.proc = secrets.token_hex(4)
        """This process's id in the service (a restarted process is a new one)."""
        self.store = store
        self.settings = settings
        self.lobby = lobby
        self.clock = clock
        self.leases = Leases(store, self.proc, settings.lease, settings.table_expire)
        self._taking: dict[str, asyncio.Future[Table | None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.log = log.bind(proc=self.proc)

    # -- owning tables --------------------------------------------------------------

    async def claim_new(self, table_id: str) -> int:
        """Own a table being created (before its first save): its epoch, 0 if refused."""
        return await self.leases.claim(table_id, new=True)

    async def take(self, table_id: str) -> Table | None:
        """Claim, load and serve a stored table nobody owns; None if another
        process owns it, or it is not stored (or closed)."""
        table = self.lobby.tables.get(table_id)
        if table is not None:
            return table
        pending = self._taking.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        done: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._taking[table_id] = done
        try:
            table = await self._take(table_id)
        except BaseException as exc:
            done.set_exception(exc)
            done.exception()  # retrieved: waiters get it, nobody else must
            raise
        else:
            done.set_result(table)
        finally:
            del self._taking[table_id]
        return table

    async def _take(self, table_id: str) -> Table | None:
        epoch = await self.leases.claim(table_id)
        if not epoch:
            return None
        # Loaded after the claim: the old owner can no longer write.
        stored = await self.store.load(table_id)
        table = None
        if stored is not None:
            table = Table.restore(stored[1], self.store, self.settings, self.lobby, self.clock)
        if table is None:
            await self.leases.release(table_id)
            return None
        table.epoch = epoch
        self.lobby.add(table)
        version = table.core.state.version
        self.log.info("table_taken_over", table=table_id, epoch=epoch, version=version)
        return table

    async def restore(self) -> int:
        """Serve every open table nobody owns (at start, then every scan)."""
        open_ids = await self.store.open_tables()
        candidates = [t for t in open_ids if t not in self.lobby.tables]
        orphans = await self.leases.unleased(candidates)
        random.shuffle(orphans)  # processes scanning at once share the claims
        taken = 0
        for table_id in orphans:
            if await self.take(table_id) is not None:
                taken += 1
        return taken

    async def find(self, table_id: str) -> Table | None:
        """The table ``table_id`` served here: ours, or taken over now if
        nobody owns it; waits up to a lease for an owner that died to lapse."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.lease + 1.0
        while True:
            table = self.lobby.tables.get(table_id)
            if table is not None:
                return table
            holder = await self.leases.holder(table_id)
            if holder is None or holder == self.proc:
                return await self.take(table_id)
            if loop.time() >= deadline:
                return None
            await asyncio.sleep(0.25)

    # -- the lease renewer and the orphan scanner --------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._renewing(), name="cluster-renew"),
            loop.create_task(self._scanning(), name="cluster-scan"),
        ]

    async def _renewing(self) -> None:
        every = self.settings.lease / 3
        while True:
            await asyncio.sleep(every)
            try:
                await self.renew()
            except StoreError as exc:
                self.log.warning("lease_renewal_failed", error=str(exc))
            except Exception:
                self.log.exception("lease_renewal_error")

    async def renew(self) -> list[str]:
        """Renew every lease of ours; tables whose lease was lost step down."""
        owned = {t.id: t.epoch for t in self.lobby.tables.values() if t.epoch and not t.stale}
        lost = await self.leases.renew(owned)
        for table_id in lost:
            table = self.lobby.tables.get(table_id)
            if table is not None and table.epoch == owned[table_id]:
                self.log.warning("lease_lost", table=table_id, epoch=table.epoch)
                table.step_down()
        return lost

    async def _scanning(self) -> None:
        every = self.settings.lease / 2
        while True:
            # Jitter: processes that scan at the same moment would race for
            # every orphan; spread out, each tends to take its share.
            await asyncio.sleep(every * random.uniform(0.75, 1.25))
            try:
                await self.restore()
            except StoreError as exc:
                self.log.warning("orphan_scan_failed", error=str(exc))
            except Exception:
                self.log.exception("orphan_scan_error")

    async def stop(self) -> None:
        """Stop renewing and scanning (the tables are stopped by the lobby)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def release_all(self) -> None:
        """After the tables' last saves: let other processes take them at once."""
        for table in list(self.lobby.tables.values()):
            if table.epoch and not table.stale:
                with contextlib.suppress(StoreError):
                    await self.leases.release(table.id)

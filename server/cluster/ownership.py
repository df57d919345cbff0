"""Owning tables: claims, the lease renewer, the orphan scan and the drain.

* each table this process creates is claimed before its first save
  (``claim_new``), each it takes over before it is loaded (``take``), and
  the owner epoch is kept on the table;
* the renewer renews the leases of all its tables (500 to a script run)
  every ``lease / 3`` and has those it lost step down at once;
* the scanner looks for orphans every ``lease / 2``: open tables nobody
  holds a lease on (their owner died, or released them on drain) are
  claimed, loaded and served here; the claim is atomic, so exactly one
  process wins each. A scan reads only the leases that lapsed
  (``atout:leases``); one in ``FULL_SCAN_EVERY`` reads every open table,
  for those never leased;
* the drain (SIGTERM) stops, saves and releases each table, and claims
  nothing new meanwhile.

The renewer and the scanner run on real time, not the injected clock: a
lease lapses by Redis's clock, which no test can hold back, so they keep
pace with it whatever clock the tables run on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import structlog

from server.cluster.bus import Released
from server.cluster.lease import Leases, RenewalFailed
from server.lobby.directory import Unavailable
from server.store.base import StoreError
from server.table.actor import Table

if TYPE_CHECKING:
    from server.base.config import Settings
    from server.cluster.bus import Message
    from server.lobby.tables import Tables
    from server.store.redis import RedisStore

SCAN_PAGE = 200
"""Lapsed leases looked at per request of the orphan scan."""
SCAN_PAGES = 50
"""Most pages per scan (10,000 orphans); the next scan goes on."""
FULL_SCAN_EVERY = 10
"""One scan in this many (and the one at start) reads every open table:
those with no lease at all are not in ``atout:leases``. It also prunes
``atout:open`` of expired tables."""


class Ownership:
    def __init__(
        self,
        proc: str,
        leases: Leases,
        store: RedisStore,
        settings: Settings,
        tables: Tables,
        *,
        announce: Callable[[Message], None],
        taken: Callable[[Table], None],
        beat: Callable[[], None],
        log: structlog.typing.FilteringBoundLogger,
    ) -> None:
        self.proc = proc
        self.leases = leases
        self.store = store
        self.settings = settings
        self.tables = tables
        self._announce = announce
        """Publish on the lobby channel (every process hears it)."""
        self._taken = taken
        """A table taken over is served here now (told after ``serve``)."""
        self._beat = beat
        """Each renewal's heartbeat (the renewer is the process's pulse)."""
        self.log = log
        self.taking: dict[str, asyncio.Future[Table | None]] = {}
        """Takeovers under way, by table id (a second ask waits on the first)."""
        self.tasks: list[asyncio.Task[None]] = []
        self.renewing = asyncio.Lock()
        """Held by a renewal; a hand-over waits on it (it must not bring a lease back)."""
        self.leaving: set[str] = set()
        """Tables being handed over (drain): what comes for them is answered ``Moved``."""
        self._released: set[str] = set()
        self.draining = False
        """SIGTERM: the tables go to the other processes, and this one claims
        nothing new (no scan, ``Released`` ignored, no takeover, no creation)."""

    # -- claiming ----------------------------------------------------------------------

    async def claim_new(self, table_id: str) -> int:
        """Own a table being created (before its first save): its epoch.
        ``Unavailable`` if Redis refused or did not answer, or this process is
        draining (the table would not be handed over)."""
        epoch = 0
        if not self.draining:
            try:
                epoch = await self.leases.claim(table_id, new=True)
                if epoch and self.draining:  # began meanwhile
                    await self.leases.release(table_id)
                    epoch = 0
            except StoreError:
                epoch = 0
        if not epoch:
            if self.draining:
                raise Unavailable("this server is restarting; try again")
            raise Unavailable("the store did not answer; try again")
        return epoch

    async def take(self, table_id: str) -> Table | None:
        """Claim, load and serve a stored table nobody owns; None if another
        process owns it, or it is not stored (or closed), or this process is
        draining (it claims nothing new)."""
        table = self.tables.get(table_id)
        if table is not None or self.draining:
            return table
        pending = self.taking.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        done: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self.taking[table_id] = done
        try:
            table = await self._take(table_id)
        except BaseException as exc:
            done.set_exception(exc)
            done.exception()  # retrieved: waiters get it, nobody else must
            raise
        else:
            done.set_result(table)
        finally:
            del self.taking[table_id]
        return table

    async def _take(self, table_id: str) -> Table | None:
        try:
            epoch = await self.leases.claim(table_id)
        except asyncio.CancelledError:
            # Cancelled (a drain that could not wait for it) perhaps after
            # Redis ran the claim: the lease may be ours, for a whole lease.
            await self.give_up(table_id, tell=True)
            raise
        if not epoch:
            return None
        try:
            # Loaded after the claim: the old owner can no longer write.
            stored = await self.store.load(table_id)
            table = None
            if stored is not None:
                table = self.tables.revive(stored[1])
        except BaseException as exc:
            # Claimed but not served (Redis failed, the state does not load,
            # or a drain cancelled the scan): free the lease at once, or the
            # table would wait a whole lease for an owner that never serves it.
            # Cancelled (our drain), the others are told, to claim it at once;
            # not a state that does not load: each would fail it, and tell.
            await self.give_up(table_id, tell=isinstance(exc, asyncio.CancelledError))
            raise
        if table is None:
            await self.leases.release(table_id)
            return None
        if self.draining:
            # The drain began while we loaded it: it was not among the tables
            # the drain hands over, so hand it over now, unserved (nothing
            # changed since its last save). The others claim it at once.
            await self.give_up(table_id, tell=True)
            self.log.info("take_over_dropped_draining", table=table_id, epoch=epoch)
            return None
        table.epoch = epoch
        self.tables.serve(table)
        self._taken(table)
        version = table.core.state.version
        self.log.info("table_taken_over", table=table_id, epoch=epoch, version=version)
        return table

    async def take_released(self, table_id: str) -> None:
        """Another process released ``table_id`` (its drain): try to take it."""
        await asyncio.sleep(random.uniform(0, 0.05))  # spread the drained tables
        with contextlib.suppress(StoreError):
            await self.take(table_id)

    async def give_up(self, table_id: str, *, tell: bool) -> None:
        """Free a lease claimed (or perhaps claimed) for a table not served
        here; ``tell``: say so, and the others claim it at once (else the
        lapsed-lease scan finds it). A lease that is not ours is left alone
        (the release checks), and a ``Released`` for a table someone holds
        costs each listener one failed claim."""
        with contextlib.suppress(StoreError):
            await self.leases.release(table_id)
        if tell:
            self._announce(Released(table_id, self.proc))

    # -- the orphan scan ---------------------------------------------------------------

    async def restore(self, *, full: bool = True) -> int:
        """Serve open tables nobody owns: the tables taken.

        ``full`` (at start, then every ``FULL_SCAN_EVERY`` scans) looks at every
        open table, for those that have no lease at all: saved before leases
        existed, or whose lease vanished with Redis's data. Otherwise only the
        leases ``atout:leases`` says lapsed, a page at a time: what a dead or
        drained process left, without reading every open table (docs/CLUSTER.md,
        "The orphan scan")."""
        if full:
            open_ids = await self.store.open_tables()
            candidates = [t for t in open_ids if t not in self.tables]
            return await self._take_all(await self.leases.orphans(candidates))
        taken = skip = 0
        for _ in range(SCAN_PAGES):
            orphans, page = await self.leases.lapsed(SCAN_PAGE, skip)
            took = await self._take_all([t for t in orphans if t not in self.tables])
            taken += took
            if len(page) < SCAN_PAGE:
                break  # a short page was the last
            # The page's entries that stay lapsed in the set (our own tables,
            # which the renewal takes again; tables that did not load) come
            # first again: skip them. The others left it (claimed, held after
            # all, or closed).
            skip += len(orphans) - took
        return taken

    async def _take_all(self, orphans: list[str]) -> int:
        random.shuffle(orphans)  # processes scanning at once share the claims
        taken = 0
        for table_id in orphans:
            try:
                if await self.take(table_id) is not None:
                    taken += 1
            except StoreError:
                raise
            except Exception:
                # One table that does not load (its lease is released) must
                # not keep the others waiting.
                self.log.exception("take_over_failed", table=table_id)
        return taken

    # -- the renewer and the scanner ---------------------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks += [
            loop.create_task(self._renewing(), name="cluster-renew"),
            loop.create_task(self._scanning(), name="cluster-scan"),
        ]

    async def _renewing(self) -> None:
        every = self.settings.lease / 3
        while True:
            await asyncio.sleep(every)  # Redis's clock decides (module docstring)
            self._beat()
            try:
                await self.renew()
            except StoreError as exc:
                self.log.warning("lease_renewal_failed", error=str(exc))
            except Exception:
                self.log.exception("lease_renewal_error")

    async def renew(self) -> list[str]:
        """Renew every lease of ours; tables whose lease was lost step down."""
        async with self.renewing:
            owned = {
                t.id: t.epoch
                for t in self.tables.values()
                if t.epoch and not t.stale and t.id not in self._released
            }
            failed: RenewalFailed | None = None
            try:
                lost = await self.leases.renew(owned)
            except RenewalFailed as exc:
                lost, failed = exc.lost, exc
        for table_id in lost:
            table = self.tables.get(table_id)
            if table is not None and table.epoch == owned[table_id]:
                self.log.warning("lease_lost", table=table_id, epoch=table.epoch)
                table.step_down()
        if failed is not None:
            raise failed  # logged by the renewer; the next renewal tries again
        return lost

    async def _scanning(self) -> None:
        every = self.settings.lease / 2
        for scan in itertools.count(1):
            # Jitter: processes that scan at the same moment would race for
            # every orphan; spread out, each tends to take its share.
            await asyncio.sleep(every * random.uniform(0.75, 1.25))  # Redis's clock
            try:
                await self.restore(full=scan % FULL_SCAN_EVERY == 0)
            except StoreError as exc:
                self.log.warning("orphan_scan_failed", error=str(exc))
            except Exception:
                self.log.exception("orphan_scan_error")

    # -- stopping ----------------------------------------------------------------------

    async def drain(self) -> None:
        """Hand every table over to the other processes: stop, save and release
        each (all at once, each released right after its own save), renewing
        the leases not released yet."""
        # Take nothing more: no scan, no ``Released``, no takeover (``take``),
        # no creation (``claim_new``). A takeover that claimed before this
        # hands its table over as soon as it has loaded it (``_take``).
        self.draining = True
        for task in self.tasks:
            if task.get_name() == "cluster-scan":
                task.cancel()
        # From now on, commands and joins from elsewhere are answered
        # ``Moved``: their process holds them and sends them to the new owner.
        self.leaving.update(self.tables)
        await self.tables.stop(self._hand_over)
        # Takeovers under way (a join's or a resume's, a ``Released``'s, a
        # relocation's) hand their table over themselves once loaded
        # (``_take``): let them, for half a lease. Cancelled (``stop``), one
        # frees what it claimed all the same, but a claim cut short after
        # Redis ran it, or a join's takeover still running as the store
        # closes, could leave the table held by this exiting process.
        taking = list(self.taking.values())
        if taking:
            await asyncio.wait(taking, timeout=self.settings.lease / 2)

    async def _hand_over(self, table: Table) -> None:
        """``table`` is stopped and saved: let another process take it at once."""
        if table.epoch and not table.stale:
            with contextlib.suppress(StoreError):
                async with self.renewing:  # a renewal must not bring it back
                    self._released.add(table.id)
                    await self.leases.release(table.id)
                self._announce(Released(table.id, self.proc))
            table.step_down()

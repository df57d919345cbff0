"""This process in the service: it wires the cluster's parts by job.

A ``Node`` exists only with the Redis store. It is the ``Directory`` of the
process's ``Tables`` (server/lobby/directory.py, server/lobby/tables.py), and puts
together:

* ``Membership`` (membership.py): heartbeats in, "process gone" out;
* ``RedisDirectory`` (codes.py): invite codes and listings in Redis;
* ``Ownership`` (ownership.py): leases (lease.py), claims and takeovers,
  the renewer, the orphan scan, the drain;
* ``Relay`` (relay.py): connections on one process at tables served by
  another (remote.py), and relocation when a table changes hands;
* the ``Bus`` (bus.py), whose messages it hands to each.

A restarted process is a new process (a new id): the leases of the one that
died lapse before its tables are served again, here or elsewhere; unless
this process is a worker restarted by ``--workers``'s supervisor, which knows
its predecessor is dead (it reaped it) and says so (``reaped``): then this
process frees the dead one's leases when it joins, and its scan at start
claims their tables at once (docs/CLUSTER.md, "A reaped worker").
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import structlog

from server.cluster.bus import (
    PROBE,
    Away,
    Batch,
    Beat,
    Bus,
    Claimed,
    Do,
    Listed,
    Message,
    Reaped,
    Released,
    Sit,
    encode,
)
from server.cluster.codes import RedisDirectory
from server.cluster.lease import Leases
from server.cluster.membership import Membership
from server.cluster.ownership import Ownership
from server.cluster.relay import Relay
from server.cluster.remote import RemotePeer, RemoteTable
from server.table.actor import Table
from server.table.effects import Listing

if TYPE_CHECKING:
    from server.base.clock import Clock
    from server.base.config import Settings
    from server.link.conn import Conn
    from server.lobby.directory import Place
    from server.lobby.tables import Tables
    from server.store.redis import RedisStore

log = structlog.get_logger()


class Node:
    def __init__(
        self,
        store: RedisStore,
        settings: Settings,
        tables: Tables,
        clock: Clock,
        proc: str | None = None,
        reaped: tuple[str, ...] = (),
    ) -> None:
        self.proc = proc or secrets.token_hex(4)
        """This process's id in the service, drawn anew at each start (a
        restarted process is a new one); a worker's is drawn by its supervisor."""
        self.reaped = reaped
        """Ids of processes known to be dead, whose leases to free on joining:
        the supervisor's word on the workers it reaped, never a guess."""
        self.store = store
        self.keys = store.keys
        self.settings = settings
        self.tables = tables
        self.log = log.bind(proc=self.proc)
        self.bus: Bus | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.leases = Leases(store, self.proc, settings.lease, settings.table_expire)
        self.directory = RedisDirectory(store)
        self.membership = Membership(
            self.proc,
            settings.lease,
            clock,
            hearing=lambda: self.subscribed,
            gone=self._gone,
            alive=self._alive,
        )
        self.ownership = Ownership(
            self.proc,
            self.leases,
            store,
            settings,
            tables,
            announce=self._announce,
            taken=self._taken,
            beat=self._beat,
            log=self.log,
        )
        self.relay = Relay(
            self.proc,
            settings,
            tables,
            clock,
            publish=lambda proc, msg: self.publish(proc, msg),
            holder=self.leases.holder,
            take=self.ownership.take,
            leaving=self.ownership.leaving,
            spawn=self._spawn,
            log=self.log,
        )

    # -- the parts' state, for /healthz and the tests ----------------------------------

    @property
    def draining(self) -> bool:
        return self.ownership.draining

    @property
    def remotes(self) -> dict[str, RemoteTable]:
        return self.relay.remotes

    @property
    def peers(self) -> dict[tuple[str, str], RemotePeer]:
        return self.relay.peers

    @property
    def conns(self) -> dict[str, Conn]:
        return self.relay.conns

    @property
    def subscribed(self) -> bool:
        """Our bus subscriber is connected and subscribed: what the other
        processes send this one arrives (False while it reconnects)."""
        return self.bus is not None and self.bus.subscribed

    async def take(self, table_id: str) -> Table | None:
        return await self.ownership.take(table_id)

    async def renew(self) -> list[str]:
        return await self.ownership.renew()

    # -- the bus -----------------------------------------------------------------------

    async def open(self) -> None:
        """Join the service: subscribe, load every process's listings, and
        free the leases of the dead processes we were told of."""
        self.bus = await Bus.open(
            self.settings.redis_url,
            self.proc,
            self.keys,
            self.heard,
            self.unreached,
            self.resubscribed,
        )
        for msg in await self.directory.listings():
            if msg.owner != self.proc:
                self.relay.listed(msg)
        # Before the scan at start (``restore``), which then finds their
        # tables unleased and claims them.
        for dead in self.reaped:
            freed = await self.leases.free_dead(dead)
            self.log.info("reaped_leases_freed", dead=dead, leases=freed)

    def publish(self, proc: str, msg: Message) -> None:
        if self.bus is not None:
            self.bus.publish(self.keys.bus(proc), msg)

    def _announce(self, msg: Message) -> None:
        """Tell every process (the lobby channel)."""
        if self.bus is not None:
            self.bus.publish(self.keys.lobby, msg)

    def heard(self, msg: Message) -> None:
        """A message on our channel or the lobby channel (the bus's handler)."""
        match msg:
            case Batch(items=items):
                self.relay.deliver(items)
            case Do():
                self.relay.do(msg)
            case Sit():
                self.relay.sit(msg)
            case Away():
                self.relay.away(msg)
            case Listed():
                if msg.owner != self.proc:
                    self.relay.listed(msg)
            case Claimed(table=table_id, owner=owner, epoch=epoch):
                if owner != self.proc and self.relay.newer(table_id, owner, epoch):
                    self.relay.claimed_elsewhere(table_id, owner, epoch)
            case Released(table=table_id, owner=owner):
                if owner != self.proc and table_id not in self.tables and not self.draining:
                    self._spawn(self.ownership.take_released(table_id))
            case Reaped(proc=proc, by=by):
                if by != self.proc:
                    self.log.info("process_reaped", dead=proc, by=by)
                    self.membership.left(proc)
                    self._gone(proc)
                    self._count_online()
            case Beat(proc=proc, online=online, leaving=leaving):
                if proc != self.proc:
                    if leaving:
                        self.membership.left(proc)
                    else:
                        self.membership.beat(proc, online)
                    self._count_online()

    def resubscribed(self) -> None:
        """Our subscriber lost its connection and is back: what the owners sent
        meanwhile is lost. Sit our connections at their tables again (their
        seats catch up from their last ``seq``), as after an unreached publish."""
        self.log.warning("bus_resubscribed", remotes=len(self.relay.remotes))
        self.membership.resubscribed()
        self.relay.resit_at(None)

    def unreached(self, channel: bytes, probe: bool = False) -> None:
        """Nobody listened on ``channel``: that process is gone, or its subscriber
        was reconnecting. Its heartbeats tell which, within a lease. ``probe``:
        what went unheard was the missed-heartbeat check's empty ``Batch``."""
        self.membership.unreached(channel.rsplit(b":", 1)[-1].decode(), probe)

    def probe_silent(self) -> None:
        """A process we hold something of (its connections at our tables, ours
        at its tables) whose heartbeat we have not had for a lease (or ever:
        it may die before its first) may be dead: ask its channel. Nobody
        listening makes it a suspect (``unreached``). Without this, a table
        waiting for a player of a dead process, sending it nothing, would
        wait until the player came back."""
        for proc in self.membership.silent(self.relay.held_from()):
            self.publish(proc, PROBE)

    def _beat(self) -> None:
        """Every renewal (``lease / 3``): our heartbeat, and the others' checked."""
        self._announce(Beat(self.proc, self.tables.lobby.players_online))
        self._count_online()
        self.probe_silent()

    def _alive(self, proc: str, missed: bool) -> None:
        self.log.warning("bus_unreached_but_alive", to=proc)
        if missed:
            # What it missed from here is lost: sit our connections at its
            # tables again (their seats catch up from their last ``seq``).
            # A probe alone lost nothing.
            self.relay.resit_at(proc)

    def _gone(self, proc: str) -> None:
        self.relay.gone(proc)

    def _count_online(self) -> None:
        self.tables.lobby.others_online(self.membership.online_elsewhere())

    def _taken(self, table: Table) -> None:
        self._announce(Claimed(table.id, self.proc, table.epoch))
        self.relay.taken_over(table)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(self._tasks_done)

    def _tasks_done(self, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("cluster_task_failed", error=repr(task.exception()))

    # -- the Directory of the tables (server/lobby/directory.py) -------------------------------

    async def reserve_code(self, code: str, table_id: str) -> bool:
        return await self.directory.reserve_code(code, table_id)

    async def table_of_code(self, code: str) -> str | None:
        return await self.directory.table_of_code(code)

    async def claim_new(self, table_id: str) -> int:
        return await self.ownership.claim_new(table_id)

    def place(self, table_id: str) -> Place | None:
        return self.relay.place(table_id)

    async def restore(self, *, full: bool = True) -> int:
        return await self.ownership.restore(full=full)

    def routes(self, conn: object, here: bool, to_lobby: bool) -> bool:
        return self.relay.routes(conn, here, to_lobby)

    def unregister(self, conn: Conn) -> None:
        self.relay.unregister(conn)

    def stepped_down(self, table: Table) -> None:
        self.relay.stepped_down(table)

    def listed(self, table_id: str, listing: Listing, epoch: int) -> None:
        """A table of ours lists itself: every process's lobby shows it."""
        msg = Listed(
            table_id,
            self.proc,
            listing.summary,
            listing.private,
            listing.code,
            listing.closed,
            epoch,
        )
        if self.bus is None:
            return
        self.bus.publish(self.keys.lobby, msg)
        blob = b"" if listing.closed else encode(msg)
        self._spawn(self.directory.write_listing(table_id, blob))
        if listing.closed:
            self._spawn(self.directory.drop_code(listing.code, table_id))
            # Saved closed before it said so: nobody is to serve it again, so
            # a join by its id elsewhere finds no owner, then no table, at once.
            self._spawn(self.ownership.give_up(table_id, tell=False))

    async def find(self, table_id: str) -> Place | None:
        """Where ``table_id`` is served: here, by its owner elsewhere, or here
        after taking it over now if nobody owns it (None: no such table)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        holder = await self.leases.holder(table_id)
        if (holder is None or holder == self.proc) and not self.draining:
            table = await self.take(table_id)
            if table is not None or not self.draining:
                return table
            # The drain began during the takeover (ours, or the one we waited
            # on): the table was handed over unserved, not gone. Below.
        relay = self.relay
        if holder is None or holder == self.proc:
            # Draining: we claim nothing, so the join waits for the process
            # that takes the table (it is handed to it, or times out).
            moving = relay.remote(table_id, self.proc)
            relay.relocate(moving, self.proc)
            return moving
        relay.owner_of.setdefault(table_id, holder)
        remote = relay.remotes.get(table_id)
        if remote is not None:
            return remote
        return relay.remote(table_id, holder)

    # -- start and stop ------------------------------------------------------------------

    def start(self) -> None:
        """Renew and scan from now on; and tell the others of the dead
        processes we replace, once our scan at start claimed their tables
        (their ``Claimed`` go first: the others' connections at those tables
        follow them here rather than look for an owner)."""
        self.ownership.start()
        for dead in self.reaped:
            self._announce(Reaped(dead, self.proc))

    async def stop(self) -> None:
        """Stop renewing, scanning and judging (the tables are stopped by the lobby)."""
        self.membership.stop()
        tasks = self.ownership.tasks + self._tasks
        self.ownership.tasks, self._tasks = [], []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def drain(self) -> None:
        """Hand every table over to the other processes (``Ownership.drain``),
        then stop renewing, and say this process is leaving."""
        await self.ownership.drain()
        await self.stop()
        self._announce(Beat(self.proc, 0, leaving=True))

    async def close(self) -> None:
        if self.bus is not None:
            await self.bus.close()
            self.bus = None

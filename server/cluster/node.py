"""This process in the service: its id, its leases, the orphans it takes over.

A ``Node`` exists only with the Redis store. It

* claims each table this process creates (before its first save) or takes
  over (before loading it), and keeps the owner epoch on the table;
* renews the leases of all its tables (500 to a script run) every ``lease / 3`` and
  has those it lost step down at once (``Table.step_down``);
* scans for orphans every ``lease / 2``: open tables nobody holds a lease on
  (their owner died, or released them on drain) are claimed, loaded and
  served here; the claim is atomic, so exactly one process wins each. A scan
  reads only the leases that lapsed (``atout:leases``); one in
  ``FULL_SCAN_EVERY`` reads every open table, for those never leased;
* releases its tables' leases when the process stops, after their last save;
* carries the bus (server/cluster/bus.py): commands and joins for tables it
  owns arrive from other processes and are put on the tables' inboxes with a
  ``RemotePeer`` standing for the connection; updates for connections it holds
  at tables owned elsewhere (``RemoteTable``) arrive in ``Batch``es; listings,
  claims and heartbeats of every process keep one lobby.

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
import itertools
import random
import secrets
from typing import TYPE_CHECKING, Any, cast

import msgspec
import structlog

from protocol.codec import codec_for
from protocol.errors import ErrorCode
from protocol.messages import Command, bye
from server.cluster.bus import (
    PROBE,
    Answered,
    Away,
    Batch,
    Beat,
    Bus,
    Claimed,
    Do,
    Listed,
    Message,
    Moved,
    Out,
    Reaped,
    Reattach,
    Released,
    Routed,
    Shut,
    Sit,
    decode_listed,
    encode,
)
from server.cluster.lease import Leases, RenewalFailed
from server.cluster.remote import Outbox, RemotePeer, RemoteTable, Sitting, unavailable
from server.conn import CLOSE_RESTART
from server.directory import Unavailable
from server.store.asyncio_redis_fixes import Script
from server.store.base import StoreError
from server.table import Act, Gone, Join, Reclaim
from server.table.actor import Table
from server.table.effects import Listing

if TYPE_CHECKING:
    from server.clock import Clock
    from server.config import Settings
    from server.conn import Conn
    from server.directory import Place
    from server.store.redis import RedisStore
    from server.tables import Tables

log = structlog.get_logger()

SCAN_PAGE = 200
"""Lapsed leases looked at per request of the orphan scan."""
SCAN_PAGES = 50
"""Most pages per scan (10,000 orphans); the next scan goes on."""
FULL_SCAN_EVERY = 10
"""One scan in this many (and the one at start) reads every open table:
those with no lease at all are not in ``atout:leases``. It also prunes
``atout:open`` of expired tables."""

decode_command = msgspec.msgpack.Decoder(Command).decode

_RESERVE_CODE = Script("""
-- KEYS: the codes hash.  ARGV: code, table id.  1 if the code was free (now ours).
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
""")

_DROP_CODE = Script("""
-- KEYS: the codes hash.  ARGV: code, table id.  Only the table's own code.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
""")

_LIST = Script("""
-- KEYS: the listings hash.  ARGV: table id, listing ("" drops it)
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return 0
""")


class _Seq(msgspec.Struct):
    """Just the tag and sequence number of a table message (the rest is skipped)."""

    t: str = ""
    seq: int = -1


_seq_msgpack = msgspec.msgpack.Decoder(_Seq).decode
_seq_json = msgspec.json.Decoder(_Seq).decode


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
        self.clock = clock
        self.leases = Leases(store, self.proc, settings.lease, settings.table_expire)
        self._taking: dict[str, asyncio.Future[Table | None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.log = log.bind(proc=self.proc)
        self.bus: Bus | None = None
        self.outbox = Outbox(lambda origin, batch: self.publish(origin, batch))
        self.peers: dict[tuple[str, str], RemotePeer] = {}
        """Connections held elsewhere at tables owned here, by (origin, conn id)."""
        self.remotes: dict[str, RemoteTable] = {}
        """Tables owned elsewhere that connections held here sit at."""
        self.conns: dict[str, Conn] = {}
        """Connections held here at tables owned elsewhere, by id."""
        self.owner_of: dict[str, str] = {}
        """Each listed table's owner, as the lobby channel tells."""
        self.epoch_of: dict[str, int] = {}
        """The highest owner epoch heard of each table: an older owner's word is
        stale (messages of different processes have no order between them)."""
        self.online_of: dict[str, tuple[int, float]] = {}
        self.answer_within = settings.lease * 2 + 3.0
        """How long a join waits for the owner's answer (a takeover included)."""
        self._relocating: set[str] = set()
        self._suspects: set[str] = set()
        """Processes a publish reached nobody at, until their heartbeat tells."""
        self._missed: set[str] = set()
        """Suspects a real message (not just a heartbeat probe) missed: if
        alive after all, our connections at their tables sit again."""
        self._resubscribed_at = -float("inf")
        """When (``clock`` time) our subscriber last came back: the heartbeats
        sent to us before then may be lost, so nobody is judged by them."""
        self._leaving: set[str] = set()
        """Tables being handed over (drain): what comes for them is answered ``Moved``."""
        self._released: set[str] = set()
        self._renewing_lock = asyncio.Lock()
        self.draining = False
        """SIGTERM: the tables go to the other processes, and this one claims
        nothing new (no scan, ``Released`` ignored, no takeover, no creation)."""

    # -- the bus -----------------------------------------------------------------------

    async def open(self) -> None:
        """Join the service: subscribe, load every process's listings, and
        free the leases of the dead processes we were told of."""
        self.bus = await Bus.open(
            self.settings.redis_url,
            self.proc,
            self.keys,
            self._on_message,
            self._on_unreached,
            self._on_resubscribed,
        )
        async with self.store.request("listings"):
            listed = await self.store.pool.hgetall(self.keys.listings)
        open_ids = set(await self.store.open_tables())
        for blob in listed.values():
            try:
                msg = decode_listed(blob)
            except msgspec.DecodeError:
                continue
            if msg.table in open_ids and msg.owner != self.proc:
                self._listed(msg)
        # Before the scan at start (``restore``), which then finds their
        # tables unleased and claims them.
        for dead in self.reaped:
            freed = await self.leases.free_dead(dead)
            self.log.info("reaped_leases_freed", dead=dead, leases=freed)

    @property
    def subscribed(self) -> bool:
        """Our bus subscriber is connected and subscribed: what the other
        processes send this one arrives (False while it reconnects)."""
        return self.bus is not None and self.bus.subscribed

    def publish(self, proc: str, msg: Message) -> None:
        if self.bus is not None:
            self.bus.publish(self.keys.bus(proc), msg)

    def register(self, conn: Conn) -> None:
        self.conns[conn.id] = conn

    def unregister(self, conn: Conn) -> None:
        if self.conns.get(conn.id) is conn:
            del self.conns[conn.id]

    def _on_message(self, msg: Message) -> None:
        match msg:
            case Batch(items=items):
                self._deliver(items)
            case Do():
                self._do(msg)
            case Sit():
                self._sit(msg)
            case Away():
                self._away(msg)
            case Listed():
                if msg.owner != self.proc:
                    self._listed(msg)
            case Claimed(table=table_id, owner=owner, epoch=epoch):
                if owner != self.proc and self._newer(table_id, owner, epoch):
                    self._claimed_elsewhere(table_id, owner, epoch)
            case Released(table=table_id, owner=owner):
                if owner != self.proc and table_id not in self.tables and not self.draining:
                    self._spawn(self._take_released(table_id))
            case Reaped(proc=proc, by=by):
                if by != self.proc:
                    self.log.info("process_reaped", dead=proc, by=by)
                    self._gone(proc)
                    self._count_online()
            case Beat(proc=proc, online=online, leaving=leaving):
                if proc != self.proc:
                    if leaving:
                        self.online_of.pop(proc, None)
                    else:
                        self.online_of[proc] = (online, self.clock.time())
                    self._count_online()

    def _on_resubscribed(self) -> None:
        """Our subscriber lost its connection and is back: what the owners sent
        meanwhile is lost. Sit our connections at their tables again (their
        seats catch up from their last ``seq``), as after an unreached publish."""
        self.log.warning("bus_resubscribed", remotes=len(self.remotes))
        self._resubscribed_at = self.clock.time()
        for remote in list(self.remotes.values()):
            self._resit(remote, list(remote.sitting), b"")

    def _on_unreached(self, channel: bytes, probe: bool = False) -> None:
        """Nobody listened on ``channel``: that process is gone, or its subscriber
        was reconnecting. Its heartbeats tell which, within a lease. ``probe``:
        what went unheard was the missed-heartbeat check's empty ``Batch``."""
        proc = channel.rsplit(b":", 1)[-1].decode()
        if not probe:
            self._missed.add(proc)
        if proc in self._suspects:
            return
        self._suspects.add(proc)
        self._spawn(self._alive_or_gone(proc, self.clock.time()))

    def _hearing_since(self, since: float) -> bool:
        """Our subscriber has been subscribed from ``since`` until now: every
        heartbeat sent to us meanwhile arrived (none lost to a reconnect)."""
        return self.subscribed and self._resubscribed_at <= since

    async def _alive_or_gone(self, proc: str, since: float) -> None:
        try:
            while True:
                # A live process beats every lease / 3; a dead one's tables are
                # not claimable before its leases lapse anyway (``lease``).
                await self.clock.sleep(self.settings.lease)
                beat = self.online_of.get(proc)
                if beat is not None and beat[1] > since:
                    self.log.warning("bus_unreached_but_alive", to=proc)
                    if proc in self._missed:
                        # What it missed from here is lost: sit our connections
                        # at its tables again (their seats catch up from their
                        # last ``seq``). A probe alone lost nothing.
                        for remote in list(self.remotes.values()):
                            if remote.owner == proc:
                                self._resit(remote, list(remote.sitting), b"")
                    return
                if self._hearing_since(since):
                    break
                # Our own subscriber was away meanwhile (a Redis restart or
                # failover: its beats may be what we lost): no verdict; listen
                # a lease more.
                since = self.clock.time()
            self._gone(proc)
        finally:
            self._suspects.discard(proc)
            self._missed.discard(proc)

    def _missed_beats(self) -> None:
        """A process we hold something of (its connections at our tables, ours
        at its tables) whose heartbeat we have not had for a lease (or ever:
        it may die before its first) may be dead: ask its channel. Nobody
        listening makes it a suspect (``_on_unreached``): gone if no
        heartbeat comes a lease more. Without this, a table waiting for a
        player of a dead process, sending it nothing, would wait until the
        player came back. Not while our own subscriber is away or was back
        less than a lease ago: the heartbeats missing may be the ones it lost."""
        now = self.clock.time()
        if not self._hearing_since(now - self.settings.lease):
            return
        held = {peer.origin for peer in self.peers.values()}
        held.update(r.owner for r in self.remotes.values() if r.owner is not None)
        held -= self._suspects
        held.discard(self.proc)
        for proc in held:
            beat = self.online_of.get(proc)
            if beat is None or now - beat[1] > self.settings.lease:
                self.publish(proc, PROBE)

    def _gone(self, proc: str) -> None:
        """No process ``proc`` any more: forget its connections, find its tables' new owners."""
        self.online_of.pop(proc, None)
        conns = tables = 0
        # Its connections at our tables dropped with it.
        for key, peer in list(self.peers.items()):
            if peer.origin == proc:
                del self.peers[key]
                conns += 1
                table = self.tables.get(peer.table)
                if table is not None:
                    table.inbox.put_nowait(Gone(peer))
        # Its tables: wait for their new owner.
        for remote in list(self.remotes.values()):
            if remote.owner == proc:
                tables += 1
                self.relocate(remote, proc)
        self.log.warning("process_gone", gone=proc, conns=conns, tables=tables)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(self._tasks_done)

    def _tasks_done(self, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("cluster_task_failed", error=repr(task.exception()))

    # -- the owner's side: connections held elsewhere ------------------------------------

    def _sit(self, msg: Sit) -> None:
        table = self.tables.get(msg.table)
        if table is None or table.stale or table.id in self._leaving:
            self.outbox.add(msg.origin, Moved(msg.table, self.proc))
            return
        key = (msg.origin, msg.conn)
        peer = self.peers.get(key)
        if peer is None or peer.table != msg.table:
            codec = codec_for(msg.subprotocol, Command)
            peer = RemotePeer(msg.origin, msg.conn, msg.name, codec, msg.table, self.outbox)
            self.peers[key] = peer
        peer.name = msg.name
        ask: Join | Reclaim
        if msg.reclaim:
            ask = Reclaim(peer, msg.token, msg.last_seq, msg.rid)
        else:
            ask = Join(
                peer,
                msg.seat,
                msg.rid,
                spectator=msg.spectator,
                creator=msg.creator,
                quiet=msg.quiet,
                token=msg.token,
                player=msg.player,
            )
        done: asyncio.Future[ErrorCode | None] = asyncio.get_running_loop().create_future()
        ask.done = done

        def answer(f: asyncio.Future[ErrorCode | None]) -> None:
            if table.task is not None:
                table.task.remove_done_callback(ended)
            if f.cancelled():
                # The table stopped first (stepped down, drained): the origin
                # asks the new owner (it keeps the ask until answered).
                self.outbox.add(msg.origin, Moved(msg.table, self.proc))
                return
            error = f.result()
            if error is not None and self.peers.get(key) is peer:
                del self.peers[key]
            self.outbox.add(msg.origin, Answered(msg.conn, msg.table, error))

        def ended(_: object) -> None:
            done.cancel()

        done.add_done_callback(answer)
        if table.task is not None:
            table.task.add_done_callback(ended)
        table.inbox.put_nowait(ask)

    def _do(self, msg: Do) -> None:
        table = self.tables.get(msg.table)
        if table is None or table.stale or table.id in self._leaving:
            self.outbox.add(msg.origin, Moved(msg.table, self.proc, msg.conn, msg.command))
            return
        peer = self.peers.get((msg.origin, msg.conn))
        if peer is None or peer.table != msg.table:
            # Its Sit never came, or we took the table over since: the origin
            # sits it again, then sends the command again.
            self.outbox.add(msg.origin, Reattach(msg.table, msg.conn, msg.command))
            return
        try:
            command = decode_command(msg.command)
        except msgspec.DecodeError:
            return  # decoded once already by the front that received it
        table.inbox.put_nowait(Act(peer, command))

    def _away(self, msg: Away) -> None:
        peer = self.peers.pop((msg.origin, msg.conn), None)
        table = self.tables.get(msg.table)
        if peer is not None and table is not None:
            table.inbox.put_nowait(Gone(peer))

    def routes(self, conn: object, here: bool, to_lobby: bool) -> bool:
        """The lobby's ``route`` for a connection held elsewhere: tell its process."""
        if not isinstance(conn, RemotePeer):
            return False
        conn.route(here, to_lobby)
        if not here and self.peers.get((conn.origin, conn.conn)) is conn:
            del self.peers[(conn.origin, conn.conn)]
        return True

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
        self._spawn(self._write_listing(table_id, blob))
        if listing.closed:
            self._spawn(self._drop_code(listing.code, table_id))
            # Saved closed before it said so: nobody is to serve it again, so
            # a join by its id elsewhere finds no owner, then no table, at once.
            self._spawn(self._give_up(table_id, tell=False))

    async def reserve_code(self, code: str, table_id: str) -> bool:
        """Make ``code`` the invite code of ``table_id`` in every process; False
        if another table has it (``StoreError`` if Redis does not answer)."""
        async with self.store.request("reserve_code"):
            taken = await _RESERVE_CODE.run(
                self.store.pool, [self.keys.codes], [code.encode(), table_id.encode()]
            )
        return taken == 1

    async def table_of_code(self, code: str) -> str | None:
        """The table an invite code opens, as Redis holds it (StoreError if down)."""
        async with self.store.request("code"):
            (found,) = await self.store.pool.hmget(self.keys.codes, [code.encode()])
        return found.decode() if found is not None else None

    async def _drop_code(self, code: str, table_id: str) -> None:
        with contextlib.suppress(StoreError):
            async with self.store.request("drop_code"):
                await _DROP_CODE.run(
                    self.store.pool, [self.keys.codes], [code.encode(), table_id.encode()]
                )

    async def _write_listing(self, table_id: str, blob: bytes) -> None:
        with contextlib.suppress(StoreError):
            async with self.store.request("listing"):
                await _LIST.run(self.store.pool, [self.keys.listings], [table_id.encode(), blob])

    # -- the origin's side: connections held here at tables owned elsewhere ---------------

    def _deliver(self, items: list[Any]) -> None:
        at = self.tables.at
        for item in items:
            match item:
                case Out(conn=conn_id, data=data, text=text):
                    conn = self.conns.get(conn_id)
                    if conn is None:
                        continue
                    frame: bytes | str = data.decode() if text else data
                    conn.send_raw(frame)
                    place = at.get(conn)
                    if isinstance(place, RemoteTable):
                        sitting = place.sitting.get(conn)
                        if sitting is not None:
                            sitting.recent.append(frame)
                            sitting.unanswered = None
                case Routed(conn=conn_id, table=table_id, here=here, to_lobby=to_lobby):
                    conn = self.conns.get(conn_id)
                    remote = self.remotes.get(table_id)
                    if conn is None or remote is None:
                        continue
                    if not here:
                        remote.sitting.pop(conn, None)
                    self.tables.route(conn, remote, here, to_lobby)
                    if not here:
                        self.forget(conn, remote)
                case Shut(conn=conn_id, code=code, reason=reason):
                    conn = self.conns.get(conn_id)
                    if conn is not None:
                        conn.close(code, reason)
                case Answered(conn=conn_id, table=table_id, error=error):
                    conn = self.conns.get(conn_id)
                    remote = self.remotes.get(table_id)
                    if conn is not None and remote is not None:
                        remote.answered(conn, error)
                        if error is not None:
                            self.forget(conn, remote)
                case Reattach(table=table_id, conn=conn_id, command=command):
                    conn = self.conns.get(conn_id)
                    remote = self.remotes.get(table_id)
                    if conn is not None and remote is not None:
                        self._resit(remote, [conn], command)
                case Moved(table=table_id, by=by, conn=conn_id, command=command):
                    remote = self.remotes.get(table_id)
                    # Said by the owner we know (a later one was heard of already).
                    if remote is not None and remote.owner is not None and by == remote.owner:
                        self.relocate(remote, remote.owner)
                    conn = self.conns.get(conn_id)
                    place = remote or self.tables.get(table_id)  # taken over here
                    if conn is not None and place is not None and command:
                        # Held until the new owner is found, then sent there.
                        with contextlib.suppress(msgspec.DecodeError):
                            place.inbox.put_nowait(Act(conn, decode_command(command)))

    def forget(self, conn: Conn | None, remote: RemoteTable) -> None:
        """``conn`` left ``remote`` (or never sat there): drop what this process
        kept for it, and the table too once nobody here is at it or joining."""
        if (
            conn is not None
            and not isinstance(self.tables.table_of(conn), RemoteTable)
            and not any(conn in r.pending for r in self.remotes.values())
        ):
            self.unregister(conn)
        if (
            not remote.sitting
            and not remote.pending
            and not remote.held
            and remote.owner is not None
            and self.remotes.get(remote.id) is remote
            and remote.id not in self._relocating
        ):
            del self.remotes[remote.id]

    def remote(self, table_id: str, owner: str) -> RemoteTable:
        remote = self.remotes.get(table_id)
        if remote is None:
            remote = self.remotes[table_id] = RemoteTable(table_id, owner, self)
        return remote

    def place(self, table_id: str) -> Place | None:
        """Where ``table_id``'s messages go from here, as far as this process knows."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        owner = self.owner_of.get(table_id)
        if owner is None or owner == self.proc:
            return self.remotes.get(table_id)
        return self.remote(table_id, owner)

    def _newer(self, table_id: str, owner: str, epoch: int) -> bool:
        """``owner`` at ``epoch`` is ``table_id``'s latest owner heard of (each
        claim raises the epoch: a lower one, or the same one from another
        process, is an older owner's word)."""
        known = self.epoch_of.get(table_id, 0)
        known_owner = self.owner_of.get(table_id)
        table = self.tables.get(table_id)
        if table is not None and not table.stale and table.epoch >= known:
            known, known_owner = table.epoch, self.proc
        if epoch and (epoch < known or (epoch == known and known_owner not in (None, owner))):
            # 0: a process that does not say (older code): taken as it comes.
            self.log.info("stale_owner_ignored", table=table_id, owner=owner, epoch=epoch)
            return False
        self.epoch_of[table_id] = max(epoch, known)
        return True

    def _listed(self, msg: Listed) -> None:
        if not self._newer(msg.table, msg.owner, msg.epoch):
            return
        if msg.closed:
            self.owner_of.pop(msg.table, None)
            self.epoch_of.pop(msg.table, None)
            remote = self.remotes.get(msg.table)
            if remote is not None:
                self.forget(None, remote)
            self.tables.listed_elsewhere(msg.table, None)
            return
        known = self.owner_of.get(msg.table)
        self.owner_of[msg.table] = msg.owner
        if msg.table in self.tables:
            return  # ours (a Claimed tells us when it is not any more)
        self.tables.listed_elsewhere(
            msg.table, Listing(msg.summary, msg.private, msg.code, msg.closed)
        )
        if known is not None and known != msg.owner:
            self._claimed_elsewhere(msg.table, msg.owner, msg.epoch)

    def _claimed_elsewhere(self, table_id: str, owner: str, epoch: int) -> None:
        self.owner_of[table_id] = owner
        table = self.tables.get(table_id)
        if table is not None and not table.stale and epoch > table.epoch:
            # Another process claimed it after us (the claim raised the
            # epoch in Redis): we are stale.
            self.log.warning("claimed_elsewhere", table=table_id, owner=owner, epoch=epoch)
            table.step_down()
        remote = self.remotes.get(table_id)
        if remote is not None and remote.owner != owner:
            self._move(remote, owner)

    def relocate(self, remote: RemoteTable, gone: str) -> None:
        """``remote``'s owner ``gone`` does not serve it: hold its messages and
        find the new owner (a takeover, here or elsewhere)."""
        if remote.owner == gone:
            remote.owner = None
        if remote.id in self._relocating:
            return
        self._relocating.add(remote.id)
        self._spawn(self._relocate(remote, gone))

    async def _relocate(self, remote: RemoteTable, gone: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.lease * 2 + 2.0
        try:
            while loop.time() < deadline and self.remotes.get(remote.id) is remote:
                if remote.owner is not None:
                    return  # a Claimed moved it meanwhile
                try:
                    holder = await self.leases.holder(remote.id)
                    if holder is None or holder == self.proc:
                        table = await self.take(remote.id)
                        if table is not None:
                            return  # ``take`` moved it here
                    elif holder != gone:
                        self._move(remote, holder)
                        return
                except StoreError:
                    pass
                await asyncio.sleep(0.1)
            if self.remotes.get(remote.id) is remote and remote.owner is None:
                self._lost(remote)
        finally:
            self._relocating.discard(remote.id)

    def _lost(self, remote: RemoteTable) -> None:
        """No owner came: its connections go back to reconnect and resume later."""
        del self.remotes[remote.id]
        sitting, pending, held = remote.take_over()
        remote.closed = True
        for msg in [*pending, *held]:
            if isinstance(msg, Join | Reclaim):
                unavailable(msg, "the table's server did not answer; try again")
        for conn in [*sitting, *(cast("Conn", m.peer) for m in pending)]:
            conn.send(bye("restarting", "your table is moving; reconnecting"))
            conn.close(CLOSE_RESTART, "table moving")

    def _move(self, remote: RemoteTable, target: str | Table) -> None:
        """Hand ``remote``'s connections, pending joins and held messages to the
        table's new owner (another process, or the ``Table`` now served here)."""
        sitting, pending, held = remote.take_over()
        place: Place
        if isinstance(target, Table):
            if self.remotes.get(remote.id) is remote:
                del self.remotes[remote.id]
            remote.forward = target
            place = target
            for conn in [*sitting, *(cast("Conn", m.peer) for m in pending)]:
                self.unregister(conn)  # held here, at a table served here
        else:
            remote.owner = target
            place = remote
        # The re-attaches first, then what waited: a command held meanwhile
        # must find its connection seated at the new owner.
        for conn, how in sitting.items():
            self._reattach(conn, how, place)
            if how.unanswered is not None:
                place.inbox.put_nowait(Act(conn, how.unanswered))
        for msg in pending:
            place.inbox.put_nowait(msg)
        for item in held:
            place.inbox.put_nowait(item)
        self.log.info("table_moved", table=remote.id, conns=len(sitting), to=remote.owner)

    def _reattach(self, conn: Conn, how: Sitting, place: Place) -> None:
        """Sit ``conn`` at ``place`` again as it sat (its seat's token, or watching)."""
        ask: Join | Reclaim
        if how.token is None:
            ask = Join(conn, None, 0, spectator=True)
        else:
            ask = Reclaim(conn, how.token, _last_seq(how), 0)
        ask.done = asyncio.get_running_loop().create_future()
        place.inbox.put_nowait(ask)
        self._spawn(self._reattached(conn, ask))

    def _resit(self, remote: RemoteTable, conns: list[Conn], command: bytes) -> None:
        """The owner lost track of ``conns`` (still ours, seated with a token):
        sit them again, then send ``command`` (of the first) again. A
        connection already re-sitting, or watching, is left as it is."""
        for i, conn in enumerate(conns):
            how = remote.sitting.get(conn)
            if how is None or how.token is None or remote.owner is None:
                continue
            del remote.sitting[conn]
            self._reattach(conn, how, remote)
            if i == 0 and command:
                with contextlib.suppress(msgspec.DecodeError):
                    remote.inbox.put_nowait(Act(conn, decode_command(command)))

    async def _reattached(self, conn: Conn, ask: Join | Reclaim) -> None:
        assert ask.done is not None
        try:
            async with asyncio.timeout(self.answer_within):
                error = await asyncio.shield(ask.done)
        except TimeoutError:
            unavailable(ask, "your table's new server did not answer; join it again")
            error = "unavailable"
        if error is not None:
            # Refused (the seat went to a bot meanwhile): back to the lobby.
            self.tables.unroute(conn, RemoteTable)
            self.tables.lobby.enter(conn)

    async def _take_released(self, table_id: str) -> None:
        await asyncio.sleep(random.uniform(0, 0.05))  # spread the drained tables
        with contextlib.suppress(StoreError):
            await self.take(table_id)

    def _count_online(self) -> None:
        now = self.clock.time()
        fresh = [n for n, at in self.online_of.values() if now - at < self.settings.lease * 2]
        self.tables.lobby.others_online(sum(fresh))

    def stepped_down(self, table: Table) -> None:
        """A table of ours went to another owner: forget who sat there from elsewhere,
        and tell their processes to find the new owner and re-attach them."""
        origins = set()
        for key, peer in list(self.peers.items()):
            if peer.table == table.id:
                del self.peers[key]
                origins.add(peer.origin)
        for origin in origins:
            self.outbox.add(origin, Moved(table.id, self.proc))

    # -- owning tables --------------------------------------------------------------

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
        try:
            epoch = await self.leases.claim(table_id)
        except asyncio.CancelledError:
            # Cancelled (a drain that could not wait for it) perhaps after
            # Redis ran the claim: the lease may be ours, for a whole lease.
            await self._give_up(table_id, tell=True)
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
            await self._give_up(table_id, tell=isinstance(exc, asyncio.CancelledError))
            raise
        if table is None:
            await self.leases.release(table_id)
            return None
        if self.draining:
            # The drain began while we loaded it: it was not among the tables
            # the drain hands over, so hand it over now, unserved (nothing
            # changed since its last save). The others claim it at once.
            await self._give_up(table_id, tell=True)
            self.log.info("take_over_dropped_draining", table=table_id, epoch=epoch)
            return None
        table.epoch = epoch
        self.tables.serve(table)
        self.owner_of[table_id] = self.proc
        if self.bus is not None:
            self.bus.publish(self.keys.lobby, Claimed(table_id, self.proc, epoch))
        remote = self.remotes.get(table_id)
        if remote is not None:
            self._move(remote, table)
        version = table.core.state.version
        self.log.info("table_taken_over", table=table_id, epoch=epoch, version=version)
        return table

    async def _give_up(self, table_id: str, *, tell: bool) -> None:
        """Free a lease claimed (or perhaps claimed) for a table not served
        here; ``tell``: say so, and the others claim it at once (else the
        lapsed-lease scan finds it). A lease that is not ours is left alone
        (the release checks), and a ``Released`` for a table someone holds
        costs each listener one failed claim."""
        with contextlib.suppress(StoreError):
            await self.leases.release(table_id)
        if tell and self.bus is not None:
            self.bus.publish(self.keys.lobby, Released(table_id, self.proc))

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
        if holder is None or holder == self.proc:
            # Draining: we claim nothing, so the join waits for the process
            # that takes the table (it is handed to it, or times out).
            moving = self.remote(table_id, self.proc)
            self.relocate(moving, self.proc)
            return moving
        self.owner_of.setdefault(table_id, holder)
        remote = self.remotes.get(table_id)
        if remote is not None:
            return remote
        return self.remote(table_id, holder)

    # -- the lease renewer and the orphan scanner --------------------------------------

    def start(self) -> None:
        """Renew and scan from now on; and tell the others of the dead
        processes we replace, once our scan at start claimed their tables
        (their ``Claimed`` go first: the others' connections at those tables
        follow them here rather than look for an owner)."""
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._renewing(), name="cluster-renew"),
            loop.create_task(self._scanning(), name="cluster-scan"),
        ]
        if self.bus is not None:
            for dead in self.reaped:
                self.bus.publish(self.keys.lobby, Reaped(dead, self.proc))

    async def _renewing(self) -> None:
        # Real time, not ``self.clock``: a lease lapses by Redis's clock, which
        # no test can hold back, so renewals (and the scans below, which find
        # lapsed leases) keep pace with it whatever clock the tables run on.
        every = self.settings.lease / 3
        while True:
            await asyncio.sleep(every)
            if self.bus is not None:
                self.bus.publish(self.keys.lobby, Beat(self.proc, self.tables.lobby.players_online))
                self._count_online()
                self._missed_beats()
            try:
                await self.renew()
            except StoreError as exc:
                self.log.warning("lease_renewal_failed", error=str(exc))
            except Exception:
                self.log.exception("lease_renewal_error")

    async def renew(self) -> list[str]:
        """Renew every lease of ours; tables whose lease was lost step down."""
        async with self._renewing_lock:
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
            await asyncio.sleep(every * random.uniform(0.75, 1.25))
            try:
                await self.restore(full=scan % FULL_SCAN_EVERY == 0)
            except StoreError as exc:
                self.log.warning("orphan_scan_failed", error=str(exc))
            except Exception:
                self.log.exception("orphan_scan_error")

    async def stop(self) -> None:
        """Stop renewing and scanning (the tables are stopped by the lobby)."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def drain(self) -> None:
        """Hand every table over to the other processes: stop, save and release
        each (all at once, each released right after its own save), renewing
        the leases not released yet; then stop renewing."""
        # Take nothing more: no scan, no ``Released``, no takeover (``take``),
        # no creation (``claim_new``). A takeover that claimed before this
        # hands its table over as soon as it has loaded it (``_take``).
        self.draining = True
        for task in self._tasks:
            if task.get_name() == "cluster-scan":
                task.cancel()
        # From now on, commands and joins from elsewhere are answered
        # ``Moved``: their process holds them and sends them to the new owner.
        self._leaving.update(self.tables)
        await self.tables.stop(self._hand_over)
        # Takeovers under way (a join's or a resume's, a ``Released``'s, a
        # relocation's) hand their table over themselves once loaded
        # (``_take``): let them, for half a lease. Cancelled (``stop``), one
        # frees what it claimed all the same, but a claim cut short after
        # Redis ran it, or a join's takeover still running as the store
        # closes, could leave the table held by this exiting process.
        taking = list(self._taking.values())
        if taking:
            await asyncio.wait(taking, timeout=self.settings.lease / 2)
        await self.stop()
        if self.bus is not None:
            self.bus.publish(self.keys.lobby, Beat(self.proc, 0, leaving=True))

    async def _hand_over(self, table: Table) -> None:
        """``table`` is stopped and saved: let another process take it at once."""
        if table.epoch and not table.stale:
            with contextlib.suppress(StoreError):
                async with self._renewing_lock:  # a renewal must not bring it back
                    self._released.add(table.id)
                    await self.leases.release(table.id)
                if self.bus is not None:
                    self.bus.publish(self.keys.lobby, Released(table.id, self.proc))
            table.step_down()

    async def close(self) -> None:
        if self.bus is not None:
            await self.bus.close()
            self.bus = None


def _last_seq(how: Sitting) -> int:
    """The ``seq`` of the last table message ``conn`` was sent, or -1."""
    for frame in reversed(how.recent):
        try:
            found = _seq_json(frame) if isinstance(frame, str) else _seq_msgpack(frame)
        except (msgspec.DecodeError, ValueError):
            continue
        if found.t in ("table", "tpatch"):
            return found.seq
    return -1

"""The relay: connections on one process at tables served by another.

The owner's side: a ``Sit``, ``Do`` or ``Away`` from another process (the
connection's "origin") is put on the table's inbox, with a ``RemotePeer``
standing for the connection (server/cluster/remote.py); what the table
sends it goes back in ``Batch``es (``Outbox``).

The origin's side: the ``RemoteTable``s that connections held here sit at,
each table's owner as the lobby channel tells (``Listed``, ``Claimed``,
with owner epochs: an older owner's word is stale), the updates that
arrive for those connections (``deliver``), and relocation: when a table's
owner is gone or hands it over, its connections, pending joins and held
commands are moved to the new owner (here or elsewhere) and re-attached
with their tokens, or sent back to reconnect if no owner comes within two
leases. Relocation runs on the injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

import msgspec
import structlog

from protocol.codec import codec_for
from protocol.errors import ErrorCode
from protocol.messages import Command, bye
from server.cluster.bus import (
    Answered,
    Away,
    Do,
    Listed,
    Message,
    Moved,
    Out,
    Reattach,
    Routed,
    Shut,
    Sit,
)
from server.cluster.remote import Outbox, RemotePeer, RemoteTable, Sitting, unavailable
from server.link.conn import CLOSE_RESTART
from server.store.base import StoreError
from server.table import Act, Gone, Join, Reclaim
from server.table.actor import Table
from server.table.effects import Listing

if TYPE_CHECKING:
    from server.base.clock import Clock
    from server.base.config import Settings
    from server.link.conn import Conn
    from server.lobby.directory import Place
    from server.lobby.tables import Tables

RELOCATE_POLL = 0.1
"""Seconds between two looks for a moving table's new owner."""

decode_command = msgspec.msgpack.Decoder(Command).decode


class _Seq(msgspec.Struct):
    """Just the tag and sequence number of a table message (the rest is skipped)."""

    t: str = ""
    seq: int = -1


_seq_msgpack = msgspec.msgpack.Decoder(_Seq).decode
_seq_json = msgspec.json.Decoder(_Seq).decode
# Protocol version 2 sends a table patch as an array, [seq, op, ...]: its
# first element is the seq (docs/PROTOCOL.md §13.3).
# (Read untyped: this runs only when a table moves.)
_first_msgpack = msgspec.msgpack.Decoder(list[Any]).decode
_first_json = msgspec.json.Decoder(list[Any]).decode


class Relay:
    def __init__(
        self,
        proc: str,
        settings: Settings,
        tables: Tables,
        clock: Clock,
        *,
        publish: Callable[[str, Message], None],
        holder: Callable[[str], Awaitable[str | None]],
        take: Callable[[str], Awaitable[Table | None]],
        leaving: set[str],
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        log: structlog.typing.FilteringBoundLogger,
    ) -> None:
        self.proc = proc
        self.settings = settings
        self.tables = tables
        self.clock = clock
        self.publish = publish
        """Send ``msg`` to process ``proc``'s channel."""
        self.holder = holder
        """Who holds a table's lease now (Redis)."""
        self.take = take
        """Take a table nobody holds over, here."""
        self.leaving = leaving
        """Tables being handed over (drain): what comes for them is answered ``Moved``."""
        self.spawn = spawn
        self.log = log
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
        self.answer_within = settings.lease * 2 + 3.0
        """How long a join waits for the owner's answer (a takeover included).
        Real time: a takeover waits for a lease to lapse by Redis's clock."""
        self._relocating: set[str] = set()

    # -- what the membership and the owners tell --------------------------------------

    def held_from(self) -> set[str]:
        """The processes we hold something of: their connections at our
        tables, our connections at their tables."""
        held = {peer.origin for peer in self.peers.values()}
        held.update(r.owner for r in self.remotes.values() if r.owner is not None)
        return held

    def gone(self, proc: str) -> None:
        """No process ``proc`` any more: forget its connections, find its tables' new owners."""
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

    def resit_at(self, proc: str | None = None) -> None:
        """What the owner ``proc`` (None: every owner) sent us, or we sent it,
        may be lost: sit our connections at its tables again (their seats
        catch up from their last ``seq``)."""
        for remote in list(self.remotes.values()):
            if proc is None or remote.owner == proc:
                self._resit(remote, list(remote.sitting), b"")

    def taken_over(self, table: Table) -> None:
        """``table`` is served here now: connections here that sat at it elsewhere follow."""
        self.owner_of[table.id] = self.proc
        remote = self.remotes.get(table.id)
        if remote is not None:
            self.move(remote, table)

    def register(self, conn: Conn) -> None:
        self.conns[conn.id] = conn

    def unregister(self, conn: Conn) -> None:
        if self.conns.get(conn.id) is conn:
            del self.conns[conn.id]

    def sit(self, msg: Sit) -> None:
        table = self.tables.get(msg.table)
        if table is None or table.stale or table.id in self.leaving:
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

    def do(self, msg: Do) -> None:
        table = self.tables.get(msg.table)
        if table is None or table.stale or table.id in self.leaving:
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

    def away(self, msg: Away) -> None:
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

    def deliver(self, items: list[Any]) -> None:
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

    def newer(self, table_id: str, owner: str, epoch: int) -> bool:
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

    def listed(self, msg: Listed) -> None:
        if not self.newer(msg.table, msg.owner, msg.epoch):
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
            self.claimed_elsewhere(msg.table, msg.owner, msg.epoch)

    def claimed_elsewhere(self, table_id: str, owner: str, epoch: int) -> None:
        self.owner_of[table_id] = owner
        table = self.tables.get(table_id)
        if table is not None and not table.stale and epoch > table.epoch:
            # Another process claimed it after us (the claim raised the
            # epoch in Redis): we are stale.
            self.log.warning("claimed_elsewhere", table=table_id, owner=owner, epoch=epoch)
            table.step_down()
        remote = self.remotes.get(table_id)
        if remote is not None and remote.owner != owner:
            self.move(remote, owner)

    def relocate(self, remote: RemoteTable, gone: str) -> None:
        """``remote``'s owner ``gone`` does not serve it: hold its messages and
        find the new owner (a takeover, here or elsewhere)."""
        if remote.owner == gone:
            remote.owner = None
        if remote.id in self._relocating:
            return
        self._relocating.add(remote.id)
        self.spawn(self._relocate(remote, gone))

    async def _relocate(self, remote: RemoteTable, gone: str) -> None:
        deadline = self.clock.time() + self.settings.lease * 2 + 2.0
        try:
            while self.clock.time() < deadline and self.remotes.get(remote.id) is remote:
                if remote.owner is not None:
                    return  # a Claimed moved it meanwhile
                try:
                    holder = await self.holder(remote.id)
                    if holder is None or holder == self.proc:
                        table = await self.take(remote.id)
                        if table is not None:
                            return  # ``take`` moved it here
                    elif holder != gone:
                        self.move(remote, holder)
                        return
                except StoreError:
                    pass
                await self.clock.sleep(RELOCATE_POLL)
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

    def move(self, remote: RemoteTable, target: str | Table) -> None:
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
        self.spawn(self._reattached(conn, ask))

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


def _last_seq(how: Sitting) -> int:
    """The ``seq`` of the last table message ``conn`` was sent, or -1."""
    for frame in reversed(how.recent):
        text = isinstance(frame, str)
        if (frame[:1] == "[") if text else (frame[:1] and frame[0] in _ARRAY_HEADS):
            try:
                first = (
                    _first_json(frame)[0] if isinstance(frame, str) else _first_msgpack(frame)[0]
                )
            except (msgspec.DecodeError, ValueError, IndexError):
                continue
            if type(first) is int:
                return first
            continue
        try:
            found = _seq_json(frame) if isinstance(frame, str) else _seq_msgpack(frame)
        except (msgspec.DecodeError, ValueError):
            continue
        if found.t in ("table", "tpatch"):
            return found.seq
    return -1


# The first byte of a msgpack array (fixarray, array 16, array 32).
_ARRAY_HEADS = frozenset(range(0x90, 0xA0)) | {0xDC, 0xDD}

"""Several processes of one service in this one (for the cluster's corners,
seconds not minutes): ``Member`` is a lobby and its node on a real Redis,
``Wire`` the client's end of a connection such a node holds."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec

from protocol.codec import SUBPROTOCOL_JSON, codec_for
from protocol.messages import Command, CreateTable, Error, Event, JoinTable, Seated
from server.base.clock import WALL
from server.base.config import Settings
from server.cluster.node import Node
from server.lobby.lobby import Lobby
from server.lobby.tables import Tables
from server.store.redis import RedisStore

ROOT = Path(__file__).resolve().parents[1]


class Wire:
    """The client's end of a connection held by an in-process node: the front's
    ``Conn`` face (what the lobby, the tables and the node use of it), and the
    events the server sent it, decoded as a client would."""

    _ids = itertools.count(1)

    def __init__(self, name: str) -> None:
        self.id = f"w{next(self._ids)}"
        self.name = name
        self.codec = codec_for(SUBPROTOCOL_JSON, Command)
        self.player = None
        self.closed = False
        self.close_code: int | None = None
        self.events: list[Any] = []
        self.arrived = asyncio.Event()

    def send(self, msg: Any) -> None:
        self.send_raw(self.codec.encode(msg))

    def send_raw(self, data: bytes | str) -> None:
        if self.closed:
            return
        self.events.append(msgspec.json.decode(data, type=Event))
        self.arrived.set()

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.arrived.set()

    async def wait_for(self, test: Callable[[Any], bool], timeout: float = 5.0) -> Any:
        """The first event so far (or to come) that passes ``test``."""
        async with asyncio.timeout(timeout):
            while True:
                for event in self.events:
                    if test(event):
                        return event
                self.arrived.clear()
                await self.arrived.wait()


class Member:
    """One process of a service, in this one: a lobby and its node on a real Redis
    and its bus. Its renewer and orphan scanner do not run: the test says when a
    table changes hands (``node.take``, ``table.step_down``)."""

    def __init__(self, lobby: Lobby, node: Node, store: RedisStore) -> None:
        self.lobby = lobby
        self.tables = lobby.tables
        self.node = node
        self.store = store

    @classmethod
    async def start(cls, redis_url: str, lease: float = 5.0) -> Member:
        settings = Settings(redis_url=redis_url, lease=lease, bot_think=0.0)
        store = await RedisStore.connect(redis_url)
        nodes: list[Node] = []

        def directory(tables: Tables) -> Node:
            nodes.append(Node(store, settings, tables, WALL))
            return nodes[0]

        lobby = Lobby(store, settings, directory=directory)
        node = nodes[0]
        await node.open()
        return cls(lobby, node, store)

    async def stop(self) -> None:
        for table in list(self.lobby.tables.values()):
            table.step_down()  # no save, no release: as if the process died
        await self.node.stop()
        await self.node.close()
        await self.store.close()


@contextlib.asynccontextmanager
async def two_members(
    redis_url: str, lease: float = 5.0, *, lease_b: float | None = None
) -> AsyncIterator[tuple[Member, Member]]:
    """Two processes of one service (``lease_b``: the second's lease, if not
    ``lease``), both stopped as if they died when the block ends."""
    a = await Member.start(redis_url, lease=lease)
    try:
        b = await Member.start(redis_url, lease=lease if lease_b is None else lease_b)
        try:
            yield a, b
        finally:
            await b.stop()
    finally:
        await a.stop()


async def table_epoch(store: RedisStore, table_id: str) -> int:
    value = await store.pool.hget(store.keys.table + table_id.encode(), b"e")
    return int(value or 0)


async def guest_at_a_remote_table(a: Member, b: Member) -> tuple[str, Wire]:
    """A table owned by ``a``, created by a client of ``a``; a client of ``b`` seated there."""
    host, guest = Wire("Host"), Wire("Guest")
    await a.lobby.create(host, CreateTable(name="corner", private=True))
    table_id = (await host.wait_for(lambda e: isinstance(e, Seated))).table_id
    await b.lobby.join(guest, JoinTable(table_id=table_id))
    assert isinstance(await guest.wait_for(lambda e: isinstance(e, Seated | Error)), Seated)
    return table_id, guest


async def owner_lets_go(a: Member, table_id: str) -> None:
    """``a`` stops serving the table and frees its lease (as a drain does: once
    its saves are answered, or one on its way would set the lease again)."""
    a.lobby.tables[table_id].step_down()
    await a.store.settled()
    await a.node.leases.release(table_id)


__all__ = [
    "Member",
    "Wire",
    "guest_at_a_remote_table",
    "owner_lets_go",
    "table_epoch",
    "two_members",
]

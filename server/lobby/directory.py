"""Where this process's tables stand in the service: the directory.

``Tables`` (server/lobby/tables.py) asks it for what goes beyond this process:
reserving an invite code, which table a code opens, where a table not served
here is served, claiming a new table before its first save, telling every
process's lobby how a table lists itself, and serving the stored tables
again after a restart. Two implementations, chosen at start-up
(server/process/app.py): ``OneProcess`` here, when this process is the whole
service (the memory store, or a test's own store), and the cluster's
``Node`` (server/cluster/node.py) on Redis.

A connection held here may sit at a table served elsewhere (and the other
way round): the directory also hears where such connections go (``routes``,
``unregister``) and which tables stepped down, since only the cluster has
anything to do then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import structlog

if TYPE_CHECKING:
    from server.link.conn import Conn
    from server.table.actor import Table
    from server.table.effects import Listing
    from server.table.inbox import InboxItem

log = structlog.get_logger()


class Inbox(Protocol):
    def put_nowait(self, item: InboxItem, /) -> None: ...


class Place(Protocol):
    """Where a connection's table commands go: a ``Table`` served here, or a
    ``RemoteTable`` (server/cluster/remote.py) owned by another process."""

    @property
    def id(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def inbox(self) -> Inbox: ...


class Unavailable(Exception):
    """A new table cannot be served now; the message is for the person."""


class Directory(Protocol):
    async def reserve_code(self, code: str, table_id: str) -> bool:
        """Make ``code`` the invite code of ``table_id`` service-wide; False if
        another table has it (``StoreError``: the store did not answer)."""
        ...

    async def table_of_code(self, code: str) -> str | None:
        """The table ``code`` opens, beyond the listings known here."""
        ...

    async def claim_new(self, table_id: str) -> int:
        """Own a table being created, before its first save: its owner epoch
        (0: unfenced, nobody else may own it). ``Unavailable`` if it cannot be."""
        ...

    def place(self, table_id: str) -> Place | None:
        """Where a table not served here is served, as far as is known now."""
        ...

    async def find(self, table_id: str) -> Place | None:
        """Where a table not served here is served, asking the store (a table
        nobody serves may be taken over here). ``StoreError`` if it is down."""
        ...

    def listed(self, table_id: str, listing: Listing, epoch: int) -> None:
        """A table served here lists itself so: tell every process's lobby."""
        ...

    async def restore(self) -> int:
        """Serve again the stored open tables nobody serves: how many."""
        ...

    def routes(self, conn: Conn, here: bool, to_lobby: bool) -> bool:
        """A table routes ``conn``: True if it is held by another process (told there)."""
        ...

    def unregister(self, conn: Conn) -> None:
        """``conn``, held here, is gone."""
        ...

    def stepped_down(self, table: Table) -> None:
        """``table`` is served by another process now."""
        ...


class Served(Protocol):
    """What ``OneProcess`` needs of the tables it restores (``Tables``)."""

    async def restore_stored(self) -> int: ...


class OneProcess:
    """The directory of a process that is the whole service: every table is
    here, every code is known here (the tables' own listings)."""

    def __init__(self, tables: Served) -> None:
        self.tables = tables

    async def reserve_code(self, code: str, table_id: str) -> bool:
        return True  # a code is drawn unlike every code listed here

    async def table_of_code(self, code: str) -> str | None:
        return None

    async def claim_new(self, table_id: str) -> int:
        return 0

    def place(self, table_id: str) -> Place | None:
        return None

    async def find(self, table_id: str) -> Place | None:
        return None

    def listed(self, table_id: str, listing: Listing, epoch: int) -> None:
        pass

    async def restore(self) -> int:
        return await self.tables.restore_stored()

    def routes(self, conn: Conn, here: bool, to_lobby: bool) -> bool:
        return False

    def unregister(self, conn: Conn) -> None:
        pass

    def stepped_down(self, table: Table) -> None:
        pass

"""The ``TableStore`` contract: where a table's state lives between moves.

A table actor saves its whole state as one opaque blob (msgpack of the
table's state Struct) with a version that only grows. The store never knows
what is inside the blob; it only guarantees that a stale writer can never
overwrite a newer state.

Two implementations: ``memory`` (the embedded default, nothing to set up) and
``redis`` (survives restarts; chosen with ``--redis``).
"""

from __future__ import annotations

from typing import Protocol


class StoreError(Exception):
    """The store could not do what was asked (unreachable, broken reply)."""


class StaleWrite(StoreError):
    """A save carried a version older than the one already stored, or came
    from an owner older than the table's current one (``epoch``).

    Raised, never swallowed: the writer is stale (another process owns the
    table now, or an old task woke up) and must stop writing.
    """

    def __init__(self, table_id: str, version: int, stored: int, *, epoch: int = 0) -> None:
        if epoch:
            why = f"owner epoch is now {epoch}"
        else:
            why = f"version {version} is older than stored {stored}"
        super().__init__(f"table {table_id}: {why}")
        self.table_id = table_id
        self.version = version
        self.stored = stored
        self.epoch = epoch
        """The table's newer owner epoch that refused the save (0: the version did)."""


class TableStore(Protocol):
    """What a table needs from persistence. Every method is a coroutine."""

    async def save(
        self, table_id: str, version: int, blob: bytes, *, open_: bool = True, epoch: int = 0
    ) -> None:
        """Store ``blob`` as the state of ``table_id`` at ``version``.

        Atomic: refused with ``StaleWrite`` when the stored version is newer
        than ``version`` (an equal version is accepted, so a retried save is
        harmless), or when a newer owner than ``epoch`` claimed the table
        (server/cluster/lease.py; 0: unfenced, and only the Redis store,
        shared by processes, has owners to fence). ``open_`` keeps the table
        in the lobby index of open tables; ``False`` takes it out (finished or
        closed tables) and lets it expire.
        """
        ...

    async def load(self, table_id: str) -> tuple[int, bytes] | None:
        """The stored ``(version, blob)`` of a table, or ``None``."""
        ...

    async def open_tables(self) -> list[str]:
        """The ids in the lobby index of open tables (what a restart serves again)."""
        ...

    async def delete(self, table_id: str) -> None:
        """Forget a table: its state, its records and its index entry."""
        ...

    async def append_record(
        self, table_id: str, record: bytes, key: str, *, epoch: int = 0
    ) -> None:
        """Add one deal record (JSON bytes, see docs/DEAL-RECORD.md) to a table's history,
        once per ``key`` (the table's game and deal attempt, ``"2/3"``).

        The record is appended before the state that ends the deal is saved:
        a server killed between the two replays the deal's last move after a
        restart and appends the record again. The key makes that a no-op.
        Fenced like ``save``: an older owner's record is dropped (no error:
        its next save says it is stale).
        """
        ...

    async def records(self, table_id: str) -> list[bytes]:
        """A table's deal records, oldest first."""
        ...

    async def healthy(self) -> bool:
        """Whether the store is reachable right now (for ``/healthz``)."""
        ...

    async def close(self) -> None:
        """Release connections. The store is unusable afterwards."""
        ...

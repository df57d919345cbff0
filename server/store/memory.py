"""The in-memory ``TableStore``: the embedded default, gone when the process ends."""

from __future__ import annotations

from server.store.base import StaleWrite


class MemoryStore:
    """Tables kept in dicts. Same contract as the Redis store, no setup."""

    def __init__(self) -> None:
        self._tables: dict[str, tuple[int, bytes]] = {}
        self._open: set[str] = set()
        self._records: dict[str, list[bytes]] = {}
        self._record_keys: dict[str, set[str]] = {}

    async def save(
        self, table_id: str, version: int, blob: bytes, *, open_: bool = True, epoch: int = 0
    ) -> None:
        # One process: no other owner to fence out (``epoch`` is Redis's).
        stored = self._tables.get(table_id)
        if stored is not None and stored[0] > version:
            raise StaleWrite(table_id, version, stored[0])
        self._tables[table_id] = (version, blob)
        if open_:
            self._open.add(table_id)
        else:
            self._open.discard(table_id)

    async def load(self, table_id: str) -> tuple[int, bytes] | None:
        return self._tables.get(table_id)

    async def open_tables(self) -> list[str]:
        return sorted(self._open)

    async def delete(self, table_id: str) -> None:
        self._tables.pop(table_id, None)
        self._records.pop(table_id, None)
        self._record_keys.pop(table_id, None)
        self._open.discard(table_id)

    async def append_record(
        self, table_id: str, record: bytes, key: str, *, epoch: int = 0
    ) -> None:
        keys = self._record_keys.setdefault(table_id, set())
        if key not in keys:
            keys.add(key)
            self._records.setdefault(table_id, []).append(record)

    async def records(self, table_id: str) -> list[bytes]:
        return list(self._records.get(table_id, ()))

    async def healthy(self) -> bool:
        return True

    async def close(self) -> None:
        return None

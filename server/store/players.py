"""The ``PlayerStore`` contract: key digests, player ids and display names.

Three maps kept consistent together: key digest -> player id, player id ->
display name, name key -> player id (``server.base.players.name_key``: one owner
per name, whatever its case or width). A name belongs to the first key that
claims it; renaming frees the old name.

Two implementations with the same contract: ``MemoryPlayers`` here (the
embedded server, tests) and ``RedisPlayers`` (``server/store/redis_players.py``),
which survives restarts. Nothing here expires: a player is kept for good.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from server.base.players import Player, name_key, new_player_id


class NameTaken(Exception):
    """Another player owns this name (or one that is the same name)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the name {name!r} belongs to another player on this server")
        self.name = name


class PlayerStore(Protocol):
    async def find(self, digest: str) -> Player | None:
        """The player whose key has this digest, or ``None`` (unknown key)."""
        ...

    async def register(self, digest: str, name: str) -> Player:
        """Make a new player for a new key, with ``name`` (already cleaned).

        If the key is already registered, its player is returned unchanged.
        Raises ``NameTaken`` if another player owns the name; nothing is
        stored then.
        """
        ...

    async def rename(self, player_id: str, name: str) -> Player:
        """Give ``player_id`` the (cleaned) ``name``; raises ``NameTaken``."""
        ...

    async def names(self, player_ids: Iterable[str]) -> dict[str, str]:
        """Display names of those ids that exist."""
        ...


class MemoryPlayers:
    """Players kept in dicts: the embedded default, gone with the process."""

    def __init__(self) -> None:
        self._by_digest: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._owners: dict[str, str] = {}  # name key -> player id

    async def find(self, digest: str) -> Player | None:
        pid = self._by_digest.get(digest)
        return None if pid is None else Player(id=pid, name=self._names[pid])

    async def register(self, digest: str, name: str) -> Player:
        known = await self.find(digest)
        if known is not None:
            return known
        nkey = name_key(name)
        if nkey in self._owners:
            raise NameTaken(name)
        pid = new_player_id()
        self._by_digest[digest] = pid
        self._names[pid] = name
        self._owners[nkey] = pid
        return Player(id=pid, name=name)

    async def rename(self, player_id: str, name: str) -> Player:
        nkey = name_key(name)
        owner = self._owners.get(nkey)
        if owner is not None and owner != player_id:
            raise NameTaken(name)
        old = self._names.get(player_id)
        if old is None:
            raise KeyError(player_id)
        self._owners.pop(name_key(old), None)
        self._owners[nkey] = player_id
        self._names[player_id] = name
        return Player(id=player_id, name=name)

    async def names(self, player_ids: Iterable[str]) -> dict[str, str]:
        return {pid: self._names[pid] for pid in player_ids if pid in self._names}

"""The tournament a player is in, kept per server and player beside the seat
tokens (``tokens.py``), so that any later start of the client (``atout
connect`` as well as ``atout tournament join``) follows it again: the server
sends a tournament's views to the connections that asked for it, and a new
connection has asked for none.

A code is no secret (anyone with it may read the standings), but it is kept
as the tokens are: one small JSON file, written whole, by its owner only.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Protocol

from clients.cli.tokens import FileTokens, InMemory, Tokens, normalize


class TournamentMemory(Protocol):
    def get(self, key: str) -> str | None: ...
    def save(self, key: str, code: str) -> None: ...
    def forget(self, key: str) -> None: ...


class MemoryTournaments(InMemory[str]):
    """For this run only (``atout play``, tests without a folder)."""


class FileTournaments:
    """``tournaments.json``: a code per ``seat_key`` (server and player)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "tournaments.json"

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or damaged: nothing to follow
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str)}

    def _store(self, data: dict[str, str]) -> None:
        # Never fatal: the player can always join again by the code.
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tournaments.")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f, indent=1, sort_keys=True)
                os.chmod(tmp, 0o600)
                os.replace(tmp, self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    def get(self, key: str) -> str | None:
        return self._load().get(normalize(key))

    def save(self, key: str, code: str) -> None:
        data = self._load()
        if data.get(normalize(key)) != code:
            data[normalize(key)] = code
            self._store(data)

    def forget(self, key: str) -> None:
        data = self._load()
        if data.pop(normalize(key), None) is not None:
            self._store(data)


def memory_beside(tokens: Tokens) -> TournamentMemory:
    """Where the tournaments go: in the tokens' folder when they have one."""
    if isinstance(tokens, FileTokens):
        return FileTournaments(tokens.path.parent)
    return MemoryTournaments()

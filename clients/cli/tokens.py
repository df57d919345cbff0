"""Where the resume tokens live: one per server *and player*, in the user's
config folder.

A token is what the server handed us when we sat down (``Seated.token``);
showing it again (``Resume``) gets the seat back after a lost connection, a
server restart, or quitting and starting the client again. It is a secret
that holds a seat, so the file is written atomically and readable by its
owner only.

Keyed by server and player (``seat_key``): the player is the ``--profile``
when given, else the display name, so two people playing from one machine
(``--name Alice`` and ``--name Bob``) never take each other's seat.

The folder is ``$ATOUT_CONFIG_DIR`` when set (tests, several identities on
one machine), else the platform's config folder for ``atout`` (on Linux
``$XDG_CONFIG_HOME/atout`` or ``~/.config/atout``).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar
from urllib.parse import quote


@dataclass(frozen=True)
class SavedSeat:
    token: str
    table_id: str
    seat: int
    saved_at: float = 0.0


class Tokens(Protocol):
    def get(self, url: str) -> SavedSeat | None: ...
    def save(self, url: str, seat: SavedSeat) -> None: ...
    def forget(self, url: str) -> None: ...


def config_dir() -> Path:
    override = os.environ.get("ATOUT_CONFIG_DIR")
    if override:
        return Path(override)
    try:
        import platformdirs

        return Path(platformdirs.user_config_dir("atout", appauthor=False))
    except ImportError:  # platformdirs comes with Textual; this is belt and braces
        base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        return Path(base) / "atout"


def data_dir() -> Path:
    """Where ``atout play`` keeps its game: ``$ATOUT_DATA_DIR`` when set, else the
    platform's data folder for ``atout`` (on Linux ``~/.local/share/atout``)."""
    override = os.environ.get("ATOUT_DATA_DIR")
    if override:
        return Path(override)
    try:
        import platformdirs

        return Path(platformdirs.user_data_dir("atout", appauthor=False))
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "atout"


def play_file(player: str) -> Path:
    """The SQLite file of ``atout play``'s own server, one per player."""
    return data_dir() / "play" / f"{quote(player.strip().casefold(), safe='')}.sqlite3"


def seat_key(server: str, player: str) -> str:
    """The key of a saved seat: this server, this player (case does not matter)."""
    return f"{normalize(server)} as {player.strip().casefold()}"


Saved = TypeVar("Saved")


def normalize(url: str) -> str:
    """One key per server, however its URL was typed."""
    return url.strip().rstrip("/").lower()


class InMemory(Generic[Saved]):
    """What is saved per server (``normalize``), for this run only: the
    in-memory side of the token and key files."""

    def __init__(self) -> None:
        self._saved: dict[str, Saved] = {}

    def get(self, url: str) -> Saved | None:
        return self._saved.get(normalize(url))

    def save(self, url: str, saved: Saved) -> None:
        self._saved[normalize(url)] = saved

    def forget(self, url: str) -> None:
        self._saved.pop(normalize(url), None)


class MemoryTokens(InMemory[SavedSeat]):
    """Tokens for this run only (``atout play``: the embedded server dies with us)."""


class FileTokens:
    """Tokens in ``tokens.json``, keyed by ``seat_key`` (older files keyed by a
    bare URL are simply not matched: no one resumes a seat that may not be theirs)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or config_dir()) / "tokens.json"

    def _load(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # no file yet, or a damaged one: start afresh
        return data if isinstance(data, dict) else {}

    def _store(self, data: dict[str, dict[str, object]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tokens.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)  # atomic: a crash never leaves half a file
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def get(self, url: str) -> SavedSeat | None:
        raw = self._load().get(normalize(url))
        if not isinstance(raw, dict):
            return None
        try:
            return SavedSeat(
                token=str(raw["token"]),
                table_id=str(raw["table_id"]),
                seat=int(raw["seat"]),  # type: ignore[call-overload]
                saved_at=float(raw.get("saved_at", 0.0)),  # type: ignore[arg-type]
            )
        except (KeyError, TypeError, ValueError):
            return None

    def save(self, url: str, seat: SavedSeat) -> None:
        data = self._load()
        data[normalize(url)] = asdict(seat) | {"saved_at": seat.saved_at or time.time()}
        with contextlib.suppress(OSError):  # a read-only home must not stop a game
            self._store(data)

    def forget(self, url: str) -> None:
        data = self._load()
        if data.pop(normalize(url), None) is not None:
            with contextlib.suppress(OSError):
                self._store(data)

"""Player keys: one per server, in the user's config folder beside the seat tokens.

A player key (docs/PROTOCOL.md §11.1) is 128 random bits, written as 32
lowercase hex digits, that makes this client a *player* of one server: a
name that stays ours, a daily game, a line on the leaderboards. It is sent
in ``hello`` to the server it belongs to and to no other, with
``register: true`` only until that server has accepted it once. Whoever
holds it plays as us there, so the file is written atomically and readable
by its owner only, as ``tokens.json`` is.

``atout key export`` / ``atout key import`` copy a key to another machine
(``clients/cli/__main__.py``); an imported key is marked registered, so a
mistyped one is refused by the server (``unknown_key``) instead of quietly
making a new player.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from clients.cli.i18n import _
from clients.cli.tokens import config_dir, normalize

KEY_FILE = "keys.json"
_KEY = re.compile(r"[0-9a-f]{32}")


class BadKey(ValueError):
    """Text that is not a player key; ``str()`` is said to the user."""


@dataclass(frozen=True)
class SavedKey:
    key: str
    registered: bool = False
    """The server has accepted this key once: never ask it to register again."""


def new_key() -> str:
    """A fresh key: 128 bits from the OS's cryptographic generator."""
    return secrets.token_hex(16)


def parse_key(text: str) -> str:
    """The key in ``text`` (spaces around it and upper case forgiven), or ``BadKey``."""
    key = text.strip().lower()
    if not _KEY.fullmatch(key):
        raise BadKey(_("a player key is 32 hex digits (0-9, a-f), as `atout key export` prints it"))
    return key


class Keys(Protocol):
    def get(self, url: str) -> SavedKey | None: ...
    def save(self, url: str, saved: SavedKey) -> None: ...
    def forget(self, url: str) -> None: ...


def for_hello(keys: Keys, url: str) -> SavedKey:
    """The key to say ``hello`` with to ``url``: made and saved on first use."""
    saved = keys.get(url)
    if saved is None:
        saved = SavedKey(new_key(), registered=False)
        keys.save(url, saved)
    return saved


def accepted(keys: Keys, url: str, saved: SavedKey) -> None:
    """The server welcomed us with ``saved``: it knows the key from now on."""
    if not saved.registered:
        keys.save(url, SavedKey(saved.key, registered=True))


class MemoryKeys:
    """Keys for this run only (tests)."""

    def __init__(self) -> None:
        self._keys: dict[str, SavedKey] = {}

    def get(self, url: str) -> SavedKey | None:
        return self._keys.get(normalize(url))

    def save(self, url: str, saved: SavedKey) -> None:
        self._keys[normalize(url)] = saved

    def forget(self, url: str) -> None:
        self._keys.pop(normalize(url), None)


class FileKeys:
    """Keys in ``keys.json`` (mode 0600), one per server URL."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or config_dir()) / KEY_FILE

    def _load(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as e:
            # Unlike a seat token, a key is an identity: never overwrite a
            # damaged file silently, it may be the only copy.
            damaged = _("{path} is damaged ({error}); move it away to start afresh")
            raise OSError(damaged.format(path=self.path, error=e)) from e
        return data if isinstance(data, dict) else {}

    def _store(self, data: dict[str, object]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".keys.")
        try:
            os.fchmod(fd, 0o600)  # before a byte of the secret is written
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)  # atomic: a crash never leaves half a file
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def get(self, url: str) -> SavedKey | None:
        raw = self._load().get(normalize(url))
        if not isinstance(raw, dict):
            return None
        try:
            return SavedKey(parse_key(str(raw["key"])), bool(raw.get("registered", False)))
        except (KeyError, BadKey):
            return None

    def save(self, url: str, saved: SavedKey) -> None:
        data = self._load()
        data[normalize(url)] = asdict(saved)
        self._store(data)  # unlike a token, a key that is not kept must not be used

    def forget(self, url: str) -> None:
        data = self._load()
        if data.pop(normalize(url), None) is not None:
            self._store(data)

"""Player keys: one per server *and player*, in the user's config folder
beside the seat tokens, keyed exactly as they are (``tokens.seat_key``: the
player is the ``--profile`` when given, else the ``--name``), so two people
playing from one machine are two players of a server, not one.

A player key (docs/PROTOCOL.md §11.1) is 128 random bits, written as 32
lowercase hex digits, that makes this client a *player* of one server: a
name that stays ours, a daily game, a line on the leaderboards. It is sent
in ``hello`` to the server it belongs to and to no other, with
``register: true`` only until that server has accepted it once. Whoever
holds it plays as us there, so the file is written atomically and readable
by its owner only, as ``tokens.json`` is.

Files written before keys were per player hold one key per server, under the
bare URL. Such an *old key* goes to the person it was made for, which is the
name the server knows it by: the first player to connect says ``hello`` with
it, and if the ``welcome`` names that player (their ``--name`` or
``--profile``, case and width aside) the key becomes theirs. If it names
someone else, the client writes that name beside the old key, closes that
connection before doing anything, and says ``hello`` again with a key of the
player's own; the named person takes the old key when they next connect
(``claim``), with no round trip since the name is recorded. So in the
evening of issue 27 (Alice made the key, then Bob ``--profile bob``), Bob
becomes a new player whichever of them connects first, and Alice keeps
her name, leaderboard line and daily attempt.

``atout key export`` / ``atout key import`` copy a key to another machine
(``key_command.py``); an imported key is marked registered, so a mistyped
one is refused by the server (``unknown_key``) instead of quietly making a
new player.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import tempfile
import unicodedata
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Protocol

from clients.cli.i18n import _
from clients.cli.tokens import config_dir, normalize, seat_key

KEY_FILE = "keys.json"
_KEY = re.compile(r"[0-9a-f]{32}")


class BadKey(ValueError):
    """Text that is not a player key; ``str()`` is said to the user."""


@dataclass(frozen=True)
class SavedKey:
    key: str
    registered: bool = False
    """The server has accepted this key once: never ask it to register again."""
    owner: str = ""
    """Of an old per-server key only: the name its server knows it by, once
    heard (the player that key goes to); "" while nobody has asked."""


@dataclass(frozen=True)
class HelloKey:
    """The key to say ``hello`` with, and whose it is."""

    saved: SavedKey
    where: str
    """Where the key is kept: ``seat_key(server, player)``."""
    old: bool = False
    """The server's old per-server key, owner unknown: the ``welcome`` decides (``welcomed``)."""


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
    """Saved keys by ``where``: a ``seat_key`` (a player's own), or a bare
    server URL (an old per-server key)."""

    def get(self, where: str) -> SavedKey | None: ...
    def save(self, where: str, saved: SavedKey) -> None: ...
    def forget(self, where: str) -> None: ...


def same_name(a: str, b: str) -> bool:
    """One person's name however typed: case, width and spacing aside, as the server sees it."""

    def fold(text: str) -> str:
        return " ".join(unicodedata.normalize("NFKC", text).casefold().split())

    return fold(a) == fold(b)


def for_hello(keys: Keys, url: str, player: str, name: str = "") -> HelloKey:
    """The key to say ``hello`` with to ``url`` as ``player`` (the ``--profile``,
    else the ``--name``; ``name`` is the ``--name``): the player's own, else the
    server's old per-server key when it may be theirs, else a new one, saved."""
    where = seat_key(url, player)
    saved = keys.get(where)
    if saved is not None:
        return HelloKey(saved, where)
    old = keys.get(url)
    if old is not None:
        if not old.owner:
            return HelloKey(old, where, old=True)  # whose it is: the welcome will say
        if same_name(old.owner, player) or (name and same_name(old.owner, name)):
            return HelloKey(claim(keys, url, where, old), where)
    saved = SavedKey(new_key(), registered=False)
    keys.save(where, saved)
    return HelloKey(saved, where)


def claim(keys: Keys, url: str, where: str, old: SavedKey) -> SavedKey:
    """The old per-server key of ``url`` becomes the key kept at ``where``."""
    mine = SavedKey(old.key, registered=old.registered)
    keys.save(where, mine)  # saved before the old entry goes: a crash loses nothing
    keys.forget(url)
    return mine


def welcomed(
    keys: Keys, url: str, used: HelloKey, server_name: str, player: str, name: str = ""
) -> bool:
    """The server welcomed us with ``used``, calling us ``server_name``. True:
    play on. False: it was the old per-server key and someone else's (its
    owner is written down); close this connection and say hello again."""
    if used.old:
        if not (same_name(server_name, player) or (name and same_name(server_name, name))):
            keys.save(url, replace(used.saved, registered=True, owner=server_name))
            return False
        claim(keys, url, used.where, replace(used.saved, registered=True))
    elif not used.saved.registered:
        keys.save(used.where, SavedKey(used.saved.key, registered=True))
    return True


class FileKeys:
    """Keys in ``keys.json`` (mode 0600), one per ``seat_key`` (server and
    player); an old file's per-server keys under the bare URL until claimed."""

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

    def get(self, where: str) -> SavedKey | None:
        raw = self._load().get(normalize(where))
        if not isinstance(raw, dict):
            return None
        try:
            return SavedKey(
                parse_key(str(raw["key"])),
                bool(raw.get("registered", False)),
                str(raw.get("owner", "")),
            )
        except (KeyError, BadKey):
            return None

    def save(self, where: str, saved: SavedKey) -> None:
        data = self._load()
        entry = asdict(saved)
        if not saved.owner:
            del entry["owner"]  # a player's own key has none: keep the file as it was
        data[normalize(where)] = entry
        self._store(data)  # unlike a token, a key that is not kept must not be used

    def forget(self, where: str) -> None:
        data = self._load()
        if data.pop(normalize(where), None) is not None:
            self._store(data)

"""Keeping a client's views in step with the server (docs/PROTOCOL.md §5).

The pure part of a client session: messages in, the views and the commands
to send out, no socket. ``Sync`` follows the seq / patch / snapshot rules
for the table stream and the lobby stream; ``clients/session.py`` feeds it
typed messages and typed views, ``DocumentSync`` feeds it decoded JSON with
raw documents (what ``tests/data/sync-vectors.json`` and the browser
client's ``clients/web/app/sync.js`` hold), so both languages answer the
same vectors. ``bench/load.py`` drives the same ``Sync`` with its own cheap
patch applier (raw ops, patched in place).

Protocol version 2 (docs/PROTOCOL.md §13) changes how a table view and its
patches are written, not these rules: the terminal client's codec reads a
version 2 ``table`` or ``tpatch`` back into the version 1 messages (typed
views and ops) it feeds here, and ``bench/load.py`` feeds the positional
document and ops as they come, applied by ``protocol.positional.TableReader``.
A patch that does not parse is a misfit like one that does not fit.

Usage contract: feed every server message of one connection, in order, to
the matching ``on_*`` method, and send every command a method returns. An
``apply`` function signals a patch that does not fit by raising
``PatchError``; any other exception is a bug and goes through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Literal, TypeVar

import msgspec

from protocol.diff import Patch, PatchError, apply_document

V = TypeVar("V")
L = TypeVar("L")
P = TypeVar("P")
"""What a patch is to the ``apply`` functions: a typed ``Patch``, or raw ops."""

Miss = Literal["gap", "misfit"]

SNAPSHOT: dict[str, Any] = {"t": "snapshot"}
"""The one command the synchroniser sends: give me the whole view again."""


class Stream(Generic[V, P]):
    """One stream of views: a table seat's (or the spectators') or the lobby's."""

    def __init__(self, apply: Callable[[V, P], V]) -> None:
        self._apply = apply
        self.view: V | None = None
        self.seq = -1
        self.awaiting_snapshot = False
        self.miss: Miss | None = None
        """Why the last snapshot was asked for: a seq ``gap`` or a patch
        that did not fit (``misfit``); the load benchmark counts both."""

    def snapshot(self, seq: int, view: V) -> None:
        # A snapshot is authoritative, whatever its seq (it may go back after a restart).
        self.view, self.seq, self.awaiting_snapshot = view, seq, False

    def patch(self, seq: int, patch: P | None) -> bool:
        """Apply a patch (``None``: ops that did not even decode); True when a
        snapshot must be asked for."""
        if self.awaiting_snapshot:
            return False  # sent before our snapshot request: the snapshot covers it
        miss: Miss = "gap"
        if self.view is not None and seq == self.seq + 1:
            miss = "misfit"
            if patch is not None:
                try:
                    self.view, self.seq = self._apply(self.view, patch), seq
                    return False
                except PatchError:
                    pass
        self.view, self.awaiting_snapshot, self.miss = None, True, miss
        return True

    def drop(self) -> None:
        self.view, self.seq, self.awaiting_snapshot = None, -1, False


class Sync(Generic[V, L, P]):
    """The table and lobby views of one connection, and whose seat it holds."""

    def __init__(self, apply_table: Callable[[V, P], V], apply_lobby: Callable[[L, P], L]):
        self.table: Stream[V, P] = Stream(apply_table)
        self.lobby: Stream[L, P] = Stream(apply_lobby)
        self.table_id: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.snapshots_asked = 0

    def on_table(self, seq: int, view: V, you: int | None) -> None:
        self.table.snapshot(seq, view)
        self.seat = you

    def on_tpatch(self, seq: int, patch: P | None) -> list[dict[str, Any]]:
        return self._ask() if self.table.patch(seq, patch) else []

    def on_lobby(self, seq: int, view: L) -> None:
        self.lobby.snapshot(seq, view)

    def on_lpatch(self, seq: int, patch: P | None) -> list[dict[str, Any]]:
        if self.table_id is not None:
            return []  # a lobby patch sent before we sat down: a snapshot would fetch the table
        return self._ask() if self.lobby.patch(seq, patch) else []

    def on_seated(self, table_id: str, seat: int | None, token: str | None) -> None:
        if (table_id, seat) != (self.table_id, self.seat):
            # A new seat: its views start afresh. (Resuming the same seat keeps
            # the view, for the missed patches to apply to.)
            self.table.drop()
        self.table_id, self.seat = table_id, seat
        if token:
            self.token = token

    def on_left(self) -> None:
        self.table.drop()
        self.table_id = self.seat = None

    def _ask(self) -> list[dict[str, Any]]:
        self.snapshots_asked += 1
        return [dict(SNAPSHOT)]


def _patch_of(ops: Any) -> Patch | None:
    """Raw ops (decoded JSON) as a ``Patch``; None when they are no patch at all."""
    try:
        return msgspec.convert(ops, Patch)
    except msgspec.ValidationError:
        return None


def _apply_raw(doc: Any, patch: Patch) -> Any:
    return apply_document(doc, patch)


class DocumentSync(Sync[Any, Any, Patch]):
    """``Sync`` over decoded JSON messages and raw view documents."""

    def __init__(self) -> None:
        super().__init__(_apply_raw, _apply_raw)

    def take(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """Take one decoded server message; the commands to send because of it."""
        kind = msg.get("t")
        if kind == "table":
            self.on_table(msg["seq"], msg["view"], msg["view"].get("you"))
        elif kind == "lobby":
            self.on_lobby(msg["seq"], msg["view"])
        elif kind in ("tpatch", "lpatch"):
            # Ops that are not even ops fit no view: the same as a patch that fails.
            patch = _patch_of(msg.get("patch"))
            if kind == "tpatch":
                return self.on_tpatch(msg["seq"], patch)
            return self.on_lpatch(msg["seq"], patch)
        elif kind == "seated":
            self.on_seated(msg["table_id"], msg.get("seat"), msg.get("token"))
        elif kind == "left":
            self.on_left()
        return []

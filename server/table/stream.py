"""A recipient's view stream (``Stream``): its sequence number, the last view
it was sent and its recent patches, kept encoded for resumes. ``Fanout``
keeps one per seat and one for all spectators."""

from __future__ import annotations

from collections import deque
from typing import Any

from msgspec.structs import replace

from protocol.views import TableView
from server.table.inbox import Peer

PATCHES_KEPT = 128


def version(peer: Peer) -> int:
    """The protocol version ``peer`` reads (its connection's codec's; 1 if it has none)."""
    return int(getattr(getattr(peer, "codec", None), "version", 1))


class Stream:
    """A recipient's view stream: sequence number, last view sent, recent patches."""

    __slots__ = (
        "_peer",
        "_view",
        "base",
        "own",
        "parts",
        "patches",
        "reads_removes",
        "removes",
        "seq",
    )

    def __init__(self) -> None:
        self.seq = 0
        self._view: TableView | None = None
        self.base: TableView | None = None
        """The public view the last view is ``own`` over, until ``view`` is
        read: most broadcasts never read it (their ops made from the move),
        so it is made only when asked for."""
        self.parts: dict[str, Any] | None = None
        """The public parts ``view`` was built from, when a broadcast built it."""
        self.own: dict[str, Any] | None = None
        """The recipient's own parts ``view`` was built from (with ``parts``)."""
        self.patches: deque[bytes] = deque(maxlen=PATCHES_KEPT)
        """The last patches sent, kept for resumes, msgpack-encoded: a playing
        table keeps hundreds, and as ``Op`` lists of document values they were
        most of its memory (docs/LOAD.md). The newest has ``seq``, each one
        before it one less (every patch sent is kept, a snapshot empties
        them): kept as bytes alone, not with their seqs in tuples, which the
        collector would track, ~640 a table, most of what a sweep walks
        (tuples of atoms are untracked only by a collection, and the
        serving process runs none but the sweep: server/process/collector.py)."""
        self.removes = False
        """Some kept patch has a ``remove`` op, which only version 2 reads."""
        self._peer: Peer | None = None
        self.reads_removes = False
        """Its peer reads version 2's ``remove`` op: told when the peer is
        bound (a connection's codec never changes), not asked each move."""

    @property
    def peer(self) -> Peer | None:
        """The recipient's connection (None: none now)."""
        return self._peer

    @peer.setter
    def peer(self, peer: Peer | None) -> None:
        self._peer = peer
        self.reads_removes = peer is not None and version(peer) >= 2

    @property
    def view(self) -> TableView | None:
        """The last view sent (``None``: none yet)."""
        view = self._view
        if view is None and self.base is not None:
            assert self.own is not None
            view = self._view = replace(self.base, **self.own)
        return view

    @view.setter
    def view(self, view: TableView | None) -> None:
        self._view, self.base = view, None

    def last(self) -> TableView:
        """The last view sent (there is one: not ``empty``)."""
        view = self.view
        assert view is not None
        return view

    def kept(self, patch: bytes) -> None:
        """A patch was sent, with the next ``seq``: keep it."""
        self.seq += 1
        self.patches.append(patch)

    def snapshot_sent(
        self,
        view: TableView,
        parts: dict[str, Any] | None = None,
        own: dict[str, Any] | None = None,
    ) -> None:
        """A snapshot ``view`` was sent, with the next ``seq`` (built from
        ``parts`` and ``own``, if a broadcast built it): no patch kept before
        it serves a resume after it."""
        self.seq += 1
        self._view, self.base = view, None
        self.parts, self.own = parts, own
        self.patches.clear()
        self.removes = False

    def missed(self, last_seq: int) -> list[tuple[int, bytes]] | None:
        """The patches sent after ``last_seq``, with their seqs, if every one
        is kept (``[]``: none was sent since); None if some are not."""
        patches = self.patches
        first = self.seq - len(patches) + 1
        if not first - 1 <= last_seq <= self.seq:
            return None
        return [(first + i, patches[i]) for i in range(last_seq + 1 - first, len(patches))]

    def empty(self) -> bool:
        """No view sent yet (or none since a restart)."""
        return self._view is None and self.base is None

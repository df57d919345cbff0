"""A scripted client of the tables campaign: one seat or a spectator, its
document patched strictly as docs/PROTOCOL.md says, its stream."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from websockets.exceptions import ConnectionClosed

from bench.fuzz_bench.wire import Wire, events_for, version_for


def apply_patch(doc: Any, patch: list[Any]) -> Any:
    """Apply ``[path, op, value]`` ops to a view document, as docs/PROTOCOL.md §5.3.

    Stricter than bench/common/views.py's applier on purpose (that one is for speed):
    an index past the end or an op on the root is an error a client would
    hit, so the campaign must see it.
    """
    for path, op, value in patch:
        if not path:
            if op != "set":
                raise ValueError(f"{op} on the root")
            doc = value
            continue
        node = doc
        for step in path[:-1]:
            node = node[step]
        last = path[-1]
        if op == "set":
            if isinstance(node, list) and not 0 <= last < len(node):
                raise IndexError(last)
            node[last] = value
        elif op == "append":
            node[last].extend(value)
        elif op == "del":
            del node[last]
        elif op == "remove":  # version 2 only
            target = node[last]
            if not isinstance(target, list) or not 0 <= value < len(target):
                raise IndexError(value)
            del target[value]
        else:
            raise ValueError(f"unknown op {op!r}")
    return doc


class Player:
    """A scripted client: one seat (or a spectator), its document, its stream."""

    def __init__(self, name: str, kind: str, seat: int | None) -> None:
        self.name = name
        self.kind = kind
        self.seat = seat
        self.wire: Wire | None = None
        self.doc: Any = None
        self.seq = -1
        self.token: str | None = None
        self.got: list[Any] = []  # messages since the step began
        self.reader: asyncio.Task[None] | None = None
        self.problems: list[str] = []
        self.pongs: dict[int, asyncio.Future[Any]] = {}
        self.rid = 0
        self.saved: tuple[int, Any] | None = None  # an older view it still holds
        self.events = events_for(kind)

    async def connect(self, port: int) -> None:
        self.wire = await Wire.open(port, self.kind)
        await self.wire.send({"t": "hello", "version": version_for(self.kind), "name": self.name})
        self.reader = asyncio.get_running_loop().create_task(self._read(self.wire))

    async def _read(self, wire: Wire) -> None:
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            while True:
                self.take(await wire.recv(3600))

    def take(self, msg: Any) -> None:
        """A message arrived (decoded to plain data, as a client sees it)."""
        self.got.append(msg)
        self.apply(msg)
        rid = msg.get("rid")
        if msg["t"] in ("pong", "history", "error", "seated") and rid in self.pongs:
            fut = self.pongs.pop(rid)
            if not fut.done():
                fut.set_result(msg)

    def apply(self, msg: Any) -> None:
        t = msg["t"]
        if t == "table":
            self.doc, self.seq = msg["view"], msg["seq"]
        elif t == "tpatch":
            if self.doc is None or msg["seq"] != self.seq + 1:
                self.problems.append(f"patch seq {msg['seq']} after {self.seq}")
                return
            try:
                self.doc = apply_patch(self.doc, msg["patch"])
            except (KeyError, IndexError, TypeError, ValueError) as e:
                self.problems.append(f"patch does not apply: {e!r}")
                return
            self.seq = msg["seq"]
        elif t == "left":
            self.doc, self.seq = None, -1

    async def ask(self, doc: dict[str, Any], timeout: float = 10.0) -> Any:
        """Send a command and wait for the answer carrying its rid."""
        self.rid += 1
        doc = {**doc, "rid": self.rid}
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pongs[self.rid] = fut
        await self.transmit(doc, at_once=True)
        return await asyncio.wait_for(fut, timeout)

    async def send(self, doc: dict[str, Any]) -> int:
        self.rid += 1
        await self.transmit({**doc, "rid": self.rid})
        return self.rid

    async def transmit(self, doc: dict[str, Any], at_once: bool = False) -> None:
        """Put ``doc`` on the wire (``at_once``: its answer is awaited now)."""
        assert self.wire is not None
        await self.wire.send(doc)

    async def drop(self) -> None:
        if self.wire is not None:
            with contextlib.suppress(Exception):
                await self.wire.ws.close()
        if self.reader is not None:
            with contextlib.suppress(BaseException):
                await self.reader
        self.wire = None

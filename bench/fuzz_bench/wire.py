"""A campaign's client connection, in each codec and protocol version, its
answers decoded to plain data as a version 1 client sees them."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOL_V2_JSON,
    SUBPROTOCOL_V2_MSGPACK,
    Codec,
    new_codec,
)
from protocol.messages import Event


def subprotocol_for(kind: str) -> str:
    return {
        "json": SUBPROTOCOL_JSON,
        "v2.json": SUBPROTOCOL_V2_JSON,
        "v2.msgpack": SUBPROTOCOL_V2_MSGPACK,
    }.get(kind, SUBPROTOCOL_MSGPACK)


def is_json(kind: str) -> bool:
    return kind.endswith("json")


def version_for(kind: str) -> int:
    """Protocol version 2 on the ``v2.`` kinds (docs/PROTOCOL.md §13)."""
    return 2 if kind.startswith("v2.") else 1


def events_for(kind: str) -> Codec | None:
    """A version 2 client's codec of its own: what the server sends, read back
    as the version 1 messages it stands for (then plain data, as version 1
    clients see it), so that every check below holds for both versions."""
    return new_codec(subprotocol_for(kind), Event) if version_for(kind) == 2 else None


def plain(data: bytes | str, events: Codec | None) -> Any:
    if events is not None:
        return msgspec.to_builtins(events.decode(data))
    if isinstance(data, str):
        return msgspec.json.decode(data)
    return msgspec.msgpack.decode(data)


class Wire:
    """One client connection with its undecoded-to-dicts inbox."""

    def __init__(self, ws: ClientConnection, kind: str) -> None:
        self.ws = ws
        self.kind = kind
        self.events = events_for(kind)
        self.rid = 1_000_000

    @classmethod
    async def open(cls, port: int, kind: str) -> Wire:
        ws = await connect(
            f"ws://127.0.0.1:{port}",
            subprotocols=[subprotocol_for(kind)],  # type: ignore[list-item]
            compression=None,
            max_size=None,
            open_timeout=10,
        )
        return cls(ws, kind)

    def encode(self, doc: Any) -> bytes | str:
        if is_json(self.kind):
            return msgspec.json.encode(doc).decode()
        return msgspec.msgpack.encode(doc)

    async def send(self, doc: Any) -> None:
        await self.ws.send(self.encode(doc))

    async def recv(self, timeout: float) -> Any:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        return plain(data, self.events)

    def close_code(self) -> int | None:
        return self.ws.close_code

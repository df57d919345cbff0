"""The floor for ``bench/load.py``: a WebSocket fan-out server with no game at all.

Each connection's first message names its group (msgpack ``{"g": id}``);
every later message from a member is sent, unchanged, to all the members of
its group (itself included) with ``websockets.broadcast``: one frame built
once, written to each transport, no per-connection task or queue. Same
library, same event loop (uvloop when installed), same subprotocol and no
compression, like ``atout-server``: what Atout costs on top of this is the
price of its game logic (rules, state saves, one view, diff and encoding per
seat, per-connection send queues).

    python bench/bare_server.py --port 8799
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
from typing import Any

import msgspec
import websockets
from websockets.asyncio.server import ServerConnection, serve

# The ones our clients offer (protocol/codec.py): bench/load.py speaks either.
SUBPROTOCOLS = ("atout.v2.msgpack", "atout.v1.msgpack")

_decode = msgspec.msgpack.Decoder().decode


class Groups:
    def __init__(self) -> None:
        self.members: dict[Any, set[ServerConnection]] = {}

    async def handler(self, ws: ServerConnection) -> None:
        try:
            first = await asyncio.wait_for(ws.recv(decode=False), 10.0)
            gid = _decode(first)["g"]
        except Exception:
            await ws.close(4004, "first message: {g: group}")
            return
        group = self.members.setdefault(gid, set())
        group.add(ws)
        try:
            async for message in ws:
                websockets.broadcast(group, message)
        except websockets.ConnectionClosed:
            pass
        finally:
            group.discard(ws)
            if not group:
                self.members.pop(gid, None)


async def run(host: str, port: int) -> None:
    groups = Groups()
    async with serve(
        groups.handler,
        host,
        port,
        subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
        compression=None,
        max_size=65536,
    ):
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, done.set)
        await done.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8799)
    args = parser.parse_args()
    # The same collector settings as ``server.process.collector.tune_gc``, for a fair floor.
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(run(args.host, args.port))


if __name__ == "__main__":
    main()

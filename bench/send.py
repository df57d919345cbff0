"""Benchmark: one small frame sent on a real WebSocket, as websockets'
``broadcast`` sends it and as ``Conn.send_raw`` does (server/link/conn.py).

A server and a client on loopback, in this process (uvloop when installed);
the client reads everything meanwhile. Each way sends batches of frames of
``--size`` bytes; the figure is the least over batches of the CPU time per
send (``time.thread_time_ns``: the kernel's write included, the reading
between batches not), the two ways interleaved.

    python bench/send.py [--size 20] [--batch 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.asyncio.connection import broadcast
from websockets.asyncio.server import ServerConnection, serve

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.codec import SUBPROTOCOL_V2_MSGPACK, codec_for
from protocol.messages import Command
from server.link.conn import Conn


def least_us(send: Callable[[], None], batch: int) -> float:
    started = time.thread_time_ns()
    for _ in range(batch):
        send()
    return (time.thread_time_ns() - started) / batch / 1000


async def run(size: int, batch: int, rounds: int) -> dict[str, float]:
    opened: asyncio.Future[ServerConnection] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        opened.set_result(ws)
        await done.wait()

    data = bytes(i % 251 for i in range(size))
    best: dict[str, float] = {}
    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None, max_queue=None) as client:

            async def read() -> None:
                async for _ in client:
                    pass

            reader = asyncio.create_task(read())
            ws = await opened
            codec = codec_for(SUBPROTOCOL_V2_MSGPACK, Command)
            conn = Conn(ws, codec, send_buffer=1 << 30, rate=0, burst=0)
            ways: dict[str, Callable[[], None]] = {
                "websockets broadcast()": lambda: broadcast((ws,), data),
                "Conn.send_raw": lambda: conn.send_raw(data),
            }
            for _ in range(rounds):
                for name, send in ways.items():
                    took = least_us(send, batch)
                    best[name] = min(best.get(name, took), took)
                    await asyncio.sleep(0.05)  # the client reads the batch
            done.set()
            reader.cancel()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20, help="payload bytes a frame")
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    best = asyncio.run(run(args.size, args.batch, args.rounds))
    print(f"{args.size}-byte frames, least CPU µs a send ({args.rounds} batches of {args.batch}):")
    for name, us in best.items():
        print(f"  {name:24} {us:6.2f}")


if __name__ == "__main__":
    main()

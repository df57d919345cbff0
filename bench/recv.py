"""Benchmark: one small client frame received on a real WebSocket, through
websockets' reader (its parser, ``Assembler`` and ``recv``) and through
``LeanConnection``'s (server/link/reader.py).

A server in this process (uvloop when installed) with two connections from a
client thread (websockets' sync client, then masked frames of ``--size``
bytes written straight to its socket, one at a time, ``--gap`` apart, so
that each arrives alone as a player's move does). On one connection the
handler takes each frame from ``async for``; on the other the lean reader
hands it to a sink (the handler waits in ``recv`` and gets none). The figure
is the server thread's CPU time (``time.thread_time_ns``: the wake-up, the
``read`` system call and everything after it) per frame, the least over
batches, the two ways interleaved; the client thread's own time is not in it.

    python bench/recv.py [--size 20] [--batch 1000] [--rounds 5] [--gap 0.0002]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import threading
import time
from pathlib import Path

from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.link.reader import LeanConnection

WAYS = ("websockets recv", "LeanConnection")


class Counter:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.got = 0
        self.want = 0
        self.done = loop.create_future()

    def expect(self, count: int) -> asyncio.Future[None]:
        self.got, self.want = 0, count
        self.done = self.loop.create_future()
        return self.done

    def take(self, _data: bytes | str) -> bool:
        self.got += 1
        if self.got == self.want:
            self.done.set_result(None)
        return True


async def run(size: int, batch: int, rounds: int, gap: float) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    counters = {way: Counter(loop) for way in WAYS}
    opened: dict[str, ServerConnection] = {}

    async def handler(ws: ServerConnection) -> None:
        way = WAYS[0] if ws.request is not None and ws.request.path == "/ws" else WAYS[1]
        counter = counters[way]
        if way == WAYS[1]:
            assert isinstance(ws, LeanConnection)
            ws.sink = counter.take
        opened[way] = ws
        async for data in ws:  # the lean way: never a frame
            counter.take(data)

    frame = Frame(Opcode.BINARY, bytes(i % 251 for i in range(size))).serialize(
        mask=True, extensions=[]
    )
    go: dict[str, threading.Event] = {way: threading.Event() for way in WAYS}
    stop = threading.Event()
    best: dict[str, float] = {}

    async with serve(
        handler, "127.0.0.1", 0, compression=None, create_connection=LeanConnection
    ) as server:
        port = server.sockets[0].getsockname()[1]

        def client() -> None:
            paths = {WAYS[0]: "/ws", WAYS[1]: "/lean"}
            with contextlib.ExitStack() as stack:
                clients = {
                    way: stack.enter_context(
                        connect(f"ws://127.0.0.1:{port}{paths[way]}", compression=None)
                    )
                    for way in WAYS
                }
                while not stop.is_set():
                    for way in WAYS:
                        if go[way].wait(0.01):
                            go[way].clear()
                            sock = clients[way].socket
                            for _ in range(batch):
                                sock.sendall(frame)
                                time.sleep(gap)

        thread = threading.Thread(target=client, daemon=True)
        thread.start()
        while len(opened) < len(WAYS):
            await asyncio.sleep(0.01)
        for _ in range(rounds):
            for way in WAYS:
                done = counters[way].expect(batch)
                started = time.thread_time_ns()
                go[way].set()
                await done
                took = (time.thread_time_ns() - started) / batch / 1000
                best[way] = min(best.get(way, took), took)
        stop.set()
        thread.join()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20, help="payload bytes a frame")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gap", type=float, default=0.0002, help="seconds between frames")
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    best = asyncio.run(run(args.size, args.batch, args.rounds, args.gap))
    print(
        f"{args.size}-byte frames, least server CPU µs a frame received "
        f"({args.rounds} batches of {args.batch}):"
    )
    for name, us in best.items():
        print(f"  {name:24} {us:6.2f}")


if __name__ == "__main__":
    main()

"""Benchmark: a move through the server around the table core, in process.

What ``bench/fanout.py`` leaves out and ``bench/load.py`` cannot take apart
from the sockets: a player's frame read by the lean reader
(``LeanConnection._take``, unmasked, decoded and let in by ``Front._take``),
the table's inbox and actor (``Table._run``: the core, its effects carried
out, the save awaited in the memory store, the timer), then each message
encoded for its recipients as ``send_to_all`` does (the sockets are
stand-ins that count bytes). Four seats play the moves of whole random games
(``bench/fanout.py``'s ``play``), then the same moves are replayed through a
real ``Table`` on the event loop, one frame per loop iteration.

    valgrind --tool=callgrind python bench/actor.py --replays 1 --moves 600  # minus --replays 0

(instructions with 1 minus with 0) / moves is a move's cost, free of the
shared machine's noise; without valgrind it prints the bytes and versions seen.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fanout import SETTINGS, play
from protocol.codec import codec_for
from protocol.messages import Command, StartGame
from server.base.clock import Timer
from server.front.door import Front
from server.game.variant import VARIANTS
from server.link.guard import Bucket
from server.link.reader import LeanConnection
from server.store.memory import MemoryStore
from server.table import Act, Join, new_state
from server.table.actor import Table
from server.table.inbox import InboxItem, Stop

SUBPROTOCOL = "atout.v2.msgpack"
MASK = b"\x01\x02\x03\x04"


class StillClock:
    """The bench's clock: set per move, and timers that never fire (the
    replay puts each timer's ``Wake`` itself, as it was noted)."""

    def __init__(self) -> None:
        self.now = 1e6

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        return _Unfired()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)


class _Unfired:
    def cancel(self) -> None:
        pass


class Conn:
    """A connection as the front and the table use it; its socket counts bytes."""

    def __init__(self, name: str, clock: StillClock) -> None:
        self.id = f"c-{name}"
        self.name = name
        self.codec = codec_for(SUBPROTOCOL, Command)
        self.closed = False
        self.clock = clock
        self.bucket = Bucket(1000, 1000, clock.time())
        self.refused = 0
        self.heard_at = 0.0
        self.sent = 0

    def heard(self) -> bool:
        self.heard_at = now = self.clock.time()
        return self.bucket.take(now)

    def send_raw(self, data: bytes | str) -> None:
        self.sent += len(data)

    def send(self, msg: object) -> None:
        self.send_raw(self.codec.encode(msg))

    def close(self, code: int, reason: str) -> None:
        self.closed = True


class Home:
    """The tables' side of a table: nothing to do here."""

    def game_ends(self, mode: str) -> None:
        return None

    def table_changed(self, table: object, listing: object) -> None:
        pass

    def route(self, conn: object, table: object, here: bool, to_lobby: bool) -> None:
        pass

    def stepped_down(self, table: object) -> None:
        pass


class _Lobby:
    def __init__(self, table: Table) -> None:
        self.table = table

    def table_of(self, conn: object) -> Table:
        return self.table


class _Reader:
    """What ``LeanConnection._take`` reads of its connection."""

    class protocol:  # (as websockets names it)
        max_message_size = 1 << 20

    lean_frames = 0


def masked(payload: bytes) -> bytes:
    """A client's frame: binary, FIN, masked, short."""
    body = bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))
    return bytes([0x82, 0x80 | len(payload)]) + MASK + body


async def replay(script: list[Any], players: int) -> tuple[int, int]:
    """The moves of ``script`` through a real ``Table``; (its version, bytes sent)."""
    clock = StillClock()
    state = new_state(
        "t1", "CODE42", "bench", now=clock.now, private=True, deals=1000, bot_level="random",
        turn_timer=0.0, seed="c0", result_wait=0.0, variant=VARIANTS[players],
    )  # fmt: skip
    table = Table(state, MemoryStore(), SETTINGS, Home(), clock)
    front: Any = Front.__new__(Front)  # only its ``lobby`` is read on this path
    front.lobby = _Lobby(table)
    conns = [Conn(f"s{i}", clock) for i in range(players)]
    table.start()
    for i, c in enumerate(conns):
        table.inbox.put_nowait(Join(c, i, 1, token=f"tok{i}"))
    table.inbox.put_nowait(Act(conns[0], StartGame(rid=2)))
    await asyncio.sleep(0)
    encode = codec_for(SUBPROTOCOL, Command).encode
    frames: list[tuple[float, int | None, Any]] = []
    for now, msg in script:
        if isinstance(msg, tuple):
            data = encode(msg[1])
            assert isinstance(data, bytes)
            frames.append((now, msg[0], masked(data)))
        else:
            frames.append((now, None, msg))
    sinks = [_sink(front, c) for c in conns]
    reader: Any = _Reader()
    for now, seat, item in frames:
        clock.now = now
        if seat is None:
            table.inbox.put_nowait(item)
        else:
            LeanConnection._take(reader, item, sinks[seat])
        await asyncio.sleep(0)  # the table takes it in this loop iteration
    stop: InboxItem = Stop()
    table.inbox.put_nowait(stop)
    await asyncio.sleep(0)
    return table.core.state.version, sum(c.sent for c in conns)


def _sink(front: Any, conn: Conn) -> Callable[[bytes | str], bool]:
    return lambda data: Front._take(front, conn, data)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--replays", type=int, default=1)
    args = parser.parse_args()
    script: list[Any] = []
    play(args.players, args.moves, SUBPROTOCOL, "c0", script)
    try:
        import uvloop  # as the server runs

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    for _ in range(args.replays):
        version, sent = asyncio.run(replay(script, args.players))
        print(f"moves {len(script)}, table version {version}, bytes sent {sent}")


if __name__ == "__main__":
    main()

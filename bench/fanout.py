"""Benchmark: one move through the table core, in process, to the bytes of its messages.

What ``bench/load.py`` cannot separate from the sockets: ``TableCore.handle``
(the engine, the save's state, the views and patches) and the encoding of
every message it sends, for each recipient's codec, as ``server/link/conn.py``'s
``send_to_all`` does. Four seats at one table play whole random games
(``tests/support/clients.choose``, outside the timing); each move's handling
and encoding is timed with ``time.perf_counter_ns``.

    python bench/fanout.py [--players 4] [--moves 3000] [--rounds 5] [--protocol 2]
    python bench/fanout.py --profile   # cProfile of the timed part, top functions
    python bench/fanout.py --handle --moves 1500   # TableCore.handle alone, per card
    valgrind --tool=callgrind python bench/fanout.py --replays 1 --moves 600  # minus --replays 0

Prints the median over rounds of the mean µs per move (card plays and all
moves apart) and the bytes per card played for the four seats.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.codec import Codec, codec_for
from protocol.messages import Event, Play, StartGame
from server.base.config import Settings
from server.game.variant import VARIANTS
from server.table import Act, Join, TableCore, Wake, new_state
from server.table.effects import Arm, Effect, Send
from tests.support.clients import choose

HANDLE: list[int] = []
"""Of each move's time, the part in ``TableCore.handle`` (the rest: encoding)."""
SETTINGS = Settings(bot_think=0.5, grace=10.0, deal_pause=4.0, idle_close=900.0)


class Peer:
    def __init__(self, name: str, codec: Codec) -> None:
        self.id = f"p-{name}"
        self.name = name
        self.codec = codec


def _deliver(effects: list[Effect], arm: list[Arm]) -> int:
    """Encode every Send as ``send_to_all`` does (once per codec); the bytes."""
    size = 0
    for e in effects:
        if type(e) is Send:
            encoded: dict[int, Any] = {}
            for p in e.to:
                codec = p.codec  # type: ignore[attr-defined]
                data = encoded.get(id(codec))
                if data is None:
                    data = encoded[id(codec)] = codec.encode(e.message)
                size += len(data)
        elif type(e) is Arm and e.wake is not None:
            arm[:] = [e]
    return size


def _game_started(
    players: int, subprotocol: str, seed: str, now: float, arm: list[Arm]
) -> tuple[TableCore, list[Peer]]:
    """A private table of ``players`` seats, every seat taken, the game started:
    the same table for the same ``seed``, so that ``replay`` meets what ``play`` met."""
    state = new_state(
        "t1", "CODE42", "bench", now=now, private=True, deals=1000, bot_level="random",
        turn_timer=0.0, seed=seed, result_wait=0.0, variant=VARIANTS[players],
    )  # fmt: skip
    core = TableCore(state, SETTINGS)
    peers = [Peer(f"s{i}", codec_for(subprotocol, Event)) for i in range(players)]
    _deliver(core.start(now), arm)
    for i, p in enumerate(peers):
        _deliver(core.handle(Join(p, i, 1, token=f"tok{i}"), now), arm)
    _deliver(core.handle(Act(peers[0], StartGame(rid=2)), now), arm)
    return core, peers


def play(
    players: int, moves: int, subprotocol: str, seed: str, script: list[Any] | None = None
) -> tuple[list[int], list[int], int]:
    """Nanoseconds per card played, per other move, and bytes for the cards played.

    ``script``: the moves are noted in it as (time, message) pairs, a
    seat's command as (seat, command), for ``replay``."""
    arm: list[Arm] = []
    now = 1e6
    core, peers = _game_started(players, subprotocol, seed, now, arm)
    rng = random.Random(seed)
    cards: list[int] = []
    others: list[int] = []
    card_bytes = 0
    clock = time.thread_time_ns  # CPU time: a shared machine preempts us
    for _ in range(moves):
        now += 1.0
        game = core.game
        deal = game.deal if game is not None else None
        seat = deal.turn if deal is not None and core.state.status == "playing" else None
        if seat is not None and 0 <= seat < players:
            command = choose(core.view_for(seat), rng)
            msg: Any = Act(peers[seat], command)
        elif arm and isinstance(arm[0].wake, Wake):
            a = arm.pop()
            now = max(now, a.at or now)
            msg = a.wake
        else:
            break
        if script is not None:  # a seat's command by the seat's number
            script.append((now, (seat, msg.command) if isinstance(msg, Act) else msg))
        started = clock()
        effects = core.handle(msg, now)
        handled = clock()
        size = _deliver(effects, arm)
        took = clock() - started
        HANDLE.append(handled - started)
        if isinstance(getattr(msg, "command", None), Play):
            cards.append(took)
            card_bytes += size
        else:
            others.append(took)
    return cards, others, card_bytes


def replay(
    players: int, subprotocol: str, seed: str, script: list[Any], took: list[int] | None = None
) -> None:
    """The moves ``play`` noted, again from the start, with nothing else
    (no choosing): what an instruction count should see. ``took``: the CPU
    nanoseconds of each move's ``TableCore.handle`` (encoding excluded)."""
    arm: list[Arm] = []
    core, peers = _game_started(players, subprotocol, seed, 1e6, arm)
    clock = time.thread_time_ns
    for now, msg in script:
        if isinstance(msg, tuple):
            msg = Act(peers[msg[0]], msg[1])
        started = clock()
        effects = core.handle(msg, now)
        if took is not None:
            took.append(clock() - started)
        _deliver(effects, arm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--protocol", default="2", choices=("1", "2"))
    parser.add_argument("--json", action="store_true", help="JSON clients, not MessagePack")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--handle",
        action="store_true",
        help="replay --moves --rounds times: the CPU time of TableCore.handle alone per card",
    )
    parser.add_argument(
        "--replays",
        type=int,
        default=-1,
        help="play --moves once, then replay them this many times, and print nothing:"
        " under valgrind --tool=callgrind, (instructions with 1 - with 0) / moves"
        " is a move's cost, free of the shared machine's noise",
    )
    args = parser.parse_args()
    subprotocol = f"atout.v{args.protocol}.{'json' if args.json else 'msgpack'}"
    script: list[Any] = []
    if args.handle:
        play(args.players, args.moves, subprotocol, "c0", script)
        best: list[int] = []
        for _ in range(args.rounds):
            took: list[int] = []
            gc.disable()  # a collection is no move's own cost
            replay(args.players, subprotocol, "c0", script, took)
            gc.enable()
            best = took if not best else [min(a, b) for a, b in zip(best, took, strict=True)]
        played = [
            t
            for (_, m), t in zip(script, best, strict=True)
            if isinstance(m, tuple) and isinstance(m[1], Play)
        ]
        print(
            "TableCore.handle of a card played, us (median over"
            f" {len(played)} cards of the min of {args.rounds} replays):"
            f" {statistics.median(played) / 1000:.1f}"
        )
        return
    if args.replays >= 0:
        play(args.players, args.moves, subprotocol, "c0", script)
        for _ in range(args.replays):
            replay(args.players, subprotocol, "c0", script)
        print(f"moves: {len(script)}")
        return
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        play(args.players, args.moves, subprotocol, "p0")
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    card_us: list[float] = []
    cards: list[int] = []
    others: list[int] = []
    other_us: list[float] = []
    per_card: list[float] = []
    for r in range(args.rounds):
        HANDLE.clear()
        cards, others, size = play(args.players, args.moves, subprotocol, f"r{r}")
        card_us.append(statistics.fmean(cards) / 1000)
        other_us.append(statistics.fmean(others) / 1000)
        per_card.append(size / len(cards))
    print(f"protocol: {subprotocol}, players {args.players}, {args.moves} moves x {args.rounds}")
    print(f"card played, us (median of round means): {statistics.median(card_us):.1f}")
    print(f"other moves, us (median of round means): {statistics.median(other_us):.1f}")
    share = 100 * sum(HANDLE) / (sum(cards) + sum(others))
    print(f"of all moves' time, in TableCore.handle (last round): {share:.0f}%")
    print(f"bytes per card played, all seats: {statistics.median(per_card):.1f}")


if __name__ == "__main__":
    main()

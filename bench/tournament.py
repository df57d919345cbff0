"""Benchmark: a tournament of scripted players, start to finish.

``--players`` scripted clients (``tests/support/tournaments.py``: real
sessions with player keys, random legal moves) join one tournament on a
server process of its own (on a throwaway Redis, as in production: the
tournament and its tables are stored), the host starts it, and every
player follows the rounds: sits at the table its view gives, plays it out,
waits for the next round.

Measured, for each round after the first:
- ``server_s``: from the last table of the round before telling its end to
  every table of the new round opened (each is dealt as it opens), read from
  the server's own log (``tournament_table_done`` / ``tournament_table_opened``);
- ``told_s``: from the last player seeing its table finished to the last
  player holding the new round's view; ``seated_s``: to the last player
  seated at its new table with its cards.
Then the standings are checked against a computation of our own from the
exported deal records (every record scored again by ``replay_record``).

Run from anywhere: ``python bench/tournament.py [--players 40] [--rounds 3]
[--deals 2] [--format free|duplicate]``. Prints ``name: value`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

# Runnable as a plain script: the project and its tests folder from the root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common.procfs import proc_cpu, proc_wait
from protocol.messages import Tournament, TournamentCreate, TournamentJoin, TournamentStart
from protocol.tournaments import TournamentSettings
from tests.support.clients import autoplay, finished
from tests.support.processes import Proc
from tests.support.redis import RedisServer
from tests.support.tournaments import Entrant, fetch, reference_scores


class Timed(Entrant):
    """An ``Entrant`` that notes when each round reached it."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.finished_at: dict[int, float] = {}
        """Round -> when this player saw its table of that round finished."""
        self.told_at: dict[int, float] = {}
        """Round -> when this player first held that round's view."""
        self.seated_at: dict[int, float] = {}

    def _heard(self, msg: Any) -> None:
        if isinstance(msg, Tournament):
            self.told_at.setdefault(msg.view.round, time.perf_counter())
        super()._heard(msg)

    async def follow(self, rng: random.Random) -> None:
        while True:
            view = await self.until(
                lambda v: (
                    v.status == "finished"
                    or (v.your_table is not None and v.your_table not in self.played)
                ),
                timeout=600,
            )
            if view.your_table is None or view.your_table in self.played:
                return
            await self.sit(view.your_table)
            await self.session.wait_view(lambda v: v.deal is not None)
            self.seated_at[view.round] = time.perf_counter()
            await autoplay(self.session, rng, finished, timeout=600)
            self.finished_at[view.round] = time.perf_counter()
            self.played.append(view.your_table)


def server_transitions(log: Path, code: str) -> dict[int, float]:
    """Round -> seconds from the previous round's last table end to its last table opened."""
    done: dict[int, float] = {}
    opened: dict[int, float] = {}
    for line in log.read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("code") != code:
            continue
        at = datetime.fromisoformat(event["timestamp"]).timestamp()
        if event.get("event") == "tournament_table_done":
            done[event["round"]] = max(done.get(event["round"], 0.0), at)
        elif event.get("event") == "tournament_table_opened":
            opened[event["round"]] = max(opened.get(event["round"], 0.0), at)
    return {r: opened[r] - done[r - 1] for r in opened if r - 1 in done}


async def run(args: argparse.Namespace) -> None:
    with RedisServer() as redis, tempfile.TemporaryDirectory() as logs:
        proc = Proc(redis.url, "--log-level", "info").start(Path(logs))
        assert proc.proc is not None and proc.log_path is not None
        pid = proc.proc.pid
        try:
            names = [f"P{k:02d}" for k in range(args.players)]
            players = [await Timed.open(proc.url, n) for n in names]
            host = players[0]
            settings = TournamentSettings(
                name="Bench", rounds=args.rounds, deals=args.deals, format=args.format
            )
            code = (await host.ask(TournamentCreate(settings=settings))).view.code
            for p in players:
                await p.ask(TournamentJoin(code=code))
            cpu0, wait0, t0 = proc_cpu(pid), proc_wait(pid), time.perf_counter()
            started = await host.ask(TournamentStart(code=code))
            sizes = [t.players for t in started.view.tables]
            await asyncio.gather(*(p.follow(random.Random(k)) for k, p in enumerate(players)))
            wall = time.perf_counter() - t0
            cpu, wait = proc_cpu(pid) - cpu0, proc_wait(pid) - wait0
            final = await host.until(lambda v: v.status == "finished")
            _, _, body = await asyncio.to_thread(fetch, proc.port, f"/tournaments/{code}.json")
            export = json.loads(body)
            reference = reference_scores(export, args.format)
            shown = {x.player_id: x.score for x in final.standings}
            match = set(shown) == set(reference) and all(
                abs(shown[p] - s) <= 0.011 for p, s in reference.items()
            )
            server = server_transitions(proc.log_path, code)
            print(f"players: {args.players}")
            print(f"rounds: {args.rounds}")
            print(f"deals_per_round: {args.deals}")
            print(f"format: {args.format}")
            print(f"tables_round_1: {sizes}")
            for r in range(2, args.rounds + 1):
                last_end = max(p.finished_at[r - 1] for p in players)
                told = max(p.told_at[r] for p in players) - last_end
                seated = max(p.seated_at[r] for p in players) - last_end
                print(f"round_{r}_server_s: {server.get(r, float('nan')):.4f}")
                print(f"round_{r}_told_s: {told:.4f}")
                print(f"round_{r}_seated_s: {seated:.4f}")
            print(f"wall_s: {wall:.2f}")
            print(f"server_cpu_s: {cpu:.2f}")
            print(f"server_waited_for_core_s: {wait:.2f}")
            print(f"standings_lines: {len(final.standings)}")
            print(f"standings_match_reference: {str(match).lower()}")
            await asyncio.gather(*(p.close() for p in players))
        finally:
            proc.stop()
    if not match:
        raise SystemExit("standings differ from the reference computation")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=40)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--format", choices=("free", "duplicate"), default="free")
    args = p.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()

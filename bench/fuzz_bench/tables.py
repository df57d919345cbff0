"""The tables campaign: episodes of one private table, four players and two
spectators sending random commands over real WebSockets, every step checked."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import sys
import time
from typing import Any

from bench.common.views import random_ecart
from bench.fuzz_bench.inputs import BIDS
from bench.fuzz_bench.players import Player
from bench.fuzz_bench.settings import table_settings
from bench.fuzz_bench.table_checks import (
    cards_conserved,
    cards_in,
    changed_keys,
    core_of,
    fresh_doc,
    hidden_from,
    seqs_of,
    state_of,
)
from bench.fuzz_bench.tally import BUG_CODES, ERROR_CODES, BugLog, Tally, quiet_logs
from protocol.cards import CODES
from server.process.app import Server
from server.table import TableCore, Wake
from server.table.actor import Table


class Episode:
    """One table, four players, two spectators, ``steps`` random steps."""

    def __init__(self, server: Server | None, rng: random.Random, tally: Tally, label: str) -> None:
        self.server = server
        self.rng = rng
        self.tally = tally
        self.label = label
        kinds = ["msgpack", "json", "v2.msgpack", "v2.json"]
        rng.shuffle(kinds)
        self.players = [Player(f"P{i}", kinds[i], i) for i in range(4)]
        self.spectators = [Player("S0", "v2.msgpack", None), Player("S1", "json", None)]
        self.table: Table | TableCore | None = None
        self.accepted: list[tuple[Player, dict[str, Any]]] = []
        self.step_no = 0
        self.bugs: BugLog | None = None

    @property
    def everyone(self) -> list[Player]:
        return self.players + self.spectators

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    async def deal_timer(self) -> None:
        """The deal pause is over: the table's timer fires."""
        assert isinstance(self.table, Table)
        self.table.inbox.put_nowait(Wake("deal", self.table.core.state.version))

    async def setup(self) -> None:
        assert self.server is not None
        port = self.port
        for p in self.everyone:
            await p.connect(port)
        creator = self.players[0]
        seated = await creator.ask(
            {
                "t": "create",
                "private": True,
                "deals": self.rng.choice([1, 2, 3]),
                "seed": f"fuzz-{self.label}",
                "bot_level": "random",
            }
        )
        assert seated["t"] == "seated", seated
        creator.token = seated["token"]
        table_id = seated["table_id"]
        self.table = self.server.lobby.tables[table_id]
        for p in self.players[1:]:
            seated = await p.ask({"t": "join", "table_id": table_id, "seat": p.seat})
            assert seated["t"] == "seated", seated
            p.token = seated["token"]
        for s in self.spectators:
            seated = await s.ask({"t": "watch", "table_id": table_id})
            assert seated["t"] == "seated", seated
        await creator.send({"t": "start"})
        await self.sync(creator)

    async def close(self) -> None:
        for p in self.everyone:
            await p.drop()

    async def sync(self, via: Player) -> None:
        """Wait until every message the step caused has reached every client.

        ``history`` is handled by the table after everything queued before
        it, and the table writes a broadcast to every socket before it reads
        its next message; a ``ping`` on each other connection, sent after
        that, comes back behind the broadcast's frames.
        """
        await via.ask({"t": "history"})
        await asyncio.gather(*(p.ask({"t": "ping"}) for p in self.everyone if p is not via))

    # -- the steps ---------------------------------------------------------------

    def on_turn(self) -> Player | None:
        doc = self.players[0].doc
        deal = doc and doc.get("deal")
        turn = deal.get("turn") if deal else None
        return self.players[turn] if isinstance(turn, int) else None

    def legal_move(self, p: Player) -> dict[str, Any] | None:
        legal = p.doc and p.doc.get("legal")
        if not legal or p.doc.get("status") != "playing":
            return None
        rng = self.rng
        if legal["bids"]:
            return {"t": "bid", "bid": rng.choice(legal["bids"])}
        if legal["ecart"]:
            return {"t": "ecart", "cards": random_ecart(legal, rng)}
        if legal["chelem"]:
            return {"t": "chelem", "declare": rng.random() < 0.1}
        if legal["poignee_sizes"] and rng.random() < 0.3:
            size = legal["poignee_sizes"][0]
            cards = [c for c in legal["poignee_cards"] if c != "EX"]
            cards = cards[:size] if len(cards) >= size else [*cards, "EX"][:size]
            return {"t": "poignee", "cards": cards}
        if legal["cards"]:
            return {"t": "play", "card": rng.choice(legal["cards"])}
        return None

    def random_command(self, p: Player) -> dict[str, Any]:
        rng = self.rng
        hand = (p.doc or {}).get("hand") or list(CODES)
        k = rng.randrange(7)
        if k == 0:
            return {"t": "bid", "bid": rng.choice([*BIDS, "GARDE", ""])}
        if k == 1:
            return {"t": "play", "card": rng.choice([*hand, *CODES, "ZZ", "ks"])}
        if k == 2:
            n = rng.choice([5, 6, 6, 7])
            return {"t": "ecart", "cards": rng.sample(hand, min(n, len(hand)))}
        if k == 3:
            return {"t": "chelem", "declare": rng.random() < 0.5}
        if k == 4:
            n = rng.choice([9, 10, 13, 15])
            pool = [c for c in hand if c[0] == "T" or c == "EX"] or hand
            return {"t": "poignee", "cards": rng.sample(pool, min(n, len(pool)))}
        if k == 5:
            return {"t": rng.choice(["start", "again"])}
        return {"t": "chat", "text": rng.choice(["gg", "", " ", "x" * 201, "bien joué", "y" * 200])}

    async def step(self) -> None:
        assert self.table is not None
        self.step_no += 1
        rng = self.rng
        for p in self.everyone:
            p.got.clear()
            if rng.random() < 0.02 and p.doc is not None:
                p.saved = (p.seq, copy.deepcopy(p.doc))
        table = self.table
        before, seqs = state_of(table), seqs_of(table)
        r = rng.random()
        turn = self.on_turn()
        what = ""
        via = self.players[0]
        answer: Any = None
        if core_of(table).state.status == "between_deals" and r < 0.5:
            what = "deal_timer"
            await self.deal_timer()
        elif r < 0.45 and turn is not None and (move := self.legal_move(turn)):
            what, via = "legal", turn
            answer = await self.command(turn, move)
        elif r < 0.55:
            others = [p for p in self.players if p is not turn and p.doc and p.doc.get("hand")]
            if others:
                via = rng.choice(others)
                what = "out_of_turn"
                answer = await self.command(via, {"t": "play", "card": rng.choice(via.doc["hand"])})
        elif r < 0.70:
            via = rng.choice(self.everyone)
            what = "random"
            answer = await self.command(via, self.random_command(via))
        elif r < 0.76 and self.accepted:
            via, cmd = rng.choice(self.accepted[-40:])
            what = "stale"
            answer = await self.command(via, cmd)
        elif r < 0.82:
            via = rng.choice(self.players)
            what = "resume"
            await self.resume(via)
        elif r < 0.85:
            via = rng.choice(self.everyone)
            what = "bad_resume"
            token = rng.choice(
                [
                    f"{table.id}.{rng.randbytes(18).hex()}",
                    "nothing",
                    f"{table.id}.",
                    (self.players[0].token or "") + "x",
                ]
            )
            answer = await self.command(via, {"t": "resume", "token": token, "last_seq": 0})
        elif r < 0.89:
            via = rng.choice(self.everyone)
            what = "snapshot"
            await via.send({"t": "snapshot"})
        elif r < 0.92:
            via = rng.choice(self.spectators)
            what = "rewatch"
            await via.drop()
            await via.connect(self.port)
            await via.ask({"t": "watch", "table_id": table.id})
        else:
            via = rng.choice(self.everyone)
            what = "history"
        if not what:
            what = "history"
        if answer is None and what not in ("legal", "out_of_turn", "random", "stale"):
            await self.sync(via)  # (a command step synced already)
        self.check(what, via, answer, before, seqs)

    async def command(self, p: Player, cmd: dict[str, Any]) -> Any:
        rid = await p.send(cmd)
        # The answer to a refused command is an error with its rid; an
        # accepted one has none: the sync that follows tells them apart.
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        p.pongs[rid] = fut
        await self.sync(p)
        p.pongs.pop(rid, None)
        answer = fut.result() if fut.done() else None
        if answer is None:
            self.accepted.append((p, cmd))
            del self.accepted[:-200]
        return answer

    async def resume(self, p: Player) -> None:
        """Drop the connection, reconnect, resume with a view it holds (or none)."""
        assert self.table is not None
        await p.drop()
        stream = core_of(self.table).fan.streams[p.seat] if p.seat is not None else None
        for _ in range(500):
            if stream is None or stream.peer is None:
                break
            await asyncio.sleep(0.001)
        choice = self.rng.random()
        if choice < 0.4 and p.doc is not None:
            last_seq = p.seq
        elif choice < 0.7 and p.saved is not None:
            p.seq, p.doc = p.saved[0], copy.deepcopy(p.saved[1])
            last_seq = p.seq
        else:
            p.doc, p.seq, last_seq = None, -1, -1
        await p.connect(self.port)
        seated = await p.ask({"t": "resume", "token": p.token, "last_seq": last_seq})
        if seated["t"] != "seated":
            self.fail("resume refused", answer=seated)

    def fail(self, what: str, **detail: Any) -> None:
        self.tally.fail(what, episode=self.label, step=self.step_no, **detail)

    def check(
        self, what: str, via: Player, answer: Any, before: dict[str, Any], seqs: list[int]
    ) -> None:
        assert self.table is not None
        table = self.table
        self.tally.inputs += 1
        self.tally.outcomes[what] += 1
        if answer is not None:
            code = answer.get("code")
            self.tally.errors[str(code)] += 1
            if answer["t"] != "error" or code not in ERROR_CODES or code in BUG_CODES:
                self.fail("bad answer", step_kind=what, answer=answer)
            elif (after := state_of(table)) != before or seqs_of(table) != seqs:
                self.fail(
                    "a refused command changed the table",
                    step_kind=what,
                    code=code,
                    changed=changed_keys(before, after),
                    seqs=(seqs, seqs_of(table)),
                )
            else:
                sent = [m for p in self.everyone for m in p.got if m["t"] in ("table", "tpatch")]
                if sent:
                    self.fail("a refused command sent views", step_kind=what, code=code)
        for p in self.everyone:
            for m in p.got:
                if m["t"] == "error" and m.get("code") in BUG_CODES:
                    self.fail("internal error", player=p.name, message=m)
            if p.problems:
                self.fail("stream broken", player=p.name, problems=p.problems[:3])
                p.problems.clear()
        if problem := cards_conserved(table):
            self.fail("cards not conserved", problem=problem)
        for p in self.everyone:
            if p.doc is None:
                self.fail("no view", player=p.name)
                continue
            leaked = cards_in(p.doc) & hidden_from(table, p.seat)
            if leaked:
                self.fail("view holds hidden cards", player=p.name, cards=sorted(leaked))
            fresh = fresh_doc(table, p.seat, p.kind)
            if p.doc != fresh:
                self.fail("patched view differs from a fresh one", player=p.name, step_kind=what)
                p.doc = fresh
        if self.bugs is not None:
            for bug in self.bugs.take():
                self.fail("server logged a bug", log=bug)


async def run_tables(
    runs: int, seed: int, steps: int, max_time: float, stop_on_failure: bool
) -> Tally:
    tally = Tally()
    bugs = quiet_logs()
    server = Server(table_settings())
    await server.start()
    rng = random.Random(seed)
    deadline = time.monotonic() + max_time
    episode_no = 0
    try:
        while tally.inputs < runs and time.monotonic() < deadline:
            episode_no += 1
            label = f"{seed}-{episode_no}"
            ep = Episode(server, random.Random(f"{seed}/{episode_no}"), tally, label)
            ep.bugs = bugs
            try:
                await ep.setup()
                for _ in range(min(steps, runs - tally.inputs)):
                    await ep.step()
                    if stop_on_failure and tally.outcomes["FAILURE"]:
                        return tally
            finally:
                await ep.close()
            if episode_no % 20 == 0:
                # Old tables wait for the idle sweep; start afresh now and then.
                await server.stop()
                server = Server(table_settings())
                await server.start()
            if tally.inputs // 50_000 != (tally.inputs - steps) // 50_000:
                print(json.dumps(tally.report()), file=sys.stderr, flush=True)
        _ = rng
    finally:
        await server.stop()
    return tally

"""The client side of failover: clients that take their seat back on
another server when theirs dies, tables that keep when their views moved on
(and whether one went back), and the client process that reports both."""

from __future__ import annotations

import asyncio
from typing import Any

from bench.load_bench.table_clients import PERF, Client, ClientProcess, TableRun
from bench.load_bench.worker import Worker

RESUME_RID = 4


class ResumingClient(Client):
    """A client that takes its seat back on another server when its own dies."""

    def __init__(self, run: TableRun, idx: int) -> None:
        super().__init__(run, idx)
        self.token: str | None = None
        self.moved = 0  # reconnections: each goes to the next server

    def url(self) -> str:
        urls = self.run.worker.urls
        return urls[(self.run.number + self.idx + self.moved) % len(urls)]

    def take(self, msg: Any) -> None:
        # Version 2 sends table patches as arrays: only maps carry a "t".
        t = msg.get("t") if type(msg) is dict else None
        if t == "seated":
            self.token = msg.get("token") or self.token
            if self.resuming:
                # Back in the seat. A move this client sent to the dead server
                # was never made (nobody saw it): forget it, the view decides.
                self.resuming = False
                self.run.pending.clear()
                self.run.sent_at = None
                self.run.owed = True
        elif t == "error" and msg.get("rid") == RESUME_RID and self.resuming:
            # Not yet (the table's old owner still holds its lease): ask again.
            self.run.worker.count(f"resume_again:{msg.get('code')}")
            loop = asyncio.get_running_loop()
            self.run.worker.tasks.add(loop.create_task(self.ask_seat(delay=0.25)))
            return
        super().take(msg)

    async def ask_seat(self, delay: float = 0.0) -> None:
        if delay:
            await asyncio.sleep(delay)
        if not self.closed:
            self.send({"t": "resume", "rid": RESUME_RID, "token": self.token, "last_seq": self.seq})

    def gone(self, exc: BaseException | None) -> None:
        super().gone(exc)
        w = self.run.worker
        if not w.quitting and self.token is not None:
            w.tasks.add(asyncio.get_running_loop().create_task(self.reconnect()))

    async def reconnect(self) -> None:
        w = self.run.worker
        # Not asked to move until the resume is answered: a move sent before
        # would be refused (not_at_table), as the terminal client never does.
        self.resuming = True
        for attempt in range(50):
            self.moved += 1
            self.closed, self.welcomed = False, False
            try:
                await self.open()
                await self.ask_seat()
                w.count("resumed")
                return
            except Exception:
                self.closed = True
                await asyncio.sleep(min(0.1 * (attempt + 1), 1.0))
        w.count("resume_failed")


class TimedTable(TableRun):
    """Keeps when its clients' views moved on, and whether one went back."""

    def __init__(self, worker: ClientProcess, number: int) -> None:
        super().__init__(worker, number)
        self.progress_times: list[float] = []
        self.best: Any = None  # the furthest progress any client saw
        self.went_back = 0
        self.back: list[list[Any]] = []
        """Each view that went back: when, which client, from where to where."""

    def on_update(self, client: Client) -> None:
        # Client counts a view that goes back as a new game; a game of
        # 40 deals never ends in a run, so here it is a lost move.
        progress = client.progress
        if client.game > 0:
            self.went_back += client.game
            self.back.append(
                [PERF(), client.idx, list(self.best or ()), list(progress[1:]), client.seq]
            )
            client.game = 0
            progress = client.progress = (0, *progress[1:])
        if self.best is None or progress > self.best:
            self.best = progress
            self.progress_times.append(PERF())
        super().on_update(client)


class FailoverWorker(Worker):
    client_class = ResumingClient
    table_class = TimedTable

    async def other_command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        if cmd["cmd"] == "since":
            # Per table: its id, the first move seen after ``at``, and the
            # views that went back so far.
            at = cmd["at"]
            out = []
            for t in self.tables:
                host = t.clients[0]
                if not isinstance(t, TimedTable) or host.doc is None:
                    continue
                first = next((x for x in t.progress_times if x > at), None)
                out.append([host.doc["table_id"], first, t.went_back])
            back = [
                [t.clients[0].doc["table_id"], *b]
                for t in self.tables
                if isinstance(t, TimedTable) and t.clients[0].doc is not None
                for b in t.back
                if b[0] > at
            ]
            return {"tables": out, "back": back, "errors": dict(self.errors)}
        return await super().other_command(cmd)

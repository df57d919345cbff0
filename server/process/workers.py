"""``atout-server --workers N``: N server processes on one port, and the small
supervisor that keeps them running.

Each worker is a whole server (``server.process.app``) listening with SO_REUSEPORT,
so the kernel deals new connections among them; with Redis they are one
service (docs/DEPLOY.md, "Scaling"). The supervisor forks them before any
event loop exists and then only watches:

- SIGTERM / SIGINT are passed on to every worker, and the supervisor waits
  for them: each saves its tables and says goodbye as a lone server does.
- A worker that dies unexpectedly is started again after a pause that
  doubles while it keeps dying young (``BACKOFF_S``), each death logged.
- Each start of a worker gets its id in the service (``Node.proc``), drawn
  here; a worker started again is told the ids of those it replaces, which
  the supervisor saw die (reaped): it frees their leases as it joins, and
  its scan at start claims their tables at once, instead of a lease later
  (docs/CLUSTER.md, "A reaped worker").
- A mistake that stops the first workers from starting (the port is taken,
  Redis does not answer) is the same one line a lone server prints, once,
  with its exit status. A worker that keeps dying young (once more after the
  longest pause) stops everything: exit 1, one line saying so.

``multiprocessing`` (fork) rather than raw ``os.fork``: it gives each worker a
sentinel to wait on and a pipe to report on, and the exit status of
``sys.exit`` in the child, without code of our own for either.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import multiprocessing
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

import structlog

from server.base.config import Settings
from server.process import app, collector, logs

log = structlog.get_logger()

STABLE_S = 30.0
"""A worker that ran this long before dying is not "dying young": its next
restart waits the shortest pause again."""
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Pause before restarting a worker that died young the 1st, 2nd... time in a row."""
"""After one more death in a row, each young, the supervisor stops everything."""

Explain = Callable[[Settings, app.CannotStart], str]
"""The one line that says why a server could not start (``server.__main__``)."""


class GaveUp(Exception):
    """The workers could not be kept running: ``message`` (one line) and ``status``."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


# --- a worker ------------------------------------------------------------------------


class Worker(app.Server):
    """A server that says which worker it is in ``/healthz``."""

    def __init__(self, settings: Settings, number: int, proc: str, reaped: tuple[str, ...]) -> None:
        super().__init__(settings)
        self.number = number
        self.proc, self.reaped = proc, reaped

    def health(self) -> dict[str, Any]:
        return {**super().health(), "worker": self.number, "pid": os.getpid(), "proc": self.proc}


def _stamp_logs(number: int) -> None:
    """Every log line of this worker names it (``worker``, ``pid``), and goes
    out in one write: the workers share stderr, and ``print`` writes a line
    and its newline apart when Python's output is unbuffered, so two
    workers' lines could be spliced."""
    pid = os.getpid()

    def stamp(_logger: Any, _method: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
        event.setdefault("worker", number)
        event.setdefault("pid", pid)
        return event

    processors = list(structlog.get_config()["processors"])
    structlog.configure(
        processors=[stamp, *processors], logger_factory=structlog.WriteLoggerFactory(sys.stderr)
    )


async def _serve(worker: Worker, report: Connection) -> None:
    await app.run(worker.settings, worker, lambda: report.send(("serving",)))


def _work(
    settings: Settings,
    number: int,
    report: Connection,
    explain: Explain,
    proc: str,
    reaped: tuple[str, ...],
) -> None:
    """A worker process's life (the target of its ``multiprocessing.Process``).

    ``proc`` is its id in the service; ``reaped`` the ids of the workers it
    replaces, dead for sure: their leases are freed as it joins."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the supervisor's handlers
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # If the supervisor is killed outright, its workers stop cleanly rather
    # than keep the port as orphans (Linux: PR_SET_PDEATHSIG).
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    logs.configure(settings.log_format, settings.log_level)
    _stamp_logs(number)
    collector.tune_gc()
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    try:
        asyncio.run(_serve(Worker(settings, number, proc, reaped), report))
    except app.CannotStart as exc:
        # Told to the supervisor, not printed: N workers failing alike make
        # one line, as a lone server's would.
        report.send(("failed", 1, explain(settings, exc)))
        sys.exit(1)
    except KeyboardInterrupt:  # Ctrl-C before it was up: nothing to save
        sys.exit(130)


# --- the supervisor -------------------------------------------------------------------


@dataclass
class _Slot:
    """One worker's place: the process in it now, and its recent deaths."""

    number: int
    process: BaseProcess | None = None
    proc: str = ""
    """The id in the service (``Node.proc``) of the worker in it now."""
    reaped: list[str] = field(default_factory=list)
    """Ids of its workers that died since one last served: the next start
    frees their leases (a start that fails before serving passes them on)."""
    report: Connection | None = None
    started: float = 0.0
    serving: bool = False
    failure: tuple[int, str] | None = None  # (status, line) it could not start with
    ever_served: bool = False
    young_deaths: int = 0
    restart_at: float | None = None
    exits: list[int | None] = field(default_factory=list)


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"killed by signal {signal.Signals(-exitcode).name}"
    return f"exit status {exitcode}"


class Supervisor:
    def __init__(
        self, settings: Settings, explain: Explain, backoff: tuple[float, ...] = BACKOFF_S
    ) -> None:
        self.settings = settings
        self.explain = explain
        self.backoff = backoff  # tests shorten it
        self.give_up_after = len(backoff) + 1
        self.context = multiprocessing.get_context("fork")
        self.slots = [_Slot(n) for n in range(settings.workers)]
        self.stopping = False
        self.pid = os.getpid()

    def start(self, slot: _Slot) -> None:
        receive, send = self.context.Pipe(duplex=False)
        # Drawn anew for each start: a worker started again is a new process
        # in the service, and the old id stays the dead one's.
        slot.proc = secrets.token_hex(4)
        process = self.context.Process(
            target=_work,
            args=(self.settings, slot.number, send, self.explain, slot.proc, tuple(slot.reaped)),
            name=f"atout-worker-{slot.number}",
        )
        process.start()
        send.close()  # the worker holds the other copy
        slot.process, slot.report = process, receive
        slot.started, slot.serving = time.monotonic(), False
        slot.failure, slot.restart_at = None, None
        if slot.exits:  # the first start says nothing: the worker logs "serving" (or fails)
            log.info(
                "worker_started",
                worker=slot.number,
                pid=process.pid,
                proc=slot.proc,
                reaped=slot.reaped,
            )

    def signal_all(self, sig: int) -> None:
        for slot in self.slots:
            if slot.process is not None and slot.process.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.process.pid or 0, sig)

    def on_signal(self, sig: int, _frame: Any) -> None:
        if os.getpid() != self.pid:  # a worker between fork and its own handlers
            return
        if not self.stopping:
            log.info("stopping_workers", signal=signal.Signals(sig).name)
        self.stopping = True
        for slot in self.slots:
            slot.restart_at = None
        self.signal_all(sig)

    def read_report(self, slot: _Slot) -> None:
        assert slot.report is not None
        with contextlib.suppress(EOFError, OSError):
            while slot.report.poll():
                message = slot.report.recv()
                if message[0] == "serving":
                    slot.serving = slot.ever_served = True
                    slot.reaped = []  # it freed their leases before serving
                elif message[0] == "failed":
                    slot.failure = (message[1], message[2])

    def on_exit(self, slot: _Slot) -> None:
        """``slot``'s worker is gone: note why, and plan its restart if it should run."""
        assert slot.process is not None and slot.report is not None
        self.read_report(slot)
        process, exitcode = slot.process, slot.process.exitcode
        slot.report.close()
        slot.process, slot.report = None, None
        slot.exits.append(exitcode)
        # Joined (reaped): it sends nothing more, to Redis or anyone. Only a
        # child seen to exit is ever declared dead; never one that is slow.
        slot.reaped.append(slot.proc)
        if self.stopping:
            if exitcode != 0:
                log.warning(
                    "worker_stopped", worker=slot.number, pid=process.pid, how=_death(exitcode)
                )
            return
        if slot.failure is not None and not slot.ever_served:
            # The first start of this worker failed: a mistake in the settings
            # or a machine that says no, not a crash. Starting again changes nothing.
            raise GaveUp(slot.failure[1], slot.failure[0])
        lived = time.monotonic() - slot.started
        slot.young_deaths = slot.young_deaths + 1 if lived < STABLE_S else 1
        log.error(
            "worker_died",
            worker=slot.number,
            pid=process.pid,
            proc=slot.proc,
            how=_death(exitcode),
            after_s=round(lived, 1),
            deaths_in_a_row=slot.young_deaths,
            reason=slot.failure[1] if slot.failure else None,
        )
        if slot.young_deaths >= self.give_up_after:
            raise GaveUp(
                f"worker {slot.number} died {slot.young_deaths} times in a row, each within "
                f"{STABLE_S:.0f} s of its start (last: {_death(exitcode)}"
                + (f": {slot.failure[1]}" if slot.failure else "")
                + "); stopped every worker: see the log above",
                1,
            )
        pause = self.backoff[slot.young_deaths - 1]
        slot.restart_at = time.monotonic() + pause
        log.warning("worker_restarting", worker=slot.number, in_s=pause)

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.on_signal)
        try:
            for slot in self.slots:
                self.start(slot)
            self.watch()
        except GaveUp:
            self.stop_all()
            raise
        statuses = [code for slot in self.slots for code in slot.exits[-1:]]
        log.info("workers_stopped", exits=statuses)
        return 0 if all(code == 0 for code in statuses) else 1

    def watch(self) -> None:
        while True:
            running = {s.process.sentinel: s for s in self.slots if s.process is not None}
            reports = [s.report for s in self.slots if s.report is not None and not s.serving]
            pending = [s.restart_at for s in self.slots if s.restart_at is not None]
            if not running and not pending:
                return
            timeout = max(0.0, min(pending) - time.monotonic()) if pending else None
            for ready in wait([*running, *reports], timeout):  # a signal runs meanwhile
                if isinstance(ready, int):
                    slot = running[ready]
                    assert slot.process is not None
                    slot.process.join()
                    self.on_exit(slot)
                else:  # (its worker may have been seen to exit just before)
                    for s in self.slots:
                        if s.report is ready:
                            self.read_report(s)
            now = time.monotonic()
            for slot in self.slots:
                if slot.restart_at is not None and slot.restart_at <= now and not self.stopping:
                    self.start(slot)

    def stop_all(self) -> None:
        """After giving up: stop the workers still running, and wait for them."""
        self.stopping = True
        self.signal_all(signal.SIGTERM)
        for slot in self.slots:
            if slot.process is not None:
                slot.process.join()


def supervise(settings: Settings, explain: Explain, backoff: tuple[float, ...] = BACKOFF_S) -> int:
    """Run ``settings.workers`` workers until SIGTERM/SIGINT; the exit status.

    Raises ``GaveUp`` when they could not start, or keep dying.
    """
    logs.configure(settings.log_format, settings.log_level)
    return Supervisor(settings, explain, backoff).run()

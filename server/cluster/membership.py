"""Who else is in the service: heartbeats in, "process gone" out.

Every process beats on the lobby channel every ``lease / 3`` (``Beat``, with
its players online). A publish that reached nobody on a process's channel
(``unreached``) makes that process a suspect: if no heartbeat of it comes
within a lease, it is gone (``gone`` is called) — unless our own subscriber
was away meanwhile (``hearing`` false, or ``resubscribed`` less than a lease
ago): the heartbeats missing may be the ones it lost, so no verdict, and a
lease more of listening. A suspect that beats after all is alive
(``alive``), told whether a real message to it, not just a probe, was lost.

No I/O and no task: the injected clock's timers drive it
(``tests/test_membership.py`` runs it on the manual clock). What a verdict
means for tables and connections is the node's (server/cluster/node.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from server.base.clock import Clock, Timer


class Membership:
    def __init__(
        self,
        proc: str,
        lease: float,
        clock: Clock,
        *,
        hearing: Callable[[], bool],
        gone: Callable[[str], None],
        alive: Callable[[str, bool], None],
    ) -> None:
        self.proc = proc
        self.lease = lease
        self.clock = clock
        self._hearing = hearing
        """Our bus subscriber is subscribed now (what is sent to us arrives)."""
        self._gone = gone
        self._alive = alive
        self._beats: dict[str, tuple[int, float]] = {}
        """Each other process's last heartbeat: (players online, when, ``clock`` time)."""
        self._suspects: dict[str, Timer] = {}
        """Processes a publish reached nobody at, until their heartbeat tells."""
        self._missed: set[str] = set()
        """Suspects a real message (not just a heartbeat probe) missed."""
        self._resubscribed_at = -float("inf")
        """When our subscriber last came back: beats sent to us before may be lost."""

    @property
    def suspects(self) -> frozenset[str]:
        return frozenset(self._suspects)

    # -- heartbeats in -----------------------------------------------------------------

    def beat(self, proc: str, online: int) -> None:
        """``proc`` beat, with ``online`` players connected to it."""
        if proc != self.proc:
            self._beats[proc] = (online, self.clock.time())

    def left(self, proc: str) -> None:
        """``proc`` said it is leaving (its last beat), or is known dead."""
        self._beats.pop(proc, None)

    def resubscribed(self) -> None:
        """Our subscriber lost its connection and is back."""
        self._resubscribed_at = self.clock.time()

    def unreached(self, proc: str, probe: bool = False) -> None:
        """A publish to ``proc`` reached nobody (``probe``: only a heartbeat probe)."""
        if not probe:
            self._missed.add(proc)
        if proc not in self._suspects:
            self._watch(proc, self.clock.time())

    # -- what they tell ----------------------------------------------------------------

    def online_elsewhere(self) -> int:
        """Players connected to the processes heard from within two leases."""
        now = self.clock.time()
        return sum(n for n, at in self._beats.values() if now - at < self.lease * 2)

    def silent(self, held: Iterable[str]) -> list[str]:
        """Which of ``held`` (processes we hold something of) beat last more
        than a lease ago, or never: to probe (a probe that reaches nobody makes
        it a suspect). None while our subscriber is away or was back less than
        a lease ago: the beats missing may be the ones it lost."""
        now = self.clock.time()
        if not self._hearing_since(now - self.lease):
            return []
        out = []
        for proc in set(held) - set(self._suspects) - {self.proc}:
            beat = self._beats.get(proc)
            if beat is None or now - beat[1] > self.lease:
                out.append(proc)
        return out

    # -- the verdict -------------------------------------------------------------------

    def _hearing_since(self, since: float) -> bool:
        """Our subscriber has been subscribed from ``since`` until now."""
        return self._hearing() and self._resubscribed_at <= since

    def _watch(self, proc: str, since: float) -> None:
        # A live process beats every lease / 3; a dead one's tables are not
        # claimable before its leases lapse anyway.
        judge = functools.partial(self._judge, proc, since)
        self._suspects[proc] = self.clock.call_at(since + self.lease, judge)

    def _judge(self, proc: str, since: float) -> None:
        beat = self._beats.get(proc)
        if beat is not None and beat[1] > since:
            missed = proc in self._missed
            self._clear(proc)
            self._alive(proc, missed)
            return
        if not self._hearing_since(since):
            # Our own subscriber was away meanwhile (a Redis restart or
            # failover: its beats may be what we lost): listen a lease more.
            self._watch(proc, self.clock.time())
            return
        self._beats.pop(proc, None)
        self._gone(proc)
        self._clear(proc)

    def _clear(self, proc: str) -> None:
        timer = self._suspects.pop(proc, None)
        if timer is not None:
            timer.cancel()
        self._missed.discard(proc)

    def stop(self) -> None:
        """No more verdicts (the process stops)."""
        for proc in list(self._suspects):
            self._clear(proc)

"""Limits against hostile clients, kept per client address.

A public port attracts clients that never finish the upgrade, open thousands
of connections, sit in the lobby forever, guess resume tokens or flood a
table's chat. ``net`` asks the ``Guard`` at each of those points; the guard
knows nothing of Tarot, only addresses, counts and token buckets:

* ``admit``: at the HTTP upgrade, at most ``max_per_ip`` live connections and
  ``connect_rate`` new ones a second (after a burst of ``CONNECT_BURST``) per
  address; a refusal is an HTTP 429 before any WebSocket exists;
* ``may_guess`` / ``guess_failed``: a refused ``resume``, ``join`` or
  ``watch`` (a wrong token, table id or invite code) costs the address one of
  ``GUESS_BURST`` tokens, refilled at ``guess_rate`` a second; with none left,
  those commands are answered ``rate_limited`` without a look at what they
  carry. A resume token holds 144 random bits, so guessing one was hopeless
  anyway; an invite code holds 30 (6 of 32 letters): without this limit 32
  connections at 20 messages a second would try 2^30 codes in 19 days;
* ``may_create``: ``create_rate`` tables a second per address (after a burst);
* ``sweep``: connections outside any table that sent nothing for
  ``lobby_idle`` seconds are closed (``bye idle``, 4006).

The address is the TCP peer's, or, when the peer is one of
``trusted_proxies``, the last address in ``X-Forwarded-For`` that is not a
trusted proxy (a client can prepend anything to that header, but not append
after what the proxy adds). ``0`` turns a numeric limit off.

Names and chat lines go through ``clean_text`` (server/base/text.py, pure, so the
table core uses it too): control and format characters (terminal escapes,
bidirectional overrides, zero-width characters) are dropped before
whitespace is collapsed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import structlog

from server.base.clock import WALL
from server.base.text import clean_text

log = structlog.get_logger()

CONNECT_BURST = 20
GUESS_BURST = 10
CREATE_BURST = 5
PRUNE_EVERY = 1000  # admissions between drops of forgotten addresses

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Limits(Protocol):
    """The settings the guard reads (``server.base.config.Settings`` has them): a
    Protocol, so that config may use ``parse_networks`` without a circle."""

    @property
    def trusted_proxies(self) -> str: ...
    @property
    def max_per_ip(self) -> int: ...
    @property
    def connect_rate(self) -> float: ...
    @property
    def guess_rate(self) -> float: ...
    @property
    def create_rate(self) -> float: ...
    @property
    def lobby_idle(self) -> float: ...


class Bucket:
    """``rate`` tokens a second, at most ``burst`` saved up; the clock is passed in."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def refill(self, now: float) -> float:
        elapsed = now - self.stamp
        if elapsed > 0:  # a wall clock stepped back (NTP) takes no token away
            self.tokens = min(self.burst, self.tokens + elapsed * self.rate)
            self.stamp = now
        return self.tokens

    def take(self, now: float) -> bool:
        if self.rate <= 0:
            return True  # limit off
        if self.refill(now) >= 1:
            self.tokens -= 1
            return True
        return False

    def ready(self, now: float) -> bool:
        """Whether ``take`` would let a message in now (and takes nothing)."""
        return self.rate <= 0 or self.refill(now) >= 1

    def full(self, now: float) -> bool:
        return self.rate <= 0 or self.refill(now) >= self.burst


@dataclass
class Address:
    connects: Bucket
    guesses: Bucket
    creates: Bucket
    live: int = 0


class Guard:
    """The limits per address. ``clock`` is the server's ``Clock.time`` (the
    one the front stamps messages with, for ``idle``); a test passes its own."""

    def __init__(self, settings: Limits, clock: Callable[[], float] = WALL.time) -> None:
        self.settings = settings
        self.clock = clock
        self.trusted: list[Network] = parse_networks(settings.trusted_proxies)
        self.addresses: dict[str, Address] = {}
        self._admitted = 0
        self._warned_forwarded = False

    # -- who is it ---------------------------------------------------------------

    def client_address(self, peer: str | None, forwarded: Iterable[str] = ()) -> str:
        """The client's address: the peer's, or from a trusted proxy's header."""
        peer = peer or "?"
        hops = [h.strip() for line in forwarded for h in line.split(",") if h.strip()]
        if not hops:
            return peer
        if not self._is_trusted(peer):
            if not self._warned_forwarded:
                # Behind a proxy that is not trusted, every player shares the
                # proxy's address and its limits: say so once.
                self._warned_forwarded = True
                log.warning(
                    "forwarded_header_ignored",
                    peer=peer,
                    hint="set ATOUT_TRUSTED_PROXIES to this address if it is your proxy",
                )
            return peer
        for hop in reversed(hops):
            if not self._is_trusted(hop):
                return hop
        return hops[0]

    def _is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def _address(self, ip: str) -> Address:
        a = self.addresses.get(ip)
        if a is None:
            s, now = self.settings, self.clock()
            a = self.addresses[ip] = Address(
                connects=Bucket(s.connect_rate, CONNECT_BURST, now),
                guesses=Bucket(s.guess_rate, GUESS_BURST, now),
                creates=Bucket(s.create_rate, CREATE_BURST, now),
            )
        return a

    # -- connections -------------------------------------------------------------

    def admit(self, ip: str) -> str | None:
        """None if ``ip`` may open one more connection, else why not (for a person)."""
        self._admitted += 1
        if self._admitted % PRUNE_EVERY == 0:
            self.prune()
        a = self._address(ip)
        cap = self.settings.max_per_ip
        if cap > 0 and a.live >= cap:
            return f"too many connections from your address (at most {cap})"
        if not a.connects.take(self.clock()):
            return "too many new connections from your address: wait a little"
        return None

    def opened(self, ip: str) -> None:
        self._address(ip).live += 1

    def closed(self, ip: str) -> None:
        a = self.addresses.get(ip)
        if a is not None and a.live > 0:
            a.live -= 1

    def prune(self) -> None:
        """Forget addresses with no connection and every bucket full again."""
        now = self.clock()
        for ip in [
            ip
            for ip, a in self.addresses.items()
            if a.live == 0 and a.connects.full(now) and a.guesses.full(now) and a.creates.full(now)
        ]:
            del self.addresses[ip]

    # -- commands ----------------------------------------------------------------

    def may_guess(self, ip: str) -> bool:
        """Whether a resume, join or watch from ``ip`` is looked at (failures
        spend tokens)."""
        b = self._address(ip).guesses
        return b.rate <= 0 or b.refill(self.clock()) >= 1

    def guess_failed(self, ip: str) -> None:
        self._address(ip).guesses.take(self.clock())

    def may_create(self, ip: str) -> bool:
        return self._address(ip).creates.take(self.clock())

    def idle(self, last_message: float) -> bool:
        """Whether a connection outside any table whose last message came at
        ``last_message`` (the clock's time) has been idle too long."""
        limit = self.settings.lobby_idle
        return limit > 0 and self.clock() - last_message > limit


def parse_networks(text: str) -> list[Network]:
    """``"127.0.0.1, 10.0.0.0/8"`` -> networks; ``ValueError`` names a bad entry."""
    out: list[Network] = []
    for item in text.split(","):
        item = item.strip()
        if item:
            try:
                out.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"not an address or network: {item!r}") from None
    return out


__all__ = ["Bucket", "Guard", "Limits", "clean_text", "parse_networks"]

"""Which Redis names are a service's: every key and every pub/sub channel.

A service (the processes that share one lobby and hand tables to each
other) is a Redis database, the URL's ``/db``, and within it, if set, a
namespace (``--redis-namespace``). Two services can share one Redis on two
databases, or on one database under two namespaces, and see nothing of each
other: no table, lobby, player count, invite code, lease, player or daily
board.

Keys live in their database already; a namespace puts them under
``atout:ns:{namespace}:`` instead of ``atout:``. Pub/sub channels belong to
the whole Redis, every database alike, so a channel name carries the
database too: ``atout:db{n}:lobby``. Database 0 keeps the channel names it
had before services were told apart (``atout:lobby``), so a service there
upgrades one process at a time without its lobby splitting in two.

Every Lua script that reaches a key it was not given in ``KEYS`` builds its
name from a prefix the caller passes (one of these), never from a literal.
"""

from __future__ import annotations

import re

PREFIX = b"atout:"

NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A namespace: no ``:`` (it could reach into another namespace's names), and
no leading ``-`` (``--redis-namespace -x`` reads like a forgotten value)."""
NAMESPACE_RULE = "1 to 64 letters, digits, '.', '_' or '-', beginning with a letter or a digit"


class Keys:
    """The names of one service: ``db`` (the URL's) and ``namespace`` ("": none)."""

    def __init__(self, db: int = 0, namespace: str = "") -> None:
        if namespace and not NAMESPACE.fullmatch(namespace):
            raise ValueError(f"not a namespace: {namespace!r}; use {NAMESPACE_RULE}")
        self.db = db
        self.namespace = namespace
        p = PREFIX + (b"ns:" + namespace.encode() + b":" if namespace else b"")
        self.prefix = p
        # Tables (server/store/redis.py) and their leases (server/cluster/lease.py).
        self.table = p + b"table:"
        self.records = p + b"records:"
        self.open = p + b"open"
        self.lease = p + b"lease:"
        self.leases = p + b"leases"
        # Players (server/store/redis_players.py).
        self.pkey = p + b"pkey:"
        self.pname = p + b"pname:"
        self.names = p + b"names"
        # The daily game (server/daily/).
        self.daily = p + b"daily:"
        self.daily_secret = self.daily + b"secret"
        # Tournaments (server/tournament/store.py): each one, and those in play.
        self.tournament = p + b"tournament:"
        self.tournaments = p + b"tournaments"
        # The lobby every process loads, and invite codes (server/cluster/).
        self.listings = p + b"listings"
        self.codes = p + b"codes"
        # Channels: shared by every database of the Redis (see the docstring).
        channels = p if db == 0 else p + b"db%d:" % db
        self.lobby = channels + b"lobby"
        """Everyone's channel: listings, claims, heartbeats."""
        self._bus = channels + b"bus:"

    def bus(self, proc: str) -> bytes:
        """Process ``proc``'s own channel."""
        return self._bus + proc.encode()

    def __repr__(self) -> str:
        return f"Keys(db={self.db}, namespace={self.namespace!r})"

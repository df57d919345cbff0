"""The day's game: which cards everyone plays, from a secret and the date.

A daily game is an ordinary ``Game`` (``server/game/game.py``), and a Game
is fully determined by its seed: the first dealer, then the cards of each
deal. The seed is an HMAC of the UTC date under the server's secret, so the
deals are the same for every player of the day, differ from day to day, and
cannot be computed before the day, nor by a client, nor from anything a
client sends. The seat the human plays is drawn from the same HMAC.

The seed must never reach a client (it gives every hand of the day away):
table views do not carry it, and this module is the only place it is made.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

import msgspec

from server.game.variant import FOUR

SECRET_BYTES = 32


class DailySpec(msgspec.Struct, frozen=True, kw_only=True):
    """What makes a day's game: the same for every player of that day."""

    day: str
    """The UTC date, ISO (``2025-06-01``)."""
    seed: str
    """The Game seed (secret: see the module docstring)."""
    seat: int
    """The seat of the human player (bots of the ``normal`` level play the others)."""
    deals: int
    """Deals dealt, annulled ones included: everyone plays the same number."""


def utc_day(now: float) -> dt.date:
    """The UTC date at Unix time ``now``."""
    return dt.datetime.fromtimestamp(now, dt.UTC).date()


def day_start(day: dt.date) -> float:
    """Unix time at which ``day`` begins (UTC midnight)."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def new_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


def daily_spec(secret: str, day: dt.date, deals: int) -> DailySpec:
    if not secret:
        raise ValueError("the daily secret is empty")
    mac = hmac.new(secret.encode(), f"atout-daily/{day.isoformat()}".encode(), hashlib.sha256)
    digest = mac.hexdigest()
    return DailySpec(
        day=day.isoformat(),
        seed=digest[:32],
        seat=int(digest[32:40], 16) % FOUR.players,
        deals=deals,
    )


class DailyTag(msgspec.Struct, frozen=True, kw_only=True):
    """What makes a table a daily table (kept in its persisted state)."""

    day: str
    player: str
    """The player id whose attempt this is; nobody else may sit or watch until it is over."""
    seat: int
    deals: int
    ranked: bool = True
    """False for a practice game, after the day's ranked attempt."""

"""The settings of the server the campaigns run in this process: no limit,
timer or bot acts by itself."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.base.config import Settings


def fuzz_settings(**overrides: Any) -> Settings:
    base = Settings(
        port=0,
        rate=1e9,
        burst=10**9,
        hello_timeout=30.0,
        # Bots and timers stay still: inputs, not background games, use the core.
        bot_think=3600.0,
        deal_pause=3600.0,
        grace=3600.0,
        idle_close=1e9,
        max_tables=64,
        # One address opens every connection: no per-address limits here.
        max_per_ip=0,
        connect_rate=0.0,
        guess_rate=0.0,
        create_rate=0.0,
        log_level="error",
    )
    return replace(base, **overrides)


def table_settings() -> Settings:
    # No timer acts by itself: a bot never plays (every seat is human, away
    # seats wait an hour), the deal timer fires only when the campaign says so.
    return fuzz_settings()

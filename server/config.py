"""Settings: every one a command-line flag and an ``ATOUT_*`` environment variable.

A flag beats the variable, which beats the default. ``SETTINGS`` is the one
table of them; docs/DEPLOY.md lists the same table for operators (a test
checks that it lists every setting).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class Settings:
    host: str = field(default="127.0.0.1", metadata={"help": "address to listen on"})
    port: int = field(default=8765, metadata={"help": "port to listen on (WebSocket and HTTP)"})
    redis_url: str = field(
        default="",
        metadata={
            "help": "Redis URL (redis://host:port/db); empty keeps tables in memory",
            "flag": "--redis",
        },
    )
    log_format: str = field(
        default="console",
        metadata={"help": "console (readable) or json", "choices": "console json"},
    )
    log_level: str = field(default="info", metadata={"help": "debug, info, warning or error"})
    max_frame: int = field(
        default=65536, metadata={"help": "largest frame a client may send (bytes)"}
    )
    rate: float = field(
        default=20.0, metadata={"help": "messages per second a connection may send"}
    )
    burst: int = field(default=40, metadata={"help": "messages a connection may send at once"})
    send_buffer: int = field(
        default=256 * 1024,
        metadata={"help": "bytes a slow client may leave unread before it is dropped"},
    )
    max_tables: int = field(default=10000, metadata={"help": "tables open at once"})
    max_connections: int = field(default=20000, metadata={"help": "connections at once"})
    hello_timeout: float = field(default=10.0, metadata={"help": "seconds to say hello"})
    idle_close: float = field(
        default=900.0, metadata={"help": "close a table with no human connected after (s)"}
    )
    grace: float = field(
        default=10.0, metadata={"help": "an away human's turn is played by a bot after (s)"}
    )
    bot_think: float = field(default=0.6, metadata={"help": "a bot's pause before it acts (s)"})
    deal_pause: float = field(default=4.0, metadata={"help": "pause between deals (s)"})
    bot_budget: float = field(
        default=0.3, metadata={"help": "thinking budget of a strong bot per decision (s)"}
    )
    default_bot_level: str = field(
        default="normal", metadata={"help": "bot level of tables that do not choose one"}
    )
    table_expire: float = field(
        default=86400.0, metadata={"help": "Redis keeps an untouched table this long (s)"}
    )
    save_interval: float = field(
        default=0.01,
        metadata={
            "help": "Redis: at most one save request per this many seconds; "
            "saves made meanwhile share it (a lone save goes at once)"
        },
    )
    chat_rate: float = field(default=1.0, metadata={"help": "chat lines per second per player"})
    shutdown_grace: float = field(
        default=5.0, metadata={"help": "seconds to persist and say goodbye on SIGTERM"}
    )
    # Hostile clients (server/guard.py, docs/SECURITY.md); 0 turns a limit off.
    handshake_timeout: float = field(
        default=5.0, metadata={"help": "seconds to finish the WebSocket upgrade"}
    )
    max_per_ip: int = field(
        default=32, metadata={"help": "connections at once from one client address"}
    )
    connect_rate: float = field(
        default=2.0,
        metadata={"help": "new connections per second from one address, after a burst of 20"},
    )
    trusted_proxies: str = field(
        default="",
        metadata={
            "help": "addresses or networks (comma-separated) of reverse proxies whose "
            "X-Forwarded-For names the client; empty: trust none"
        },
    )
    lobby_idle: float = field(
        default=1800.0,
        metadata={"help": "close a connection at no table that sends nothing for (s)"},
    )
    guess_rate: float = field(
        default=1.0,
        metadata={
            "help": "refused resumes, joins and watches (token or code guesses) per second "
            "from one address, after a burst of 10"
        },
    )
    create_rate: float = field(
        default=0.2,
        metadata={"help": "tables one address may create per second, after a burst of 5"},
    )


def _env_name(name: str) -> str:
    return "ATOUT_" + name.upper()


def _flag(f: Any) -> str:
    return str(f.metadata.get("flag", "--" + f.name.replace("_", "-")))


SETTINGS = [
    (f.name, _flag(f), _env_name(f.name), f.default, f.metadata["help"]) for f in fields(Settings)
]
"""(name, flag, variable, default, meaning) of every setting."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for f in fields(Settings):
        kwargs: dict[str, Any] = {"dest": f.name, "default": None, "help": f.metadata["help"]}
        kwargs["type"] = type(f.default)
        if "choices" in f.metadata:
            kwargs["choices"] = f.metadata["choices"].split()
        parser.add_argument(_flag(f), **kwargs)


def load(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Settings from parsed flags, then ``ATOUT_*`` variables, then defaults."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for f in fields(Settings):
        flag_value = getattr(args, f.name, None) if args is not None else None
        if flag_value is not None:
            values[f.name] = flag_value
        elif _env_name(f.name) in env:
            raw = env[_env_name(f.name)]
            try:
                values[f.name] = type(f.default)(raw)
            except ValueError:
                raise SystemExit(f"{_env_name(f.name)}={raw!r} is not a valid {f.name}") from None
    return Settings(**values)

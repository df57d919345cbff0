"""Settings: every one a command-line flag and an ``ATOUT_*`` environment variable.

A flag beats the variable, which beats the default. ``SETTINGS`` is the one
table of them; docs/DEPLOY.md lists the same table for operators (a test
checks that it lists every setting).

Each setting has one parser, used for its flag and for its variable alike, so
``--port 99999`` and ``ATOUT_PORT=99999`` are refused the same way, with one
line that names what was wrong and what would work (``SettingError``).
Settings built in code (``Settings(port=0)`` in tests and ``atout play``) are
not parsed: port 0, "any free port", is for them only.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, get_args

from protocol.views import BotLevel


class SettingError(ValueError):
    """A setting's value is unusable; ``str()`` is the whole message, one line."""


# --- parsers: text -> value, or ValueError("not <what>; use <what works>") ----------


def _whole(raw: str, lowest: int, highest: int | None, what: str) -> int:
    limit = f"from {lowest} to {highest}" if highest is not None else f"of {lowest} or more"
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"not a whole number; use {what} {limit}") from None
    if value < lowest or (highest is not None and value > highest):
        raise ValueError(f"out of range; use {what} {limit}")
    return value


def port(raw: str) -> int:
    # 0 would mean "any free port": clients could not know where to connect.
    return _whole(raw, 1, 65535, "a port")


def count(raw: str) -> int:
    return _whole(raw, 1, None, "a whole number")


def limit(raw: str) -> int:
    """0 or more: 0 turns the limit off (server/link/guard.py)."""
    return _whole(raw, 0, None, "a whole number (0: no limit)")


def _number(raw: str, *, zero: bool) -> float:
    works = "use a number of 0 or more" if zero else "use a number above 0"
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"not a number; {works}") from None
    if not math.isfinite(value):
        raise ValueError(f"not a finite number; {works}")
    if value < 0 or (value == 0 and not zero):
        raise ValueError(f"out of range; {works}")
    return value


def seconds(raw: str) -> float:
    """0 or more: 0 means "at once" (a bot's pause, the grace...)."""
    return _number(raw, zero=True)


def positive(raw: str) -> float:
    """Above 0: a rate, or a delay that 0 would break (a timeout, an expiry)."""
    return _number(raw, zero=False)


def workers(raw: str) -> int:
    """A count of processes, or ``auto``: the cores this process may run on
    (its CPU affinity, which a container's ``--cpuset-cpus`` or ``taskset``
    narrows; not every core of the machine)."""
    if raw.strip().lower() == "auto":
        return cores_available()
    try:
        return _whole(raw, 1, None, "a number of processes")
    except ValueError as exc:
        raise ValueError(f"{exc}, or auto (one per core available)") from None


def cores_available() -> int:
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def one_of(*choices: str) -> Callable[[str], str]:
    listed = ", ".join(choices[:-1]) + " or " + choices[-1]

    def parse(raw: str) -> str:
        value = raw.strip().lower()  # LOG_LEVEL=INFO is common in environments
        if value not in choices:
            raise ValueError(f"not a choice; use {listed}")
        return value

    parse.choices = choices  # type: ignore[attr-defined]
    return parse


def host(raw: str) -> str:
    """An address or a host name; a name is resolved when the server listens."""
    value = raw.strip()
    use = "use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or a host name"
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"not a host; {use}")
    if all(c.isdigit() or c == "." for c in value):
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            raise ValueError(f"not an IPv4 address (four numbers from 0 to 255); {use}") from None
    elif ":" in value:
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            raise ValueError(
                f"not an IPv6 address; {use}, or :: for every IPv6 interface"
            ) from None
    return value


def redis_url(raw: str) -> str:
    value = raw.strip()
    if value:
        # The store's own parser: what it accepts here, it accepts when connecting.
        from server.store.redis import parse_url

        try:
            parse_url(value)
        except ValueError as exc:
            raise ValueError(
                f"{exc}; use redis://[:password@]host[:port][/db], "
                "or nothing to keep tables in memory"
            ) from None
    return value


def redis_namespace(raw: str) -> str:
    from server.store.redis_keys import NAMESPACE, NAMESPACE_RULE

    value = raw.strip()
    if value and not NAMESPACE.fullmatch(value):
        raise ValueError(
            f"not a namespace; use {NAMESPACE_RULE}, or nothing for the database alone"
        )
    return value


def networks(raw: str) -> str:
    """Comma-separated addresses or networks (``127.0.0.1, 10.0.0.0/8``); empty: none."""
    from server.link.guard import parse_networks

    try:
        parse_networks(raw)
    except ValueError as exc:
        raise ValueError(f"{exc}; use addresses or networks separated by commas") from None
    return raw.strip()


def origins(raw: str) -> str:
    """Comma-separated origins (``https://tarot.example.com``) or ``*``; empty: none."""
    from server.web.origin import parse_allowed

    try:
        parse_allowed(raw)
    except ValueError as exc:
        raise ValueError(f"{exc}; use origins separated by commas, or * for any") from None
    return raw.strip()


def folder(raw: str) -> str:
    """An existing folder, or nothing (the default)."""
    value = raw.strip()
    if value and not os.path.isdir(value):
        raise ValueError("not a folder; use the path of a folder that holds index.html")
    return value


ON = ("on", "true", "yes", "1")
OFF = ("off", "false", "no", "0")


def switch(raw: str) -> bool:
    value = raw.strip().lower()
    if value not in ON + OFF:
        raise ValueError("not on or off; use on or off (also true/false, yes/no, 1/0)")
    return value in ON


LOG_LEVELS = ("debug", "info", "warning", "error")


def secret(raw: str) -> str:
    # The daily deals are an HMAC of the date under this key: a short one
    # could be guessed, and the day's cards computed ahead of everyone.
    value = raw.strip()
    if value and len(value) < 16:
        raise ValueError("too short to keep the daily deals secret; use 16 characters or more")
    return value


def _setting(
    default: Any, meaning: str, parse: Callable[[str], Any], flag: str = "", does: str = ""
) -> Any:
    """``meaning``: what the setting is (the docs' table, the variable);
    ``does``: what a bare switch flag such as ``--no-web`` does, said in
    its own help rather than the setting's (issue 34)."""
    metadata = {"help": meaning, "parse": parse}
    if flag:
        metadata["flag"] = flag
    if does:
        metadata["does"] = does
    return field(default=default, metadata=metadata)


# --- the settings -------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    host: str = _setting("127.0.0.1", "listen on this address", host)
    port: int = _setting(8765, "listen on this port (the game's WebSocket and HTTP)", port)
    redis_url: str = _setting(
        "",
        "keep tables, players and leaderboards in this Redis (redis://host:port/db); "
        "empty: in this process's memory, lost when it stops",
        redis_url,
        flag="--redis",
    )
    redis_namespace: str = _setting(
        "",
        "Redis: set this service apart from others in the same Redis database by this "
        "name (letters, digits, '.', '_', '-'); empty: the database alone is the "
        "service (docs/DEPLOY.md, Scaling)",
        redis_namespace,
    )
    workers: int = _setting(
        1,
        "run this many server processes sharing the port, or auto (one per core available); "
        "more than one needs --redis (docs/DEPLOY.md, Scaling)",
        workers,
    )
    log_format: str = _setting(
        "console",
        "write the log as console lines (readable) or json (one object a line)",
        one_of("console", "json"),
    )
    log_level: str = _setting(
        "info",
        "log what is of this level or above: debug, info, warning or error",
        one_of(*LOG_LEVELS),
    )
    max_frame: int = _setting(65536, "refuse a client's frame larger than this (bytes)", count)
    rate: float = _setting(
        20.0, "let a connection send this many messages a second at most", positive
    )
    burst: int = _setting(40, "let a connection send this many messages at once (a burst)", count)
    send_buffer: int = _setting(
        256 * 1024, "drop a slow client once this many bytes wait unread for it", count
    )
    max_tables: int = _setting(10000, "refuse new tables beyond this many open at once", count)
    max_connections: int = _setting(20000, "refuse new connections beyond this many at once", count)
    hello_timeout: float = _setting(
        10.0, "close a connection that has not said hello after this (s)", positive
    )
    idle_close: float = _setting(
        900.0, "close a table with no human connected for this long (s)", positive
    )
    grace: float = _setting(10.0, "a bot plays an away human's turn after this long (s)", seconds)
    bot_think: float = _setting(0.6, "a bot pauses this long before it acts (s)", seconds)
    deal_pause: float = _setting(
        4.0,
        "pause at least this long between deals, even when every player is ready at once (s)",
        seconds,
    )
    result_wait: float = _setting(
        60.0,
        "a deal's result waits this long at most for the players to press Continue, "
        "at tables that do not choose (s); 0: no wait beyond the deal pause",
        seconds,
    )
    quick_gather: float = _setting(
        15.0,
        "a quick-play table waits this long for people before bots fill its free "
        "seats and it starts (s); 0: it starts at once",
        seconds,
    )
    bot_budget: float = _setting(
        0.3, "a strong bot thinks this long at most per decision (s)", positive
    )
    default_bot_level: str = _setting(
        "normal", "the bots' level at tables that do not choose one", one_of(*get_args(BotLevel))
    )
    table_expire: float = _setting(
        86400.0, "Redis forgets a table untouched this long (s)", positive
    )
    save_interval: float = _setting(
        0.01,
        "Redis: at most one save request per this many seconds; "
        "saves made meanwhile share it (a lone save goes at once)",
        seconds,
    )
    lease: float = _setting(
        5.0,
        "Redis: a table's owner renews its lease every third of this; the tables "
        "of a process that died are taken over by another within this and half "
        "of it again (s)",
        positive,
    )
    chat_rate: float = _setting(
        1.0, "let a player send this many chat lines a second at most", positive
    )
    daily_deals: int = _setting(
        4, "deal this many deals in the daily game (annulled deals count)", count
    )
    daily_secret: str = _setting(
        "",
        "draw the daily deals from this secret (16 characters or more); empty: one is "
        "made once and kept in Redis (in memory: one per process)",
        secret,
    )
    shutdown_grace: float = _setting(
        5.0, "on SIGTERM, save the tables and say goodbye for this long at most (s)", seconds
    )
    # Hostile clients (server/link/guard.py, docs/SECURITY.md); 0 turns a limit off.
    handshake_timeout: float = _setting(
        5.0, "close a connection whose WebSocket upgrade takes longer than this (s)", seconds
    )
    max_per_ip: int = _setting(
        32, "refuse connections from one address beyond this many at once", limit
    )
    connect_rate: float = _setting(
        2.0, "let one address open this many connections a second, after a burst of 20", seconds
    )
    trusted_proxies: str = _setting(
        "",
        "trust the X-Forwarded-For of these reverse proxies (addresses or networks, "
        "comma-separated) to name the client; empty: trust none",
        networks,
    )
    lobby_idle: float = _setting(
        1800.0, "close a connection at no table that sends nothing for this long (s)", seconds
    )
    guess_rate: float = _setting(
        1.0,
        "let one address make this many refused resumes, joins and watches (token or "
        "code guesses) a second, after a burst of 10",
        seconds,
    )
    create_rate: float = _setting(
        0.2, "let one address create this many tables a second, after a burst of 5", seconds
    )
    # The browser client (server/web, docs/DEPLOY.md "The browser client").
    web: bool = _setting(
        True,
        "serve the browser client on / (the flag --no-web, or off: serve the game's "
        "WebSocket, /healthz, /metrics and /leaderboard only)",
        switch,
        flag="--no-web",
        does="do not serve the browser client: serve the game's WebSocket, /healthz, "
        "/metrics and /leaderboard only",
    )
    web_root: str = _setting(
        "", "serve the browser client from this folder; empty: the one installed", folder
    )
    allowed_origins: str = _setting(
        "",
        "let these web pages (origins, comma-separated, or *) open a game connection "
        "besides the server's own: the public address behind a proxy that changes Host",
        origins,
    )


def _env_name(name: str) -> str:
    return "ATOUT_" + name.upper()


def _flag(f: Any) -> str:
    return str(f.metadata.get("flag", "--" + f.name.replace("_", "-")))


SETTINGS = [
    (f.name, _flag(f), _env_name(f.name), f.default, f.metadata["help"]) for f in fields(Settings)
]
"""(name, flag, variable, default, meaning) of every setting."""


def shown(value: Any) -> str:
    """A default as an operator would type it: 86400.0 -> 86400, "" -> (empty)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:.15g}"
    return str(value) if value != "" else "empty"


def _redacted(name: str, raw: str) -> str:
    # A Redis password must not end up in a terminal's scrollback or a log.
    if name == "redis_url" and "@" in raw:
        scheme, _, rest = raw.partition("://")
        return f"{scheme}://***@{rest.rpartition('@')[2]}" if rest else "***"
    return raw


def _metavar(f: Any) -> str:
    choices = getattr(f.metadata["parse"], "choices", None)
    if choices:
        return "{" + ",".join(choices) + "}"
    named = {
        "host": "HOST",
        "port": "PORT",
        "redis_url": "URL",
        "workers": "N|auto",
        "web_root": "DIR",
        "allowed_origins": "ORIGINS",
    }
    return named.get(f.name) or ("N" if isinstance(f.default, int) else "X")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One ``--flag VALUE`` per setting, kept as text: ``load`` parses it."""
    for f in fields(Settings):
        if f.metadata["parse"] is switch:  # a bare --no-x: on is the default
            variable = _env_name(f.name)
            parser.add_argument(
                _flag(f),
                dest=f.name,
                action="store_const",
                const="off",
                default=None,
                help=f"{f.metadata['does']} [or {variable}=off; default: {variable}=on]",
            )
            continue
        parser.add_argument(
            _flag(f),
            dest=f.name,
            default=None,
            metavar=_metavar(f),
            help=f"{f.metadata['help']} [{_env_name(f.name)}; default: {shown(f.default)}]",
        )


def load(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Settings from parsed flags, then ``ATOUT_*`` variables, then defaults.

    Raises ``SettingError`` naming the flag or the variable that holds an
    unusable value; a variable a flag overrides is not read at all.
    """
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    given: dict[str, tuple[str, str]] = {}  # name -> (raw, where), for checks of two settings
    for f in fields(Settings):
        flag_value = getattr(args, f.name, None) if args is not None else None
        if flag_value is not None:
            raw, where = str(flag_value), f"{_flag(f)} {{}}"
        elif _env_name(f.name) in env:
            raw, where = env[_env_name(f.name)], f"{_env_name(f.name)}={{}}"
        else:
            continue
        source = where.format(shlex.quote(_redacted(f.name, raw)))
        try:
            values[f.name] = f.metadata["parse"](raw)
        except ValueError as exc:
            raise SettingError(f"{source}: {exc} (default: {shown(f.default)})") from None
        given[f.name] = (raw, source)
    settings = Settings(**values)
    if "workers" in given and not settings.redis_url:
        raw, source = given["workers"]
        if settings.workers > 1 or raw.strip().lower() == "auto":
            # Each worker would be a server of its own, with its own tables
            # and lobby, and the kernel would deal each connection to any of
            # them. ``auto`` is refused even on one core: the same setting
            # must not work on one machine and fail on the next.
            raise SettingError(
                f"{source}: more than one worker needs Redis, which makes them one service; "
                "give --redis / ATOUT_REDIS_URL, or use --workers 1 to keep tables in memory"
            )
    return settings

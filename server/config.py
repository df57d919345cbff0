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
    """0 or more: 0 turns the limit off (server/guard.py)."""
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
    from server.guard import parse_networks

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


def _setting(default: Any, meaning: str, parse: Callable[[str], Any], flag: str = "") -> Any:
    metadata = {"help": meaning, "parse": parse}
    if flag:
        metadata["flag"] = flag
    return field(default=default, metadata=metadata)


# --- the settings -------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    host: str = _setting("127.0.0.1", "address to listen on", host)
    port: int = _setting(8765, "port to listen on (WebSocket and HTTP)", port)
    redis_url: str = _setting(
        "",
        "Redis URL (redis://host:port/db); empty keeps tables in memory",
        redis_url,
        flag="--redis",
    )
    redis_namespace: str = _setting(
        "",
        "Redis: a name that sets this service apart from others in the same Redis "
        "database (letters, digits, '.', '_', '-'); empty: the database alone is "
        "the service (docs/DEPLOY.md, Scaling)",
        redis_namespace,
    )
    workers: int = _setting(
        1,
        "server processes sharing the port, or auto (one per core available); "
        "more than one needs --redis (docs/DEPLOY.md, Scaling)",
        workers,
    )
    log_format: str = _setting("console", "console (readable) or json", one_of("console", "json"))
    log_level: str = _setting("info", "debug, info, warning or error", one_of(*LOG_LEVELS))
    max_frame: int = _setting(65536, "largest frame a client may send (bytes)", count)
    rate: float = _setting(20.0, "messages per second a connection may send", positive)
    burst: int = _setting(40, "messages a connection may send at once", count)
    send_buffer: int = _setting(
        256 * 1024, "bytes a slow client may leave unread before it is dropped", count
    )
    max_tables: int = _setting(10000, "tables open at once", count)
    max_connections: int = _setting(20000, "connections at once", count)
    hello_timeout: float = _setting(10.0, "seconds to say hello", positive)
    idle_close: float = _setting(900.0, "close a table with no human connected after (s)", positive)
    grace: float = _setting(10.0, "an away human's turn is played by a bot after (s)", seconds)
    bot_think: float = _setting(0.6, "a bot's pause before it acts (s)", seconds)
    deal_pause: float = _setting(
        4.0, "least pause between deals, even when every player is ready at once (s)", seconds
    )
    result_wait: float = _setting(
        60.0,
        "longest a deal's result waits for the players to press Continue, "
        "for tables that do not choose (s); 0: no wait beyond the deal pause",
        seconds,
    )
    quick_gather: float = _setting(
        15.0,
        "a quick-play table waits this long for people before bots fill its free "
        "seats and it starts (s); 0: it starts at once",
        seconds,
    )
    bot_budget: float = _setting(0.3, "thinking budget of a strong bot per decision (s)", positive)
    default_bot_level: str = _setting(
        "normal", "bot level of tables that do not choose one", one_of(*get_args(BotLevel))
    )
    table_expire: float = _setting(
        86400.0, "Redis keeps an untouched table this long (s)", positive
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
    chat_rate: float = _setting(1.0, "chat lines per second per player", positive)
    daily_deals: int = _setting(4, "deals in the daily game (annulled deals count)", count)
    daily_secret: str = _setting(
        "",
        "secret the daily deals are drawn from; empty: made once and kept in Redis "
        "(in memory: one per process)",
        secret,
    )
    shutdown_grace: float = _setting(5.0, "seconds to persist and say goodbye on SIGTERM", seconds)
    # Hostile clients (server/guard.py, docs/SECURITY.md); 0 turns a limit off.
    handshake_timeout: float = _setting(5.0, "seconds to finish the WebSocket upgrade", seconds)
    max_per_ip: int = _setting(32, "connections at once from one client address", limit)
    connect_rate: float = _setting(
        2.0, "new connections per second from one address, after a burst of 20", seconds
    )
    trusted_proxies: str = _setting(
        "",
        "addresses or networks (comma-separated) of reverse proxies whose "
        "X-Forwarded-For names the client; empty: trust none",
        networks,
    )
    lobby_idle: float = _setting(
        1800.0, "close a connection at no table that sends nothing for (s)", seconds
    )
    guess_rate: float = _setting(
        1.0,
        "refused resumes, joins and watches (token or code guesses) per second "
        "from one address, after a burst of 10",
        seconds,
    )
    create_rate: float = _setting(
        0.2, "tables one address may create per second, after a burst of 5", seconds
    )
    # The browser client (server/web, docs/DEPLOY.md "The browser client").
    web: bool = _setting(
        True,
        "serve the browser client on /; off (--no-web): only the game, /healthz, "
        "/metrics and /leaderboard",
        switch,
        flag="--no-web",
    )
    web_root: str = _setting(
        "", "folder of the browser client to serve; empty: the one installed", folder
    )
    allowed_origins: str = _setting(
        "",
        "web pages (origins, comma-separated, or *) that may open a game connection "
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
            parser.add_argument(
                _flag(f),
                dest=f.name,
                action="store_const",
                const="off",
                default=None,
                help=f"{f.metadata['help']} [{_env_name(f.name)}; default: {shown(f.default)}]",
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

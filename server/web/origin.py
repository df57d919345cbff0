"""Which web pages may open a game connection: the ``Origin`` check of the
WebSocket upgrade.

A browser tells the server, in ``Origin``, which site's page opens a
WebSocket; any page on the Internet may try to open one to any server. The
rule:

* no ``Origin``: not a browser (the terminal client, a script): allowed;
* an ``Origin`` whose host and port are the ``Host`` the request was sent to:
  the server's own page: allowed;
* any other: allowed only if listed in ``allowed_origins`` (``*``: any);
  else refused with HTTP 403 before any WebSocket exists.

Behind a reverse proxy that rewrites ``Host`` (to ``127.0.0.1:8765``, say)
the page's origin no longer matches: list it in ``allowed_origins``. A
browser never lets a page forge ``Origin``; a script outside a browser may
send anything, which is why this guards players' browsers, not the server
(docs/SECURITY.md).
"""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}

ANY = "*"


def parse_origin(raw: str) -> tuple[str, str, int] | None:
    """``scheme://host[:port]`` -> (scheme, host, port), lowercased, with the
    scheme's default port filled in; None when ``raw`` is no such origin
    (``null``, a path, a user name...)."""
    try:
        parts = urlsplit(raw.strip())
        port = parts.port
    except ValueError:  # a port out of range, a bracket left open
        return None
    scheme = parts.scheme.lower()
    if (
        scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def parse_allowed(raw: str) -> frozenset[tuple[str, str, int] | str]:
    """The ``allowed_origins`` setting (comma-separated) -> the parsed origins,
    and ``*`` if listed. Raises ValueError naming the first bad one."""
    allowed: set[tuple[str, str, int] | str] = set()
    for item in raw.split(","):
        item = item.strip()
        if not item:
            continue
        if item == ANY:
            allowed.add(ANY)
            continue
        origin = parse_origin(item)
        if origin is None or origin[0] not in ("http", "https"):
            raise ValueError(f"{item!r} is not an origin such as https://tarot.example.com")
        allowed.add(origin)
    return frozenset(allowed)


def _host_port(host: str, default: int) -> tuple[str, int] | None:
    """A ``Host`` header -> (host, port), the port defaulting to ``default``."""
    try:
        parts = urlsplit("//" + host.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.path:
        return None
    return parts.hostname.lower(), port if port is not None else default


def refusal(
    origin: str | None, host: str | None, allowed: frozenset[tuple[str, str, int] | str]
) -> str | None:
    """None if a WebSocket upgrade with this ``Origin`` and ``Host`` may
    proceed; else the reason, for the 403's body. Pure."""
    if origin is None:
        return None
    if ANY in allowed:
        return None
    parsed = parse_origin(origin)
    if parsed is not None:
        scheme, name, port = parsed
        if host is not None and _host_port(host, DEFAULT_PORTS[scheme]) == (name, port):
            return None
        if parsed in allowed:
            return None
    return (
        f"pages from {origin.strip()[:200]!r} may not connect to this server "
        "(its operator may allow them: --allowed-origins / ATOUT_ALLOWED_ORIGINS)"
    )

"""The page's security headers: a strict Content-Security-Policy and the
usual companions, the same from the server and from a reverse proxy that
serves the files itself.

The policy lets the page run only its own files: no inline script, no
``eval``, no inline style attribute, nothing from another site, no frame
around it. One exception is made, by hash: the page's inline import map
(browsers take no import map from a file), whose SHA-256 is read from
``index.html`` itself, so that the policy follows the page. The WebSocket
goes back to the page's own host: ``'self'`` says so to current browsers,
and ``ws://HOST wss://HOST`` to Safari before 16, whose ``'self'`` did not
cover WebSockets.

A reverse proxy that serves the files itself sends the same headers:
``python -m server.web.proxy`` prints them for its configuration.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

PERMISSIONS = (
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
    "magnetometer=(), microphone=(), midi=(), payment=(), usb=()"
)
"""Every powerful feature off: the game needs none of them."""

SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    # An invite link's code must not leak to another site in a Referer.
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),  # frame-ancestors 'none' for older browsers
    ("Permissions-Policy", PERMISSIONS),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
"""Sent with every file, the page and the rest alike."""

_HOST = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def valid_host(host: str) -> bool:
    """``host[:port]`` as a ``Host`` header holds it, nothing more: the value
    goes into a header, so a stray ``;`` or space must not add a directive."""
    return _HOST.fullmatch(host) is not None


def content_security_policy(importmap_hashes: tuple[str, ...], host: str | None) -> str:
    """The policy for a page whose import maps hash to ``importmap_hashes``,
    served to a browser that asked for ``host`` (None: unknown, or not to be
    trusted; ``'self'`` alone then)."""
    scripts = " ".join(["'self'", *(f"'{h}'" for h in importmap_hashes)])
    connect = "'self'" + (f" ws://{host} wss://{host}" if host else "")
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {scripts}",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            f"connect-src {connect}",
            "manifest-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


class _ImportMaps(HTMLParser):
    """Collects the text of every ``<script type="importmap">`` without ``src``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.maps: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            named = dict(attrs)
            kind = (named.get("type") or "").strip().lower()
            self._open = [] if kind == "importmap" and "src" not in named else None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._open is not None:
            self.maps.append("".join(self._open))
            self._open = None


def importmap_hashes(html: bytes) -> tuple[str, ...]:
    """``sha256-...`` of each inline import map of a page, as CSP names them.

    Only import maps: any other inline script stays refused by the policy.
    """
    # The browser hashes the element's text after its parser turned CR LF
    # and CR into LF (HTML's input stream preprocessing); so do we.
    text = html.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    parser = _ImportMaps()
    parser.feed(text)
    parser.close()
    return tuple(
        "sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode()
        for m in parser.maps
    )


TRUSTWORTHY_ONLY = frozenset({"Cross-Origin-Opener-Policy"})
"""Headers a browser heeds only on a potentially trustworthy origin (https,
or the machine itself): over plain http on a LAN address Chromium ignores
them and says so in the console, an error a player sees for nothing."""

_LOOPBACK = re.compile(r"(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?", re.IGNORECASE)


def trustworthy(host: str | None, forwarded_proto: str | None) -> bool:
    """The page's origin is one a browser trusts: the request came through
    TLS (a reverse proxy's ``X-Forwarded-Proto: https``), or from loopback."""
    if forwarded_proto is not None and forwarded_proto.split(",")[0].strip().lower() == "https":
        return True
    return host is not None and _LOOPBACK.fullmatch(host) is not None


def page_headers(
    importmap_hashes: tuple[str, ...], host: str | None, secure: bool = True
) -> list[tuple[str, str]]:
    """Every security header of a response (the policy on all of them: an
    SVG opened on its own is a document too); ``secure`` false (plain http
    to a LAN address, see ``trustworthy``) leaves out ``TRUSTWORTHY_ONLY``."""
    policy = content_security_policy(importmap_hashes, host)
    kept = [h for h in SECURITY_HEADERS if secure or h[0] not in TRUSTWORTHY_ONLY]
    return [("Content-Security-Policy", policy), *kept]

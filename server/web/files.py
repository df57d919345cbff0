"""The browser client's files: which request path names which file, and the
files themselves, read once and kept in memory with their gzip and ETag.

The client is a folder of static files (``clients/web``: ``index.html`` at
its root, ES modules, styles and the vendored view library below it),
installed with the package. Only regular files under that folder, of a kind
listed in ``MEDIA_TYPES``, are ever served: a path that climbs out
(``..``, encoded or not, or a symbolic link pointing elsewhere), names a
hidden or private file (``.x``, ``_x``: ``__init__.py``, ``__pycache__``)
or has an unknown extension (``.py``, ``.md``) is simply not found.

Files are small (the whole client is some tens of KiB) and few, so each is
read once, with its gzip made once, and kept. A file's modification time and
size are checked on each request (one ``stat``): an edited file is served
fresh at once, without a restart.
"""

from __future__ import annotations

import gzip
import hashlib
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from server.web.policy import importmap_hashes

MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
}
"""Extension -> Content-Type of every kind of file served; ``X-Content-Type-
Options: nosniff`` makes browsers trust these (a module script must be
served as JavaScript, or the browser refuses it)."""

LICENCE_NAMES = frozenset({"LICENSE", "LICENCE", "COPYING", "NOTICE"})
"""Extensionless files served as text: a vendored library's licence."""

COMPRESSIBLE = frozenset({".html", ".js", ".mjs", ".css", ".json", ".webmanifest", ".svg", ".txt"})
"""Text: worth gzipping. PNG, ICO and WOFF2 are compressed already."""

GZIP_FROM = 256
"""Bytes below which gzip saves less than the ``Content-Encoding`` header costs."""

INDEX = "index.html"


def media_type(name: str) -> str | None:
    """The Content-Type of a file called ``name``, None if it is not served."""
    if name in LICENCE_NAMES:
        return MEDIA_TYPES[".txt"]
    return MEDIA_TYPES.get(PurePosixPath(name).suffix.lower())


def resolve(target: str) -> str | None:
    """The file a request target names, relative to the client's folder
    (``/`` -> ``index.html``, ``/app/x.js?v=2`` -> ``app/x.js``), or None when
    it names nothing that may be served. Pure: it reads no file."""
    path = target.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/"):
        return None
    try:
        # Decoded once, before the checks: "/%2e%2e/x" is "/../x". A name
        # still holding "%" after that is a literal "%" and meets the checks.
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if any(c < " " or c in "\\\x7f" for c in path):  # NUL, CR, a Windows separator
        return None
    if path.endswith("/"):
        path += INDEX
    parts = path[1:].split("/")
    if any(not part or part[0] in "._" for part in parts):  # "", ".", "..", ".git", "__x"
        return None
    if media_type(parts[-1]) is None:
        return None
    return "/".join(parts)


@dataclass(frozen=True, slots=True)
class Asset:
    """One file, as it is sent."""

    body: bytes
    gzipped: bytes | None
    """The gzip of ``body``, None when not worth it (small, or not text)."""
    etag: str
    """Weak (``W/"..."``): one tag for both encodings, compared weakly (RFC 9110
    §13.1.2), which is all ``If-None-Match`` does."""
    media_type: str
    importmap_hashes: tuple[str, ...]
    """CSP hashes of an HTML page's inline import maps (server/web/policy.py)."""
    stamp: tuple[int, int]
    """(mtime in ns, size) when read: a change means read it again."""


def load(path: Path, stamp: tuple[int, int]) -> Asset:
    body = path.read_bytes()
    kind = media_type(path.name)
    assert kind is not None  # resolve() let no other name through
    suffix = path.suffix.lower()
    gzipped = None
    if suffix in COMPRESSIBLE and len(body) >= GZIP_FROM:
        # mtime=0: the same bytes on every server of a cluster, every run.
        squeezed = gzip.compress(body, compresslevel=9, mtime=0)
        gzipped = squeezed if len(squeezed) < len(body) else None
    digest = hashlib.sha256(body).hexdigest()[:20]
    hashes = importmap_hashes(body) if suffix == ".html" else ()
    return Asset(body, gzipped, f'W/"{digest}"', kind, hashes, stamp)


class WebRoot:
    """The client's folder and the files read from it so far."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self._assets: dict[str, Asset] = {}

    def get(self, relative: str) -> Asset | None:
        """The file at ``relative`` (from ``resolve``), None if it is not one
        we may serve. Reads it when it is new or changed since last read."""
        try:
            real = (self.folder / relative).resolve(strict=True)
            if not real.is_relative_to(self.folder):  # a symbolic link out
                return None
            st = real.stat()
            if not stat.S_ISREG(st.st_mode):
                return None
            stamp = (st.st_mtime_ns, st.st_size)
            known = self._assets.get(relative)
            if known is not None and known.stamp == stamp:
                return known
            asset = load(real, stamp)
        except OSError:  # gone, unreadable, a loop of links: not found
            return None
        self._assets[relative] = asset
        return asset


def bundled_folder() -> Path | None:
    """``clients/web`` of this installation or checkout, None if absent (an
    install without the package's data, or from a zip)."""
    from importlib.resources import files

    try:
        folder = files("clients.web")
    except ModuleNotFoundError:
        return None
    if not isinstance(folder, Path) or not (folder / INDEX).is_file():
        return None
    return folder

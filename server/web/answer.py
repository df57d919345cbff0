"""HTTP answers for the browser client's files: GET and HEAD, revalidation
(``If-None-Match`` -> 304), gzip when the browser takes it, the content
type, the cache policy and the security headers.

Cache policy: every file is ``Cache-Control: no-cache`` with an ETag. A
browser keeps each file and asks before using it; an unchanged file costs a
304 with no body. ES modules are loaded as they are, with no build step to
put a version in their names, so a long cache could mix the modules of two
releases after an upgrade; revalidation never does.
"""

from __future__ import annotations

from http import HTTPStatus

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.web.files import WebRoot, resolve
from server.web.policy import SECURITY_HEADERS, page_headers, trustworthy, valid_host

ALLOW = "GET, HEAD"


def answer(root: WebRoot, request: Request) -> Response:
    """The response to a plain HTTP request for one of the client's files."""
    relative = resolve(request.path)
    asset = root.get(relative) if relative is not None else None
    if asset is None:
        return _plain(HTTPStatus.NOT_FOUND, b"Atout: no such file\n")
    if request.method not in ("GET", "HEAD"):
        refusal = _plain(HTTPStatus.METHOD_NOT_ALLOWED, b"Atout: GET or HEAD only\n")
        refusal.headers["Allow"] = ALLOW
        return refusal
    host = request.headers.get("Host")
    headers = Headers(
        [
            ("Content-Type", asset.media_type),
            ("Cache-Control", "no-cache"),
            ("ETag", asset.etag),
        ]
    )
    if asset.gzipped is not None:
        headers["Vary"] = "Accept-Encoding"  # shared caches keep both encodings apart
    secure = trustworthy(host, request.headers.get("X-Forwarded-Proto"))
    for name, value in page_headers(
        asset.importmap_hashes, host if host and valid_host(host) else None, secure
    ):
        headers[name] = value
    headers["Connection"] = "close"  # websockets answers one request per connection
    if not_modified(request.headers.get_all("If-None-Match"), asset.etag):
        return Response(HTTPStatus.NOT_MODIFIED.value, HTTPStatus.NOT_MODIFIED.phrase, headers, b"")
    body = asset.body
    if asset.gzipped is not None and accepts_gzip(request.headers.get("Accept-Encoding", "")):
        body = asset.gzipped
        headers["Content-Encoding"] = "gzip"
    headers["Content-Length"] = str(len(body))
    if request.method == "HEAD":
        body = b""  # the headers of a GET, Content-Length included, and no body
    return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, body)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` value takes gzip (RFC 9110 §12.5.3):
    listed, or covered by ``*``, with a weight above 0."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, _, params = item.partition(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0  # a weight we cannot read is no consent
        weights[coding] = weight
    if "gzip" in weights:
        return weights["gzip"] > 0
    if "x-gzip" in weights:
        return weights["x-gzip"] > 0
    return weights.get("*", 0.0) > 0


def not_modified(if_none_match: list[str], etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison) or is ``*``."""
    ours = etag.removeprefix("W/")
    for value in if_none_match:
        for tag in value.split(","):
            tag = tag.strip()
            if tag == "*" or tag.removeprefix("W/") == ours:
                return True
    return False


def _plain(status: HTTPStatus, body: bytes) -> Response:
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            *SECURITY_HEADERS[:1],  # nosniff: a text body stays text
            ("Connection", "close"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)

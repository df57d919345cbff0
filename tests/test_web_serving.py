"""The server serves the browser client on its own port, safely: files with
their types, ETag revalidation, gzip, HEAD, nothing outside the client's
folder, the security headers; ``--no-web``; the ``Origin`` check of the
WebSocket upgrade; and the page itself in a real Chromium, with no error.

Real server, real HTTP over a socket (the server answers one request per
connection and closes it: the body ends at EOF)."""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin, Subprotocol

from protocol.codec import PROTOCOL_VERSION, SUBPROTOCOL_JSON
from server.base import config
from server.web.answer import accepts_gzip, not_modified
from server.web.files import bundled_folder, resolve
from server.web.origin import parse_allowed, refusal
from server.web.policy import importmap_hashes
from tests.browser import ERRORS, ServerThread, axe_violations, describe, patient_context
from tests.support.servers import running

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

IMPORTMAP = '{"imports": {"lib": "./vendor/lib.mjs"}}'
PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test page</title>
<link rel="stylesheet" href="style.css">
<script type="importmap">
{IMPORTMAP}
</script>
<script type="module" src="app/main.js"></script>
</head><body><main><h1>Test page</h1><p id="out">waiting</p></main></body></html>
"""
MAIN_JS = """import { say } from "lib";
// The game's WebSocket, back to the page's own host: the CSP and the
// Origin check must both let it through.
const out = document.getElementById("out");
const ws = new WebSocket(location.origin.replace(/^http/, "ws"), ["atout.v1.json"]);
ws.onopen = () => ws.send(JSON.stringify({t: "hello", version: 1, name: "Web", rid: 1}));
ws.onmessage = (event) => { out.textContent = say(JSON.parse(event.data).t); ws.close(); };
ws.onerror = () => { out.textContent = "refused"; };
"""
LIB = "export function say(word) { return `server said ${word}`; }\n"


def _client(root: Path) -> Path:
    """A small client of our own, to test serving apart from the real one."""
    (root / "app").mkdir(parents=True)
    (root / "vendor").mkdir()
    (root / "index.html").write_text(PAGE)
    (root / "app" / "main.js").write_text(MAIN_JS)
    (root / "vendor" / "lib.mjs").write_text(LIB)
    (root / "vendor" / "LICENSE").write_text("MIT licence text\n")
    (root / "style.css").write_text("body { font-family: sans-serif; }\n" * 40)
    (root / "icon.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(300))
    (root / "__init__.py").write_text("SECRET = 1\n")
    (root / ".env.js").write_text("hidden\n")
    (root / "notes.md").write_text("not served\n")
    return root


@pytest.fixture
def client_dir(tmp_path: Path) -> Path:
    outside = tmp_path / "outside.js"
    outside.write_text("secret outside the client\n")
    root = _client(tmp_path / "web")
    (root / "app" / "escape.js").symlink_to(outside)
    return root


async def http(
    port: int, target: str, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request, sent as written (``..`` and all): (status, headers, body).
    The server closes the connection after its answer: the body ends there."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items() if k != "Host"]
    if headers and "Host" in headers:
        lines[1] = f"Host: {headers['Host']}"
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10))[:-4]
    # A 101 leaves a WebSocket open: its head is all we want.
    body = b"" if head.startswith(b"HTTP/1.1 101") else await asyncio.wait_for(reader.read(), 10)
    writer.close()
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parsed = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        parsed[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), parsed, body


UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}


# --- files, types, caching, compression ------------------------------------------------


async def test_the_page_is_served_on_slash_with_its_security_headers(client_dir: Path) -> None:
    async with running(web_root=str(client_dir)) as server:
        status, headers, body = await http(server.port, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert body.decode() == PAGE
    assert headers["cache-control"] == "no-cache"
    assert headers["etag"].startswith('W/"')
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "frame-ancestors 'none'" in policy
    # The inline import map, and no other inline script, by its hash.
    (digest,) = importmap_hashes(PAGE.encode())
    assert f"script-src 'self' '{digest}';" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert f"connect-src 'self' ws://127.0.0.1:{server.port} wss://127.0.0.1:{server.port};" in (
        policy + ";"
    )
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"
    assert "camera=()" in headers["permissions-policy"]


async def test_the_opener_policy_is_sent_only_where_a_browser_heeds_it(client_dir: Path) -> None:
    # Over plain http to a LAN address Chromium ignores Cross-Origin-Opener-
    # Policy and logs a console error for it (issue 34): the server leaves it
    # out there, and sends it on loopback and behind a TLS proxy.
    async with running(web_root=str(client_dir)) as server:
        lan = {"Host": f"192.168.1.20:{server.port}"}
        _, plain, _ = await http(server.port, "/", headers=lan)
        _, local, _ = await http(server.port, "/")
        _, proxied, _ = await http(server.port, "/", headers={**lan, "X-Forwarded-Proto": "https"})
    assert "cross-origin-opener-policy" not in plain
    assert plain["cross-origin-resource-policy"] == "same-origin"  # heeded over http too
    assert local["cross-origin-opener-policy"] == "same-origin"
    assert proxied["cross-origin-opener-policy"] == "same-origin"


async def test_assets_have_their_types(client_dir: Path) -> None:
    expected = {
        "/app/main.js": "text/javascript; charset=utf-8",
        "/vendor/lib.mjs": "text/javascript; charset=utf-8",
        "/style.css": "text/css; charset=utf-8",
        "/icon.png": "image/png",
        "/vendor/LICENSE": "text/plain; charset=utf-8",
        "/index.html": "text/html; charset=utf-8",
    }
    async with running(web_root=str(client_dir)) as server:
        for target, media_type in expected.items():
            status, headers, body = await http(server.port, target)
            assert (status, headers["content-type"]) == (200, media_type), target
            assert body == (client_dir / target[1:]).read_bytes()
            assert int(headers["content-length"]) == len(body)


async def test_an_unchanged_file_is_revalidated_with_a_304(client_dir: Path) -> None:
    async with running(web_root=str(client_dir)) as server:
        _, first, _ = await http(server.port, "/app/main.js")
        status, again, body = await http(
            server.port, "/app/main.js", headers={"If-None-Match": first["etag"]}
        )
        assert (status, body, again["etag"]) == (304, b"", first["etag"])
        # Edited: a new tag, the new bytes, without a restart.
        (client_dir / "app" / "main.js").write_text(MAIN_JS + "// edited\n")
        status, fresh, body = await http(
            server.port, "/app/main.js", headers={"If-None-Match": first["etag"]}
        )
    assert status == 200
    assert fresh["etag"] != first["etag"]
    assert body.endswith(b"// edited\n")


async def test_text_is_gzipped_for_clients_that_take_gzip(client_dir: Path) -> None:
    original = (client_dir / "style.css").read_bytes()
    async with running(web_root=str(client_dir)) as server:
        status, zipped, body = await http(
            server.port, "/style.css", headers={"Accept-Encoding": "gzip, deflate, br"}
        )
        assert (status, zipped["content-encoding"]) == (200, "gzip")
        assert zipped["vary"] == "Accept-Encoding"
        assert gzip.decompress(body) == original
        assert len(body) < len(original)
        _, plain, body = await http(
            server.port, "/style.css", headers={"Accept-Encoding": "gzip;q=0, br"}
        )
        assert "content-encoding" not in plain and body == original
        # Compressed already: never gzipped.
        _, png, _ = await http(server.port, "/icon.png", headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in png


async def test_head_sends_the_headers_of_get_and_no_body(client_dir: Path) -> None:
    async with running(web_root=str(client_dir)) as server:
        _, got, body = await http(server.port, "/style.css")
        status, head, nothing = await http(server.port, "/style.css", method="HEAD")
        refused, allow, _ = await http(server.port, "/style.css", method="POST")
    assert (status, nothing) == (200, b"")
    assert head["content-length"] == got["content-length"] == str(len(body))
    assert head["etag"] == got["etag"]
    assert refused == 405 and allow["allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    "target",
    [
        "/../outside.js",
        "/%2e%2e/outside.js",
        "/app/%2e%2e/%2e%2e/outside.js",
        "/app/..%2f..%2foutside.js",
        "/..%5coutside.js",
        "/../server/base/config.py",
        "/%2e%2e/%2e%2e/server/base/config.py",
        "/app/escape.js",  # a symbolic link out of the folder
        "/__init__.py",
        "/.env.js",
        "/notes.md",
        "/app",
        "/app/",
        "/missing.js",
        "//etc/passwd",
        "/%00.js",
        "/%ff.js",
    ],
)
async def test_nothing_outside_the_client_is_served(client_dir: Path, target: str) -> None:
    async with running(web_root=str(client_dir)) as server:
        status, headers, body = await http(server.port, target)
    assert status == 404, (target, body)
    assert b"secret" not in body and b"SECRET" not in body
    assert headers["x-content-type-options"] == "nosniff"


def test_paths_resolve_inside_the_folder_or_not_at_all() -> None:
    assert resolve("/") == "index.html"
    assert resolve("/?join=ABC123") == "index.html"
    assert resolve("/app/main.js?v=2") == "app/main.js"
    assert resolve("/vendor/preact/LICENSE") == "vendor/preact/LICENSE"
    assert resolve("/i18n/fr.json") == "i18n/fr.json"
    for bad in ["", "app/main.js", "/a//b.js", "/./a.js", "/a/../b.js", "/%2E%2E/a.js", "/x.py"]:
        assert resolve(bad) is None, bad


async def test_no_web_serves_no_page_but_the_rest(client_dir: Path) -> None:
    async with running(web=False, web_root=str(client_dir)) as server:
        status, _, body = await http(server.port, "/")
        assert status == 404 and b"WebSocket on /" in body
        assert (await http(server.port, "/app/main.js"))[0] == 404
        assert (await http(server.port, "/healthz"))[0] == 200
        async with connect(f"ws://127.0.0.1:{server.port}") as ws:
            assert ws.protocol.state.name == "OPEN"


async def test_the_bundled_client_is_served_by_default() -> None:
    folder = bundled_folder()
    assert folder is not None, "clients/web/index.html is missing"
    async with running() as server:
        status, headers, body = await http(server.port, "/")
        routes = [(await http(server.port, p))[0] for p in ("/healthz", "/metrics")]
    assert status == 200 and body == (folder / "index.html").read_bytes()
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert routes == [200, 200]  # the server's own routes stay


def test_settings_web_switch_and_origins() -> None:
    parser = argparse.ArgumentParser()
    config.add_arguments(parser)
    assert config.load(parser.parse_args([]), env={}).web is True
    assert config.load(parser.parse_args(["--no-web"]), env={}).web is False
    assert config.load(None, env={"ATOUT_WEB": "off"}).web is False
    with pytest.raises(config.SettingError, match="ATOUT_WEB=maybe: not on or off"):
        config.load(None, env={"ATOUT_WEB": "maybe"})
    with pytest.raises(config.SettingError, match=r"--allowed-origins tarot\.example\.com"):
        config.load(parser.parse_args(["--allowed-origins", "tarot.example.com"]), env={})
    with pytest.raises(config.SettingError, match="not a folder"):
        config.load(None, env={"ATOUT_WEB_ROOT": "/no/such/folder"})


def test_gzip_and_etag_header_parsing() -> None:
    assert accepts_gzip("gzip")
    assert accepts_gzip("br;q=1.0, gzip;q=0.8, *;q=0.1")
    assert accepts_gzip("*")
    assert not accepts_gzip("")
    assert not accepts_gzip("br, deflate")
    assert not accepts_gzip("gzip;q=0, *")
    assert not accepts_gzip("*;q=0")
    assert not accepts_gzip("gzip;q=nonsense")
    assert not_modified(['W/"abc"'], 'W/"abc"')
    assert not_modified(['"x", "abc"'], 'W/"abc"')
    assert not_modified(["*"], 'W/"abc"')
    assert not not_modified([], 'W/"abc"')
    assert not not_modified(['"abd"'], 'W/"abc"')


# --- the Origin check -------------------------------------------------------------------


def test_origin_rule() -> None:
    none = parse_allowed("")
    host = "tarot.example.com"
    assert refusal(None, host, none) is None  # not a browser
    assert refusal("https://tarot.example.com", host, none) is None
    assert refusal("https://tarot.example.com", "tarot.example.com:443", none) is None
    assert refusal("http://localhost:8765", "localhost:8765", none) is None
    assert refusal("http://[::1]:8765", "[::1]:8765", none) is None
    assert refusal("https://TAROT.example.com", host, none) is None
    for foreign in ["https://evil.example", "http://tarot.example.com:8080", "null", "x"]:
        assert refusal(foreign, host, none) is not None, foreign
    assert refusal("https://tarot.example.com:8443", "tarot.example.com", none) is not None
    listed = parse_allowed("https://tarot.example.com, http://localhost:3000")
    assert refusal("https://tarot.example.com", "127.0.0.1:8765", listed) is None
    assert refusal("https://tarot.example.com:443", "127.0.0.1:8765", listed) is None
    assert refusal("http://localhost:3000", "127.0.0.1:8765", listed) is None
    assert refusal("https://evil.example", "127.0.0.1:8765", listed) is not None
    assert refusal("null", "127.0.0.1:8765", parse_allowed("*")) is None
    for bad in ["tarot.example.com", "ftp://x", "https://x/path", "https://u@x", "https://x:99999"]:
        with pytest.raises(ValueError):
            parse_allowed(bad)


async def test_a_foreign_origin_is_refused_at_the_upgrade() -> None:
    async with running() as server:
        port = server.port
        status, _, body = await http(
            port, "/", headers={**UPGRADE, "Origin": "https://evil.example"}
        )
        assert status == 403
        assert b"'https://evil.example' may not connect" in body
        assert b"--allowed-origins" in body
        same = await http(port, "/", headers={**UPGRADE, "Origin": f"http://127.0.0.1:{port}"})
        assert same[0] == 101
        assert (await http(port, "/", headers=UPGRADE))[0] == 101  # no Origin: a program
        # A real client, no Origin: the game goes on as ever.
        async with connect(
            f"ws://127.0.0.1:{port}", subprotocols=[Subprotocol(SUBPROTOCOL_JSON)]
        ) as ws:
            await ws.send(json.dumps({"t": "hello", "version": PROTOCOL_VERSION, "name": "Ann"}))
            assert json.loads(await ws.recv())["t"] == "welcome"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(f"ws://127.0.0.1:{port}", origin=Origin("https://evil.example")):
                pass
        assert refused.value.response.status_code == 403


async def test_allowed_origins_let_a_proxied_page_in() -> None:
    # Behind a proxy that rewrites Host, the page's origin is listed.
    proxied = {**UPGRADE, "Host": "127.0.0.1:8765", "Origin": "https://tarot.example.com"}
    async with running(allowed_origins="https://tarot.example.com") as server:
        assert (await http(server.port, "/", headers=proxied))[0] == 101
        evil = {**proxied, "Origin": "https://evil.example"}
        assert (await http(server.port, "/", headers=evil))[0] == 403
    async with running(allowed_origins="*") as server:
        assert (await http(server.port, "/", headers=evil))[0] == 101


# --- in a real browser --------------------------------------------------------------------


def test_the_page_loads_in_chromium_without_an_error(page: Page, web_server: ServerThread) -> None:
    response = page.goto(web_server.url)
    assert response is not None and response.status == 200
    page.wait_for_load_state("networkidle")
    assert page.title()
    # Console errors (a CSP refusal, a module that did not load) fail this
    # test through tests/browser.py; the page must also be accessible.
    violations = axe_violations(page)
    assert not violations, describe(violations)


def test_csp_lets_the_page_talk_to_its_server_and_nothing_inline(
    page: Page,
    start_web_server: Callable[..., ServerThread],
    client_dir: Path,
    request: pytest.FixtureRequest,
) -> None:
    from playwright.sync_api import expect

    server = start_web_server(web_root=str(client_dir))
    page.goto(server.url)
    # The import map (allowed by its hash), the module, the WebSocket to
    # 'self' through the CSP and the Origin check, a hello and its welcome.
    expect(page.locator("#out")).to_have_text("server said welcome")
    # An inline script is refused by the CSP, and that refusal is a console
    # error, which would fail the test (tests/browser.py): seen, then cleared.
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "document.title = 'injected'";
            document.head.append(script);
        }"""
    )
    assert page.title() == "Test page"
    errors = request.node.stash[ERRORS]
    assert any("Content Security Policy" in e for e in errors), errors
    errors.clear()


def test_a_page_from_another_origin_cannot_open_a_game(
    browser: Browser, start_web_server: Callable[..., ServerThread], client_dir: Path
) -> None:
    game = start_web_server(web_root=str(client_dir))
    other = start_web_server(web_root=str(client_dir))
    friendly = start_web_server(web_root=str(client_dir), allowed_origins=other.url.rstrip("/"))
    # The page's own CSP would stop it before the server is asked: set it
    # aside here, to see what the server says to a page of another site.
    context = patient_context(browser, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(other.url)
        opens = """url => new Promise(done => {
            const ws = new WebSocket(url);
            ws.onopen = () => { done("open"); ws.close(); };
            ws.onerror = () => done("refused");
        })"""
        assert page.evaluate(opens, game.ws_url) == "refused"  # HTTP 403
        assert page.evaluate(opens, friendly.ws_url) == "open"  # listed in allowed_origins
        assert page.evaluate(opens, other.ws_url) == "open"  # its own server
    finally:
        context.close()

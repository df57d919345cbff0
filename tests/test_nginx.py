"""deploy/nginx.conf works: nginx holds TLS, serves the browser client's
files itself with the server's security headers, and passes the game's
WebSocket and the server's routes through to a real atout-server.

The shipped file is used as it is, with only its addresses, certificate and
folders replaced (a self-signed certificate made for the test). Skipped when
``nginx`` or ``openssl`` is not installed.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from websockets.sync.client import connect

from protocol.codec import PROTOCOL_VERSION, SUBPROTOCOL_JSON
from server.web.files import bundled_folder
from server.web.proxy import lines
from tests.browser import ServerThread
from tests.support.ports import free_port

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "deploy" / "nginx.conf"
TIMEOUT_S = 30.0


def _replace(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, f"deploy/nginx.conf: no {old!r}"
    return text.replace(old, new)


def local_config(tmp: Path, listen: int, upstream: int) -> str:
    """The shipped file with our addresses, certificate and folders, inside
    the main configuration nginx needs to run as us, from ``tmp``."""
    text = CONFIG.read_text(encoding="utf-8")
    text = _replace(text, "listen 443 ssl;", f"listen 127.0.0.1:{listen} ssl;")
    text = _replace(
        text, "/etc/letsencrypt/live/atout.example.org/fullchain.pem", str(tmp / "cert")
    )
    text = _replace(text, "/etc/letsencrypt/live/atout.example.org/privkey.pem", str(tmp / "key"))
    text = _replace(text, "root /srv/atout/web;", f"root {tmp / 'web'};")
    text = _replace(text, "/etc/nginx/atout-headers.conf", str(tmp / "atout-headers.conf"))
    text = _replace(text, "127.0.0.1:8765", f"127.0.0.1:{upstream}")
    temp = "\n".join(
        f"    {kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    # As root, nginx's workers would drop to `nobody`, who cannot read the
    # test's private temporary folder.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}pid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'} warn;\n"
        f"events {{}}\nhttp {{\n    access_log off;\n{temp}\n"
        f"    uwsgi_temp_path {tmp / 'uwsgi'};\n    scgi_temp_path {tmp / 'scgi'};\n"
        f"{text}\n}}\n"
    )


class Nginx:
    def __init__(self, port: int, context: ssl.SSLContext) -> None:
        self.port = port
        self.context = context

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/"

    def get(
        self, path: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.url.rstrip("/") + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=10) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


@pytest.fixture
def nginx(tmp_path: Path, web_server: ServerThread) -> Iterator[Nginx]:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None
    )
    if found is None or shutil.which("openssl") is None:
        pytest.skip("nginx and openssl are needed (apt-get install nginx openssl)")
    folder = bundled_folder()
    assert folder is not None
    shutil.copytree(folder, tmp_path / "web")  # as `rsync -a clients/web/ /srv/atout/web/`
    (tmp_path / "atout-headers.conf").write_text(lines("nginx", tmp_path / "web"))
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(tmp_path / "key"), "-out", str(tmp_path / "cert"),
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(local_config(tmp_path, port, web_server.port))
    proc = subprocess.Popen(
        [found, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    context = ssl.create_default_context(cafile=str(tmp_path / "cert"))
    front = Nginx(port, context)
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            try:
                if front.get("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "error.log").read_text()
            time.sleep(0.1)
        yield front
    finally:
        proc.terminate()
        proc.wait(10)


def test_nginx_serves_the_client_with_the_servers_headers(nginx: Nginx) -> None:
    folder = bundled_folder()
    assert folder is not None
    status, page, body = nginx.get("/")
    assert status == 200 and body == (folder / "index.html").read_bytes()
    assert page["content-type"].startswith("text/html")
    assert page["cache-control"] == "no-cache"
    policy = page["content-security-policy"]
    assert f"wss://127.0.0.1:{nginx.port}" in policy and "'unsafe-inline'" not in policy
    for name in ("x-content-type-options", "x-frame-options", "referrer-policy"):
        assert page[name]
    for script in sorted(folder.glob("**/*.js")) + sorted(folder.glob("**/*.mjs")):
        path = "/" + script.relative_to(folder).as_posix()
        status, headers, body = nginx.get(path, {"Accept-Encoding": "gzip"})
        assert status == 200, path
        assert headers["content-type"].startswith("text/javascript"), (path, headers)
        if headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        assert body == script.read_bytes()
        # Revalidation: an unchanged file costs a 304.
        again = nginx.get(path, {"If-None-Match": headers["etag"]})[0]
        assert again == 304, path
    for hidden in ("/__init__.py", "/README.md", "/.atout-game", "/app/_x.js"):
        assert nginx.get(hidden)[0] == 404, hidden
    for climbing in ("/../server/base/config.py", "/%2e%2e/server/base/config.py"):
        assert nginx.get(climbing)[0] == 400, climbing  # nginx refuses the path outright
    status, _, metrics = nginx.get("/metrics")  # from 127.0.0.1, which the file allows
    assert status == 200 and b"atout_connections" in metrics


def test_the_game_goes_through_nginx_over_tls(nginx: Nginx) -> None:
    origin = nginx.url.rstrip("/")
    with connect(
        f"wss://127.0.0.1:{nginx.port}/",
        ssl=nginx.context,
        origin=origin,  # type: ignore[arg-type]
        subprotocols=[SUBPROTOCOL_JSON],  # type: ignore[list-item]
    ) as ws:
        ws.send(json.dumps({"t": "hello", "version": PROTOCOL_VERSION, "name": "Ann"}))
        assert json.loads(ws.recv(timeout=10))["t"] == "welcome"


@pytest.fixture
def context_options() -> dict[str, Any]:
    return {"ignore_https_errors": True}  # the test's certificate is self-signed


# The certificate is self-signed and accepted only as an exception (as a
# person clicking past the warning would): Chromium then refuses the page's
# service worker, which the page shrugs off (it works without the offline
# cache) but Chromium reports on the console. Nothing else may be reported.
@pytest.mark.console_allows("SSL certificate error occurred when fetching the script")
def test_the_page_loads_through_nginx_in_chromium(nginx: Nginx, page: Page) -> None:
    # Any console error (a refused policy, a module with the wrong type, a
    # WebSocket that fails) fails this test (tests/browser.py).
    response = page.goto(nginx.url)
    assert response is not None and response.status == 200
    page.wait_for_load_state("networkidle")
    # From the page, under the policy nginx sent: a WebSocket back to its
    # host (wss, through nginx, past the server's Origin check), a welcome.
    said = page.evaluate(
        """() => new Promise(done => {
            const ws = new WebSocket(`wss://${location.host}/`, ["atout.v1.json"]);
            ws.onopen = () => ws.send(JSON.stringify({t: "hello", version: 1, name: "Web"}));
            ws.onmessage = event => { done(JSON.parse(event.data).t); ws.close(); };
            ws.onerror = () => done("refused");
        })"""
    )
    assert said == "welcome"

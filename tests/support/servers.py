"""Starting a real server in-process (``running``); a TLS front before it,
with a self-signed certificate, as a reverse proxy would hold one
(docs/DEPLOY.md)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from server.base.clock import WALL, Clock
from server.base.config import Settings
from server.link.reader import LeanConnection
from server.process.app import Server
from server.store.base import TableStore

# Scripted clients act far faster than people: the rate limit has its own test.
FAST = Settings(
    port=0,
    bot_think=0.0,
    deal_pause=0.0,
    result_wait=0.0,
    grace=0.2,
    hello_timeout=2.0,
    rate=1000.0,
    burst=1000,
    # Many clients from 127.0.0.1: the per-address limits have their own tests.
    max_per_ip=0,
    connect_rate=0.0,
    create_rate=0.0,
)


def for_people(**overrides: Any) -> Settings:
    """Settings for a person's client (the terminal client's tests): quick
    bots and deals, but the waits and limits a person meets (a result waits
    for Continue, the rate limits are on)."""
    base = Settings(port=0, bot_think=0.0, deal_pause=0.0, log_level="warning", shutdown_grace=1.0)
    return replace(base, **overrides)


@contextlib.asynccontextmanager
async def running(
    settings: Settings = FAST,
    store: TableStore | None = None,
    clock: Clock = WALL,
    **overrides: Any,
) -> AsyncIterator[Server]:
    server = Server(replace(settings, **overrides), store=store, clock=clock)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def lean_frames(server: Server) -> dict[str, int]:
    """Frames read in place so far (server/link/reader.py), by the connection's player name."""
    return {
        conn.name: conn.ws.lean_frames
        for conn in server.front.conns
        if isinstance(conn.ws, LeanConnection)
    }


def url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.port}"


def self_signed(folder: Path, *names: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``names`` (host names or IP addresses),
    made by the ``openssl`` command as a host without a domain would make
    one: (certificate, private key). Skips the test without ``openssl``."""
    import pytest

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    alt = ",".join(f"IP:{n}" if n.replace(".", "").isdigit() else f"DNS:{n}" for n in names)
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-nodes", "-days", "2", "-subj", f"/CN={names[0]}"),
            *("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-keyout", str(key), "-out", str(cert), "-addext", f"subjectAltName={alt}"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@contextlib.asynccontextmanager
async def tls_front(port: int, cert: Path, key: Path) -> AsyncIterator[int]:
    """A TLS endpoint on 127.0.0.1 that passes every byte to and from the
    plain server on ``port``, as nginx does; yields its port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    tasks: set[asyncio.Future[Any]] = set()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (OSError, ConnectionError):
            pass
        finally:
            writer.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        both = asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        task = asyncio.ensure_future(both)
        tasks.add(task)
        with contextlib.suppress(asyncio.CancelledError):
            await task
        tasks.discard(task)

    front = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    try:
        yield front.sockets[0].getsockname()[1]
    finally:
        front.close()
        for task in list(tasks):
            task.cancel()
        await front.wait_closed()


__all__ = ["FAST", "for_people", "running", "self_signed", "tls_front", "url"]
